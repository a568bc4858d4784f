"""Checking a model spec against what this installation can run (the spec itself is a record)."""

from __future__ import annotations

from mustmaybe.records import ModelSpec, ModelSpecError, parse_model_spec


def check_model_spec(spec: str) -> ModelSpec:
    """Parse `spec` and check that it can be used now: a `sim:<profile>` must name a usable profile.

    `parse_model_spec` stays a pure parse (stored runs keep their specs readable even if a profile
    is later removed); commands call this one on their inputs before anything runs.

    Raises:
        ModelSpecError: naming the spec and what is wrong (for sim, the known profiles).
    """
    parsed = parse_model_spec(spec)
    if parsed.backend == "sim":
        from mustmaybe.sim import SimProfileError, load_profile

        try:
            load_profile(parsed.name)
        except SimProfileError as exc:
            raise ModelSpecError(f"model spec '{spec}': {exc}") from None
    return parsed

