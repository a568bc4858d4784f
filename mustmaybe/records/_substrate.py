"""Workflow substrates: the agent framework that runs an episode's team (docs/substrates.md).

AutoGen is the default and the paper's main substrate; LangGraph is the second one that Table 21
compares it with. The substrate is an input of the episode (its key digests it when it is not the
default, so every AutoGen key and record stays as it was) and is recorded on the episode.
"""

from __future__ import annotations

import importlib
from typing import Literal, get_args

Substrate = Literal["autogen", "langgraph"]
SUBSTRATES: tuple[Substrate, ...] = get_args(Substrate)
DEFAULT_SUBSTRATE: Substrate = "autogen"
# The optional extra that installs each non-default substrate's framework, and its module.
_EXTRA: dict[str, tuple[str, str]] = {"langgraph": ("langgraph", "langgraph.graph")}


class SubstrateError(ValueError):
    """An unknown substrate, or one whose framework is not installed (one line, names the fix)."""


def parse_substrate(text: str, *, where: str = "--substrate") -> Substrate:
    """`autogen` or `langgraph` (case-insensitive) as a Substrate.

    Raises:
        SubstrateError: naming `where` and the known substrates.
    """
    name = text.strip().lower()
    for s in SUBSTRATES:
        if name == s:
            return s
    raise SubstrateError(f"{where}: unknown substrate '{text}'; known: {', '.join(SUBSTRATES)}")


def substrate_problem(substrate: str) -> str | None:
    """Why `substrate` cannot run here (None if it can): its optional extra is not installed."""
    if substrate not in _EXTRA:
        return None
    extra, module = _EXTRA[substrate]
    try:
        importlib.import_module(module)
    except ImportError:
        return (f"substrate {substrate} needs the optional extra '{extra}', which is not installed: "
                f"pip install 'mustmaybe[{extra}]'")
    return None
