"""Per-role command-line options: `--model M` sets every role, `--model executor=M` one role."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from mustmaybe.errors import UserError
from mustmaybe.records import ROLES

T = TypeVar("T")


def per_role(option: str, values: Sequence[str] | None, default: T, convert: Callable[[str], T]) -> dict[str, T]:
    """Apply `VALUE` (all roles) then `ROLE=VALUE` (one role) items in order."""
    out: dict[str, T] = dict.fromkeys(ROLES, default)
    for item in values or []:
        role, eq, value = item.partition("=")
        # A URL in a model spec contains '=' only after '@'; a role name never contains ':'.
        if eq and role in ROLES:
            targets: tuple[str, ...] = (role,)
        elif eq and ":" not in role and "@" not in role:
            raise UserError(f"{option} {item}: unknown role '{role}' (roles: {', '.join(ROLES)})")
        else:
            targets, value = ROLES, item
        try:
            converted = convert(value)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{option} {item}: {exc}") from None
        for r in targets:
            out[r] = converted
    return out


# The flag that sets each RoleParams field, so a range error names what the user typed.
_FLAG_OF = {"temperature": "--temperature", "max_tokens": "--max-tokens", "timeout_s": "--timeout",
            "seed": "--model-seed"}
_BOUND_WORDS = {"less_than_equal": ("le", "at most"), "less_than": ("lt", "less than"),
                "greater_than_equal": ("ge", "at least"), "greater_than": ("gt", "greater than")}


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _range_problem(error: Any, given: Collection[str] = ()) -> str:
    """One pydantic error on a role's parameters as 'FLAG VALUE: must be …' (`given`: keys --model-param set)."""
    field = str(error["loc"][0]) if error.get("loc") else "?"
    words = _BOUND_WORDS.get(error.get("type", ""))
    bound = (error.get("ctx") or {}).get(words[0]) if words is not None else None
    reason = f"must be {words[1]} {_shown(bound)}" if words is not None and bound is not None else \
        str(error.get("msg", "invalid value")).lower().removeprefix("value error, ")
    flag = f"--model-param {field}" if field in given or field not in _FLAG_OF else _FLAG_OF[field]
    return f"{flag} {_shown(error.get('input'))}: {reason}"


def model_param_items(values: Sequence[str] | None) -> list[tuple[tuple[str, ...], str, Any]]:
    """`--model-param [ROLE.]KEY=VALUE` items as (roles, key, value), in order.

    VALUE is read as JSON when it parses (numbers, lists, objects, true/false), else as the text itself,
    so `executor.reasoning_effort=high` and `executor.extra_body={"thinking":{"type":"enabled"}}` both work.

    Raises:
        UserError: naming the item, for a missing '=', an unknown role or an unknown parameter.
    """
    import json

    from mustmaybe.records import RoleParams

    known = tuple(RoleParams.model_fields)
    out: list[tuple[tuple[str, ...], str, Any]] = []
    for item in values or []:
        target, eq, text = item.partition("=")
        if not eq or not target:
            raise UserError(f"--model-param {item}: expected [ROLE.]KEY=VALUE, e.g. executor.reasoning_effort=high")
        role, dot, key = target.rpartition(".")
        if dot and role not in ROLES:
            raise UserError(f"--model-param {item}: unknown role '{role}' (roles: {', '.join(ROLES)})")
        if key not in known:
            raise UserError(f"--model-param {item}: unknown parameter '{key}' (known: {', '.join(known)})")
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        out.append(((role,) if dot else ROLES, key, value))
    return out


def role_params(args: Any) -> dict[str, Any]:
    """RoleParams per role from --temperature / --max-tokens / --timeout / --model-seed, then --model-param.

    Raises:
        UserError: one line naming every flag whose value is out of range.
    """
    from pydantic import ValidationError

    from mustmaybe.records import RoleParams

    temps = per_role("--temperature", args.temperature, None, float)
    toks = per_role("--max-tokens", args.max_tokens, None, int)
    tos = per_role("--timeout", args.timeout, None, float)
    seeds = per_role("--model-seed", args.model_seed, None, int)
    items = model_param_items(getattr(args, "model_param", None))
    given = {key for _, key, _ in items}
    out: dict[str, Any] = {}
    errors: list[tuple[Any, str]] = []
    r: str
    for r in ROLES:
        kw: dict[str, Any] = {}
        if temps[r] is not None:
            kw["temperature"] = temps[r]
        if toks[r] is not None:
            kw["max_tokens"] = toks[r]
        if tos[r] is not None:
            kw["timeout_s"] = tos[r]
        if seeds[r] is not None:
            kw["seed"] = seeds[r]
        kw.update({key: value for roles, key, value in items if r in roles})
        try:
            out[r] = RoleParams(**kw)
        except ValidationError as exc:
            errors += [(e, r) for e in exc.errors()]
    if errors:
        # A value given for every role fails for every role: say it once, without a role.
        by_problem: dict[str, list[str]] = {}
        for e, r in errors:
            by_problem.setdefault(_range_problem(e, given), []).append(r)
        lines = [p if len(rs) == len(ROLES) else f"{p} (role {', '.join(rs)})" for p, rs in by_problem.items()]
        raise UserError("; ".join(lines))
    return out
