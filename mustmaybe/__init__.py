"""mustmaybe: does a binding safety blocker survive LLM agent handoffs?

Kept import-light: `mustmaybe.checker` and `mustmaybe.scenarios` never load AutoGen or polars.
"""

__version__ = "0.1.0"
