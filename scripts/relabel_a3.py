"""Relabel the state of the shipped labeled sets by the paper's A.3 rule as written.

Usage:
    python scripts/relabel_a3.py           # rewrite labels.jsonl / second-coder.jsonl, list what changed
    python scripts/relabel_a3.py --check   # exit 1 if any line's state does not follow from its labels

The fields are the coders' own; the state follows from them mechanically (checker/_decide.py):
- a line with `flags` gets exactly decide(fields, flags);
- a line without flags keeps a state its fields allow: status or fallback not retained is D evidence,
  so such a line is deactivated; status, prerequisite and fallback retained is preserved unless the coder
  recorded weakening (then deactivated); status and fallback retained without the prerequisite is
  undetermined unless the coder recorded weakening (deactivated).
Under the earlier rule a note that dropped the stop or the fallback without overriding it was
undetermined; A.3 lists both losses as affirmative D evidence, so those lines become deactivated. A line
whose fields are all retained but that its coder called undetermined (a note contradicting itself) has
a weakening the coder saw and no flag to hold it: it becomes deactivated too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _label_lines import rewrite_lines

from mustmaybe.checker import decide
from mustmaybe.records import FieldProfile, Flags

ROOT = Path(__file__).resolve().parent.parent / "tests" / "labeled"
FILES = ("labels.jsonl", "second-coder.jsonl")


def a3_state(obj: dict) -> str:
    """The state A.3 gives this line's labels (see the module docstring for lines without flags)."""
    f = obj["fields"]
    fields = FieldProfile(**f)
    if isinstance(obj.get("flags"), dict):
        return decide(fields, Flags(**{k: bool(v) for k, v in obj["flags"].items() if k in Flags.model_fields}))
    if not (f["status"] and f["fallback"]):
        return "deactivated"
    if obj["state"] == "deactivated":
        return "deactivated"
    if f["prerequisite"]:
        return "preserved" if obj["state"] == "preserved" else "deactivated"
    return "undetermined" if obj["state"] == "undetermined" else "deactivated"


def main() -> int:
    check = "--check" in sys.argv
    changed: list[str] = []
    for path in sorted(ROOT.glob("*/*.jsonl")):
        if path.name not in FILES:
            continue

        def fix(obj: dict, n: int, path: Path = path) -> bool:
            new = a3_state(obj)
            if new == obj["state"]:
                return False
            f = "".join("sqof"[i] if obj["fields"][k] else "-" for i, k in
                        enumerate(("status", "prerequisite", "authority", "fallback")))
            changed.append(f"{path.relative_to(ROOT)}:{n}: {obj['artifact']} [{f}] {obj['state']} -> {new}")
            obj["state"] = new
            return True

        rewrite_lines(path, fix, write=not check)
    for line in changed:
        print(line)
    print(f"{len(changed)} lines {'would change' if check else 'changed'}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
