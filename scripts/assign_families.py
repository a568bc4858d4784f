"""Give every labeled artifact that has no writer-given family a family id from the shape of its text.

Usage:
    python scripts/assign_families.py           # write `family` into labels.jsonl where a line has none
    python scripts/assign_families.py --check   # exit 1 if a line lacks a family

A family is the kind of text an artifact is, so that a leave-one-family-out estimate holds out a whole kind
at a time (the way a user's new text arrives). Sets written since the family field existed carry the
families their writers invented; for the older sets the family is read off the text's structure by the
plain rules below, which are independent of the checker's code (a line's old phenomenon label, where it had
one, moves to `phenomenon`):

- `thread`: a message above or below quoted or forwarded mail;
- `transcript`: an exchange of turns by at least two speakers, one of them speaking twice;
- `structured`: a record of keys and values (JSON, YAML, `Key: value` lines making up most of the text);
- `plan`: three or more steps (numbered, bulleted, or starting with a time);
- `bottom-line`: a summary whose conclusion is labelled (bottom line, TL;DR, decision, recommendation);
- `terse`: at most 25 words;
- `long`: 200 words or more of running text;
- `message`: running text addressed from one person to another (a greeting, a sign-off, "I" and "you");
- `report`: anything else: running text about the situation in the third person.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from _label_lines import rewrite_lines

ROOT = Path(__file__).resolve().parent.parent / "tests" / "labeled"

QUOTE = re.compile(r"^\s*>|^-{2,}\s*(original|forwarded) message|^on .{3,200} wrote:\s*$|^begin forwarded",
                   re.IGNORECASE | re.MULTILINE)
TURN = re.compile(r"^\s*(?:\[?\d{1,2}[:.]\d{2}\]?\s*[-–]?\s*)?([A-Za-z@][\w.'@-]*(?: [A-Za-z][\w.'-]*){0,2})"
                  r"\s*(?:\([^)\n]{1,40}\))?\s*:\s*\S", re.MULTILINE)
KEYLINE = re.compile(r"^\s*[\"']?[\w .-]{1,30}[\"']?\s*[:=]", re.MULTILINE)
STEP = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•]|\d{1,2}[:.]\d{2}|step \d+)\s", re.IGNORECASE | re.MULTILINE)
BOTTOM = re.compile(r"^\s*[#*_]*\s*(bottom line|tl;?dr|decision|recommendation|conclusion|verdict|net)\b\s*[:\-–—]",
                    re.IGNORECASE | re.MULTILINE)

ADDRESS = re.compile(r"^\s*(hi|hey|hello|dear|morning|evening|all|team|folks|guys)\b|\b(thanks|thank you|cheers|"
                     r"regards|best|ta)\b[,.!]?\s*$|\b(I|I'm|I've|I'll|you|your|you're)\b",
                     re.IGNORECASE | re.MULTILINE)


def family_of(text: str) -> str:
    """The structural family of one artifact text."""
    lines = [s for s in text.splitlines() if s.strip()]
    words = len(text.split())
    if QUOTE.search(text):
        return "thread"
    speakers = [m.group(1).lower() for m in TURN.finditer(text)]
    if len(speakers) >= 3 and 2 <= len(set(speakers)) < len(speakers):
        return "transcript"
    if text.lstrip().startswith(("{", "[")) or (len(lines) >= 2 and len(KEYLINE.findall(text)) >= 0.6 * len(lines)):
        return "structured"
    if len(STEP.findall(text)) >= 3:
        return "plan"
    if BOTTOM.search(text):
        return "bottom-line"
    if words <= 25:
        return "terse"
    if words >= 200:
        return "long"
    return "message" if ADDRESS.search(text) else "report"


def main() -> int:
    check = "--check" in sys.argv
    wrong = 0
    for labels in sorted(ROOT.glob("*/labels.jsonl")):
        derived = (labels.parent / "families-derived").is_file()

        def fix(obj: dict, _n: int, labels: Path = labels, derived: bool = derived) -> bool:
            if not derived and obj.get("family"):
                return False
            family = family_of((labels.parent / "artifacts" / obj["artifact"]).read_text(encoding="utf-8"))
            if obj.get("family") == family:
                return False
            if "family" in obj and "phenomenon" not in obj:
                obj["phenomenon"] = obj["family"]
            obj["family"] = family
            return True

        wrong += rewrite_lines(labels, fix, write=not check)
    if check and wrong:
        print(f"{wrong} labeled lines lack their family: run python scripts/assign_families.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
