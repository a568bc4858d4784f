"""`mustmaybe export RUN --format parquet|csv|jsonl|inspect [--out PATH]`.

- `jsonl`: one `mustmaybe/episode@1` record per line (EPISODE_RECORD.md keys); `--out` is the file
  (default `RUN/export/episodes.jsonl`).
- `parquet` / `csv`: two flat tables, `episodes` (the store's columns without the record JSON) and
  `messages` (one row per hop with its score). `--out` is a folder (default `RUN/export/`)
  receiving `episodes.<ext>` and `messages.<ext>`, or a file name ending in `.<ext>`, whose stem
  prefixes both (`results.csv` → `results_episodes.csv`, `results_messages.csv`).
- `inspect`: Inspect AI eval logs, one per condition × topology × models (store/_inspect.py); `--out`
  is a folder (default `RUN/export/inspect/`). Needs the optional extra `inspect`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mustmaybe.errors import UserError

from ._refs import full_json
from ._rows import EPISODE_COLUMNS, MESSAGE_COLUMNS
from ._store import RunStore

FORMATS = ("parquet", "csv", "jsonl", "inspect")
_BOOL_EPISODE = ("twin", "simulated", "complete", "reviewer_identified", "parse_ok", "forbidden", "recognized",
                 "isolation_ok", "infra_error", "failed")
_BOOL_MESSAGE = ("is_artifact", "complete", "status", "prerequisite", "authority", "fallback")


def _targets(run: Path, fmt: str, out: Path | None) -> tuple[Path, Path]:
    if out is None:
        base = run / "export"
        return base / f"episodes.{fmt}", base / f"messages.{fmt}"
    if out.suffix == f".{fmt}":
        return out.with_name(f"{out.stem}_episodes.{fmt}"), out.with_name(f"{out.stem}_messages.{fmt}")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is an existing file; for --format {fmt} give a folder, or a file name "
                        f"ending in .{fmt}")
    if out.suffix and not out.exists():
        raise UserError(f"--out {out}: for --format {fmt} give a folder, or a file name ending in .{fmt}")
    return out / f"episodes.{fmt}", out / f"messages.{fmt}"


def _frame(rows: list[tuple[Any, ...]], columns: tuple[str, ...], bools: tuple[str, ...]) -> Any:
    import polars as pl

    df = pl.DataFrame(rows, schema=list(columns), orient="row", infer_schema_length=None)
    return df.with_columns([pl.col(c).cast(pl.Boolean) for c in bools if c in df.columns])


def export_run(run_dir: str | Path, fmt: str, out: str | Path | None = None) -> list[Path]:
    """Write the run's episodes (and messages) in `fmt`; returns the files written.

    Raises:
        UserError: unknown format, not a run folder, or a parquet writer or inspect_ai that is not installed.
    """
    run = Path(run_dir)
    if fmt not in FORMATS:
        raise UserError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    try:
        store = RunStore(run, readonly=True)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    outp = Path(out) if out is not None else None
    with store:
        if fmt == "inspect":
            from ._inspect import export_inspect
            from ._manifest import read_manifest

            try:
                manifest = read_manifest(run)
            except FileNotFoundError:
                manifest = {}
            return export_inspect(store, outp or run / "export" / "inspect", manifest)
        if fmt == "jsonl":
            target = outp or run / "export" / "episodes.jsonl"
            if target.is_dir():
                target = target / "episodes.jsonl"
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("w", encoding="utf-8") as f:
                for key, text in store.db.execute("SELECT key, record FROM episodes ORDER BY rowid"):
                    # The record as it was written: what the store references is restored (store/_refs.py).
                    f.write(full_json(text, where=f"{store.path}: episode {key[:12]}"))
                    f.write("\n")
            return [target]
        ep_cols = tuple(c for c in EPISODE_COLUMNS if c != "record")
        # A store older than the `failed` column has no failed episodes.
        select = [f"{store.failed_sql} AS failed" if c == "failed" else c for c in ep_cols]
        episodes = store.query(f"SELECT {', '.join(select)} FROM episodes ORDER BY rowid")
        messages = store.query(
            f"SELECT {', '.join('m.' + c for c in MESSAGE_COLUMNS)} FROM messages m "
            "JOIN episodes e ON e.key = m.key ORDER BY e.rowid, m.idx")
    ep_path, msg_path = _targets(run, fmt, outp)
    ep_path.parent.mkdir(parents=True, exist_ok=True)
    ep_df = _frame(episodes, ep_cols, _BOOL_EPISODE)
    msg_df = _frame(messages, MESSAGE_COLUMNS, _BOOL_MESSAGE)
    try:
        if fmt == "parquet":
            ep_df.write_parquet(ep_path)
            msg_df.write_parquet(msg_path)
        else:
            ep_df.write_csv(ep_path)
            msg_df.write_csv(msg_path)
    except ModuleNotFoundError as exc:
        raise UserError(f"--format {fmt} needs the Python package '{exc.name}', which is not installed; "
                        f"install it with: pip install {exc.name} (or pip install -e '.[dev]')") from None
    return [ep_path, msg_path]
