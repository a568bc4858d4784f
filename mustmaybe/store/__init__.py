"""The run store: a run folder's `manifest.json` and `store.sqlite` (docs/run-folders.md).

`RunStore` writes and reads episodes; `export_run` and `rescore_run` work on a whole run folder;
`write_single_run` writes the folder of a `mustmaybe run`; `merge_shards` merges the store shards of a
sweep run on Ray into the run's store. The `record` column keeps each score once and references it
from its other places (`stored_json`, `read_record`, `full_json`: store/_refs.py). Imports no
AutoGen: reading a run loads only the records (`mustmaybe.records`).
"""

from ._export import FORMATS, export_run
from ._lock import LOCK, writer_lock
from ._manifest import (
    MANIFEST,
    git_state,
    host_info,
    is_run_folder,
    package_versions,
    read_manifest,
    update_manifest,
    write_manifest,
)
from ._merge import SHARDS, MergeResult, merge_shards, shard_dir, shard_paths
from ._refs import (
    REF,
    StoredRecordError,
    compact_record,
    expand_record,
    full_json,
    read_record,
    record_dict,
    stored_json,
)
from ._rescore import rescore_record, rescore_run
from ._rows import EPISODE_COLUMNS, ERROR_COLUMNS, MESSAGE_COLUMNS, STORE_SCHEMA, USAGE_COLUMNS, is_infra_kind
from ._run_folder import folder_problem, write_single_run
from ._store import STORE, RunStore, load_run_episodes, pid_alive

__all__ = [
    "EPISODE_COLUMNS",
    "ERROR_COLUMNS",
    "FORMATS",
    "LOCK",
    "MANIFEST",
    "MESSAGE_COLUMNS",
    "REF",
    "SHARDS",
    "STORE",
    "STORE_SCHEMA",
    "USAGE_COLUMNS",
    "MergeResult",
    "RunStore",
    "StoredRecordError",
    "compact_record",
    "expand_record",
    "export_run",
    "folder_problem",
    "full_json",
    "git_state",
    "host_info",
    "is_infra_kind",
    "is_run_folder",
    "load_run_episodes",
    "merge_shards",
    "package_versions",
    "pid_alive",
    "read_manifest",
    "read_record",
    "record_dict",
    "rescore_record",
    "rescore_run",
    "shard_dir",
    "shard_paths",
    "stored_json",
    "update_manifest",
    "write_manifest",
    "write_single_run",
    "writer_lock",
]
