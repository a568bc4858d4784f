"""Named judge panels for `mustmaybe judge --judges`: `preset:<name>` stands for several model specs.

A preset is only shorthand: it expands to its specs before anything is checked or run, so every output
(judgments.jsonl, the tables, the cache keys) names the judges themselves, never the preset.
"""

from __future__ import annotations

from mustmaybe.errors import UserError

PRESET_PREFIX = "preset:"
# Five deterministic judges with known, different leans: enough to exercise a five-judge panel
# (ties of two against two, a leave-one-out over five) without a model. Their rates are inputs.
JUDGE_PRESETS: dict[str, tuple[str, ...]] = {
    "five-sim": ("sim:judge-lenient", "sim:judge-strict", "sim:judge-noisy", "sim:judge-lax", "sim:judge-picky"),
}


def expand_judges(text: str) -> list[str]:
    """The judge model specs of a `--judges` value: specs and `preset:<name>` items separated by ';'.

    Raises:
        UserError: an unknown preset (the known ones are listed).
    """
    out: list[str] = []
    for item in (s.strip() for s in text.split(";")):
        if not item:
            continue
        if item.startswith(PRESET_PREFIX):
            name = item[len(PRESET_PREFIX):].strip()
            if name not in JUDGE_PRESETS:
                raise UserError(f"--judges {item}: unknown preset '{name}'; known: {', '.join(sorted(JUDGE_PRESETS))}")
            out += JUDGE_PRESETS[name]
        else:
            out.append(item)
    return out
