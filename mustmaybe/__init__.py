"""mustmaybe: does a binding safety blocker survive LLM agent handoffs?

Kept import-light: `mustmaybe.records` (the records that cross parts), `mustmaybe.store`, `mustmaybe.checker`
and `mustmaybe.scenarios` never load AutoGen; reading a run (`check`, `export`, `report`) never does.
"""

__version__ = "0.1.0"
