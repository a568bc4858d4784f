"""Per-role command-line options: `--model M` sets every role, `--model executor=M` one role."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mustmaybe.errors import UserError

ROLE_NAMES = ("reviewer", "transformer", "executor")
T = TypeVar("T")


def per_role(option: str, values: Sequence[str] | None, default: T, convert: Callable[[str], T]) -> dict[str, T]:
    """Apply `VALUE` (all roles) then `ROLE=VALUE` (one role) items in order."""
    out: dict[str, T] = dict.fromkeys(ROLE_NAMES, default)
    for item in values or []:
        role, eq, value = item.partition("=")
        # A URL in a model spec contains '=' only after '@'; a role name never contains ':'.
        if eq and role in ROLE_NAMES:
            targets: tuple[str, ...] = (role,)
        elif eq and ":" not in role and "@" not in role:
            raise UserError(f"{option} {item}: unknown role '{role}' (roles: {', '.join(ROLE_NAMES)})")
        else:
            targets, value = ROLE_NAMES, item
        try:
            converted = convert(value)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{option} {item}: {exc}") from None
        for r in targets:
            out[r] = converted
    return out


def role_params(args: Any) -> dict[str, Any]:
    """RoleParams per role from --temperature / --max-tokens / --timeout / --model-seed."""
    from mustmaybe.agents import RoleParams

    temps = per_role("--temperature", args.temperature, None, float)
    toks = per_role("--max-tokens", args.max_tokens, None, int)
    tos = per_role("--timeout", args.timeout, None, float)
    seeds = per_role("--model-seed", args.model_seed, None, int)
    out = {}
    for r in ROLE_NAMES:
        kw: dict[str, Any] = {}
        if temps[r] is not None:
            kw["temperature"] = temps[r]
        if toks[r] is not None:
            kw["max_tokens"] = toks[r]
        if tos[r] is not None:
            kw["timeout_s"] = tos[r]
        if seeds[r] is not None:
            kw["seed"] = seeds[r]
        try:
            out[r] = RoleParams(**kw)
        except ValueError as exc:
            raise UserError(f"parameters for role {r}: {exc}") from None
    return out
