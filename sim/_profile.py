"""Sim profiles: the behavioural rates of the sim backend, read from sim/profiles/<name>.toml.

A profile's rates are inputs. The `paper` profile is calibrated so that sim runs reproduce the
pattern of the paper's Table 2 and Table 13; numbers made with it are never findings.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._judge import JudgeRates

FIELD_NAMES = ("status", "prerequisite", "authority", "fallback")


class SimProfileError(ValueError):
    """A sim profile that cannot be used; the message names the profile and what is wrong."""


class UnknownSimProfileError(SimProfileError, LookupError):
    """No profile of that name; the message lists the known ones."""


_P = Field(default=None, ge=0.0, le=1.0)


class FieldRates(BaseModel):
    """A probability per blocker field."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: float | None = _P
    prerequisite: float | None = _P
    authority: float | None = _P
    fallback: float | None = _P


class Rates(BaseModel):
    """Per-hop behaviour of the transformers (and the executor's unsafe rate) for a condition or transform.

    Every key is optional: a condition's value wins over its transform's, which wins over `defaults`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    weaken: float | None = Field(default=None, ge=0.0, le=1.0,
                                 description="P(a hop applies the condition's weakening mechanic).")
    drop: FieldRates | None = Field(default=None, description="P(drop a field) on a hop that does not weaken.")
    weak_drop: FieldRates | None = Field(default=None, description="P(drop a field) on a hop that weakens.")
    unsafe: float | None = Field(default=None, ge=0.0, le=1.0,
                                 description="Executor: P(requested action | the handoff has no effective stop).")
    peer_support: float | None = Field(default=None, ge=0.0, le=1.0,
                                       description="P(a consensus peer restates the reviewer's stop).")
    mechanics: dict[str, float] | None = Field(default=None, description="Relative weights of weakening mechanics.")


class ExecutorRates(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    fallback_given_stop: float = Field(ge=0.0, le=1.0, description="P(fallback | effective stop); else admissible.")
    weak_fallback_share: float = Field(ge=0.0, le=1.0,
                                       description="When a weakened handoff does not lead to the requested action: "
                                       "P(fallback) rather than another admissible action.")
    recognize_weak: float = Field(ge=0.0, le=1.0, description="P(blocker_recognized) when no stop cue is visible.")
    twin_proceed: float = Field(ge=0.0, le=1.0, description="P(requested action | the handoff says it is resolved).")
    malformed_json: float = Field(default=0.0, ge=0.0, le=1.0, description="P(an answer that is not valid JSON).")
    gate_respect: float = Field(default=0.9, ge=0.0, le=1.0,
                                description="W: P(the executor reads an open gate in the workflow-state projection "
                                            "as a stop), drawn only when the projection is there.")


class SimProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    defaults: Rates
    executor: ExecutorRates
    transform: dict[str, Rates] = Field(default_factory=dict)
    condition: dict[str, Rates] = Field(default_factory=dict)
    judge: JudgeRates = Field(default_factory=JudgeRates, description="How the profile judges (role judge).")

    def rates(self, condition: str, transform: str) -> ResolvedRates:
        layers = [self.defaults, self.transform.get(transform), self.condition.get(condition)]
        present = [r for r in layers if r is not None]

        def pick(key: str) -> float:
            val: float | None = None
            for r in present:
                v = getattr(r, key)
                if v is not None:
                    val = v
            if val is None:
                raise SimProfileError(f"sim profile '{self.name}': defaults.{key} is required")
            return val

        def fields(key: str) -> dict[str, float]:
            out: dict[str, float] = {}
            for name in FIELD_NAMES:
                val: float | None = None
                for r in present:
                    fr = getattr(r, key)
                    if fr is not None and getattr(fr, name) is not None:
                        val = getattr(fr, name)
                if val is None:
                    raise SimProfileError(f"sim profile '{self.name}': defaults.{key}.{name} is required")
                out[name] = val
            return out

        mech: dict[str, float] = {}
        for r in present:
            if r.mechanics:
                mech.update(r.mechanics)
        return ResolvedRates(weaken=pick("weaken"), drop=fields("drop"), weak_drop=fields("weak_drop"),
                             unsafe=pick("unsafe"), peer_support=pick("peer_support"), mechanics=mech)


@dataclass(frozen=True)
class ResolvedRates:
    weaken: float
    drop: dict[str, float]
    weak_drop: dict[str, float]
    unsafe: float
    peer_support: float
    mechanics: dict[str, float]


def known_profiles() -> list[str]:
    root = resources.files("mustmaybe.sim").joinpath("profiles")
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".toml"))


@cache
def load_profile(name: str) -> SimProfile:
    """The named profile; UnknownSimProfileError lists the known ones, SimProfileError names a bad key."""
    known = known_profiles()
    if name not in known:
        raise UnknownSimProfileError(f"unknown sim profile '{name}'; known: {', '.join(known) or '(none)'}")
    path = f"sim/profiles/{name}.toml"
    text = resources.files("mustmaybe.sim").joinpath("profiles", f"{name}.toml").read_text("utf-8")
    return parse_profile(name, text, path)


def parse_profile(name: str, text: str, path: str = "<memory>") -> SimProfile:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SimProfileError(f"sim profile '{name}' ({path}): not valid TOML: {exc}") from None
    try:
        profile = SimProfile.model_validate({"name": name, **raw})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SimProfileError(f"sim profile '{name}' ({path}): {problems}") from None
    profile.rates("", "")  # every default must be present
    return profile
