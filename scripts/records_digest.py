"""Print a digest of what a run folder stores, timings aside: to show a change leaves records byte-identical.

Usage: python scripts/records_digest.py RUN [--dump FILE] [--any-checker-digest]

Every stored episode record (as it was written: what the store keeps as a reference, store/_refs.py, is
restored), every `messages`, `usage` and `errors` row and every `episodes` column is
written as canonical JSON (keys sorted) without the keys that are times (`started_at`, `finished_at`,
`duration_s`, `latency_s`, `in_tool_s`); the digest is the SHA-256 of those lines. Run the same sim
sweep before and after a change and compare the two digests (or `--dump` files, line by line).
`--any-checker-digest` writes the checker version's source digest (`rules@10+<digest>`) as `DIGEST`,
for a change that edits the checker's files but none of its rules.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mustmaybe.store import record_dict

TIMES = frozenset({"started_at", "finished_at", "duration_s", "latency_s", "in_tool_s"})


def _strip(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k not in TIMES}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


def stored_lines(run: Path) -> Iterator[str]:
    """The run's stored records and rows, timings aside, one canonical JSON line each, in key order."""
    con = sqlite3.connect(f"file:{run / 'store.sqlite'}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        for row in con.execute("SELECT * FROM episodes ORDER BY key"):
            cols = {k: row[k] for k in row.keys() if k not in TIMES and k != "record"}
            record = record_dict(row["record"], where=f"{run}: episode {row['key'][:12]}")
            yield json.dumps({"record": _strip(record), **cols}, sort_keys=True)
        for table in ("messages", "usage", "errors"):
            for row in con.execute(f"SELECT * FROM {table} ORDER BY 1, 2"):
                yield json.dumps({"table": table, **{k: row[k] for k in row.keys() if k not in TIMES}},
                                 sort_keys=True)
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="a run folder (store.sqlite)")
    p.add_argument("--dump", type=Path, default=None, help="also write the lines to FILE")
    p.add_argument("--any-checker-digest", action="store_true", help="write the checker version's digest as DIGEST")
    args = p.parse_args(argv)
    if not (args.run / "store.sqlite").is_file():
        print(f"error: {args.run}: not a run folder (no store.sqlite)", file=sys.stderr)
        return 2
    h = hashlib.sha256()
    lines = list(stored_lines(args.run))
    if args.any_checker_digest:
        lines = [re.sub(r"(\b\d+)\+[0-9a-f]{10}\b", r"\1+DIGEST", line) for line in lines]
    for line in lines:
        h.update(line.encode() + b"\n")
    if args.dump is not None:
        args.dump.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    print(f"{h.hexdigest()}  {len(lines)} lines  {args.run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
