"""`CheckerSpecError`: a `--checker` value that names no usable instrument.

The instruments themselves (`rules`, `judge:`, `panel:`, `routed:`) are parsed and built in
`mustmaybe.judges` (`parse_instrument`, `resolve_instrument`); the error lives here so that every
command can name it without loading model code.
"""

from __future__ import annotations


class CheckerSpecError(ValueError):
    """A `--checker` value that names no available instrument."""
