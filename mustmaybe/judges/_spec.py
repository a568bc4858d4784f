"""`--checker SPEC`: which instrument scores the artifacts (contracts: CHECKER_AND_JUDGES.md).

`rules`, `judge:<model spec>`, `panel:<spec>;<spec>;…` and `routed:<judge or panel spec>`. Parsing checks
every model spec against this installation, so a typo fails before anything runs, naming the spec.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mustmaybe.checker import CHECKER_NAME, CheckerSpecError
from mustmaybe.records import ModelSpec

Kind = Literal["rules", "judge", "panel", "routed"]


class InstrumentSpec(BaseModel):
    """A parsed `--checker` value: parsed once, where the value enters (a command's flag, a sweep file),
    and passed down as it is."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    judges: tuple[str, ...] = Field(default=(), description="Each judge's model spec as written (its name and "
                                                            "the key of its cached judgments).")
    models: tuple[ModelSpec, ...] = Field(default=(), description="The same specs, parsed and checked.")
    inner: Literal["judge", "panel"] | None = None  # routed: what decides the items the rules are unsure of

    @property
    def name(self) -> str:
        """The instrument's name as every output records it."""
        if self.kind == "rules":
            return CHECKER_NAME
        inner = f"judge:{self.judges[0]}" if (self.inner or self.kind) == "judge" else "panel:" + ";".join(self.judges)
        return f"routed:{inner}" if self.kind == "routed" else inner

    @property
    def is_rules(self) -> bool:
        return self.kind == "rules"


def _models(kind: str, body: str, spec: str) -> tuple[tuple[str, ...], tuple[ModelSpec, ...]]:
    from mustmaybe.agents import check_model_spec
    from mustmaybe.records import ModelSpecError

    parts = [p.strip() for p in body.split(";")] if kind == "panel" else [body.strip()]
    if any(not p for p in parts):
        raise CheckerSpecError(f"--checker {spec}: {kind}: needs a model spec after the colon"
                               + (" (specs separated by ';', none empty)" if kind == "panel" else ""))
    models = []
    for p in parts:
        try:
            models.append(check_model_spec(p))
        except ModelSpecError as exc:
            raise CheckerSpecError(f"--checker {spec}: {exc}") from None
    if kind == "panel" and len(parts) < 2:
        raise CheckerSpecError(f"--checker {spec}: a panel needs at least two judges (use judge:<spec> for one)")
    return tuple(parts), tuple(models)


def parse_instrument(spec: str) -> InstrumentSpec:
    """Parse a `--checker` value.

    Raises:
        CheckerSpecError: naming the spec and what is wrong with it.
    """
    s = spec.strip()
    if s in ("", "rules") or s.startswith("rules@"):
        return InstrumentSpec(kind="rules")
    kind, _, body = s.partition(":")
    if kind in ("judge", "panel"):
        judges, models = _models(kind, body, s)
        return InstrumentSpec(kind=kind, judges=judges, models=models)  # type: ignore[arg-type]
    if kind == "routed":
        inner, _, rest = body.partition(":")
        if inner not in ("judge", "panel"):
            raise CheckerSpecError(f"--checker {s}: routed: takes a judge or panel spec "
                                   "(routed:judge:<model spec> or routed:panel:<spec>;<spec>;…)")
        judges, models = _models(inner, rest, s)
        return InstrumentSpec(kind="routed", inner=inner, judges=judges, models=models)  # type: ignore[arg-type]
    raise CheckerSpecError(f"--checker {s}: unknown instrument "
                           "(known: rules, judge:<model spec>, panel:<spec>;<spec>;…, routed:<judge or panel spec>)")
