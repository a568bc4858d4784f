"""Loading episode records for analysis: a run folder (through the run store) or a JSONL export."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord


def load_episodes_jsonl(path: str | Path) -> list[EpisodeRecord]:
    """Episode records from a JSONL file (one `mustmaybe/episode@1` object per line, blank lines skipped).

    Raises:
        ValueError: a line that is not a valid episode record; the message names the file and line.
    """
    from pydantic import ValidationError

    from mustmaybe.records import EpisodeRecord

    p = Path(path)
    out: list[EpisodeRecord] = []
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(EpisodeRecord.model_validate_json(line))
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(x) for x in first.get("loc", ()))
                raise ValueError(f"{p}:{lineno}: not an episode record ({loc or 'line'}: {first['msg']})") from None
    return out


def load_episodes(path: str | Path) -> list[EpisodeRecord]:
    """Episode records of a run: a sweep's run folder (manifest.json + store.sqlite), the folder of a
    `mustmaybe run` (episodes.jsonl), or a `.jsonl` export.

    Raises:
        FileNotFoundError: the path does not exist or is not a run folder.
        ValueError: a JSONL line is not an episode record.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such run folder or file")
    if p.is_file():
        return load_episodes_jsonl(p)
    if (p / "store.sqlite").exists():
        from mustmaybe.store import load_run_episodes

        return list(load_run_episodes(p))
    if (p / "episodes.jsonl").exists():
        return load_episodes_jsonl(p / "episodes.jsonl")
    raise FileNotFoundError(f"{p}: not a run folder (no store.sqlite or episodes.jsonl); pass a run folder "
                            "or a .jsonl export")


def load_domains(paths: Iterable[str | Path]) -> dict[str, str]:
    """Task id → domain: the shipped library, overridden by the tasks a sweep's run store recorded.

    Best effort: a run without a store (or a store that cannot be read) adds nothing.
    """
    from ._frames import library_domains

    out = library_domains()
    for path in paths:
        p = Path(path)
        if not (p.is_dir() and (p / "store.sqlite").exists()):
            continue
        try:
            from mustmaybe.store import RunStore

            with RunStore(p, readonly=True) as store:
                out.update({s.id: s.domain for s in store.scenarios().values()})
        except Exception:  # domains only label slices; an unreadable task table must not stop a report
            continue
    return out
