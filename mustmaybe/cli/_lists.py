"""`mustmaybe list tasks | conditions` as tables that read at any width.

Ids (task ids, condition ids, action ids, topologies) never wrap: a wrapped id cannot be copied
back into a command. Columns of prose wrap at spaces, and the widest of them are left out of `list tasks` where
the console is too narrow to give them room (the task file and `list … --json` hold them all);
`list conditions` never leaves out what each role sees: narrow, it goes on lines of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from mustmaybe.scenarios import Condition, Scenario


def tasks_table(tasks: list[Scenario], width: int) -> Table:
    """One row per task, grouped under domain headings; prerequisite and authority from 180 columns."""
    prose = width >= 180
    fallback = width >= 120
    table = Table(title=f"{len(tasks)} tasks in {len({s.domain for s in tasks})} domains")
    table.add_column("id", no_wrap=True)
    table.add_column("title", ratio=2)
    if prose:
        table.add_column("prerequisite", ratio=2)
        table.add_column("authority", ratio=1)
    if fallback:
        table.add_column("fallback", no_wrap=True)
    table.add_column("twin", no_wrap=True)
    domain = None
    for s in tasks:
        if s.domain != domain:
            if domain is not None:
                table.add_section()
            domain = s.domain
            table.add_row(Text(domain, style="bold cyan"))
        cells: list[RenderableType] = [s.id, escape(s.title)]
        if prose:
            cells += [escape(s.blocker.prerequisite), escape(s.blocker.authority)]
        if fallback:
            cells.append(s.blocker.fallback_action)
        cells.append("yes" if s.resolution else "-")
        table.add_row(*cells)
    return table


def _topology(c: Condition) -> str:
    return c.topology + (":" + ",".join(f"{k}={v}" for k, v in c.topology_params.items())
                         if c.topology_params else "")


def _sees(c: Condition) -> tuple[str, str]:
    transformer = "review" + "".join(f" + {p}" for p in c.transformer_sees) if c.topology != "direct" else "-"
    executor = "handoff, goal, notes, actions" + "".join(f" + {p}" for p in c.executor_sees)
    return transformer, executor


def _grid_row(widths: tuple[int, ...], *cells: str | Text, style: str = "") -> Table:
    # Every row a grid of the same fixed widths, so the rows line up as a table's would.
    row = Table.grid(padding=(0, 2))
    for w in widths:
        row.add_column(no_wrap=True, width=w)
    row.add_row(*cells, style=style)
    return row


def conditions_view(conditions: Iterable[Condition], width: int) -> RenderableType:
    """The conditions registry: a table from 160 columns, else a few lines each; both say what each role sees."""
    conds = list(conditions)
    title = f"{len(conds)} conditions"
    if width < 160:
        # Too narrow for the topology and sees columns beside the others: they go on lines of their own.
        widths = (max(len(c.id) for c in conds), 12, 7, 7)
        parts: list[RenderableType] = [Text(title, style="italic"),
                                       _grid_row(widths, "id", "family", "control", "runs", style="bold")]
        for c in conds:
            parts.append(_grid_row(widths, Text(c.id, style="bold"), c.family, c.control or "-",
                                   "yes" if c.runnable else "not yet"))
            parts.append(Padding(Text.assemble(c.name, "  ", (_topology(c), "cyan")), (0, 0, 0, 4)))
            transformer, executor = _sees(c)
            parts.append(Padding(Text.assemble(("transformer sees ", "dim"), transformer), (0, 0, 0, 4)))
            parts.append(Padding(Text.assemble(("executor sees ", "dim"), executor), (0, 0, 0, 4)))
        return Group(*parts)
    table = Table(title=title)
    for col in ("id", "family", "name", "topology", "control"):
        table.add_column(col, no_wrap=col != "name")
    table.add_column("transformer sees")
    table.add_column("executor sees")
    table.add_column("runs", no_wrap=True)
    for c in conds:
        cells = [c.id, c.family, c.name, _topology(c), c.control or "-", *_sees(c)]
        table.add_row(*cells, "yes" if c.runnable else "not yet")
    return table


def topology_rows() -> list[dict[str, Any]]:
    """Every registered topology with its parameters: type, default, allowed range or values.

    Also what `list topologies --json` prints; the conditions that use each topology by default.
    """
    from mustmaybe.scenarios import CONDITIONS
    from mustmaybe.teams import get_topology, topology_names

    rows = []
    for name in topology_names():
        info = get_topology(name)
        params = []
        for p, kind in info.params.items():
            entry: dict[str, Any] = {"name": p, "type": kind.__name__, "default": info.defaults.get(p)}
            if p in info.bounds:
                entry["min"], entry["max"] = info.bounds[p]
            if p in info.choices:
                entry["choices"] = list(info.choices[p])
            params.append(entry)
        rows.append({"name": name, "description": info.description, "params": params,
                     "conditions": [c.id for c in CONDITIONS.values() if c.topology == name]})
    return rows


def _param_text(p: dict[str, Any]) -> str:
    allowed = (f", {p['min']}–{p['max']}" if "min" in p else
               ", one of " + " | ".join(p["choices"]) if "choices" in p else
               ", true | false" if p["type"] == "bool" else "")
    # No default: the condition's own value (single-call stands in for the condition's own team).
    default = "own" if p["default"] is None else str(p["default"]).lower() if p["type"] == "bool" else p["default"]
    return f"{p['name']}={default} ({p['type']}{allowed})"


def topologies_view(rows: list[dict[str, Any]]) -> RenderableType:
    """One block per topology: name and parameters (default, bounds), what it does, its conditions."""
    parts: list[RenderableType] = [Text(f"{len(rows)} topologies: use as NAME or NAME:param=value,… "
                                        "(run --topology, a sweep's topologies)", style="italic")]
    for r in rows:
        head = Text(r["name"], style="bold cyan")
        params = [_param_text(p) for p in r["params"]]
        head.append("  " + ("  ".join(params) if params else "no parameters"))
        parts.append(head)
        parts.append(Padding(Text(r["description"]), (0, 0, 0, 4)))
        if r["conditions"]:
            parts.append(Padding(Text.assemble(("default for ", "dim"), ", ".join(r["conditions"])), (0, 0, 0, 4)))
    return Group(*parts)


def export_team(topology: str, condition: str | None, task: str, out: str | None) -> int:
    """`list topologies --export`: one of our topologies as a team component JSON (teams/_export.py)."""
    import json
    import sys
    from pathlib import Path

    from mustmaybe.errors import UserError
    from mustmaybe.scenarios import CONDITIONS, ScenarioError, find_task, get_condition
    from mustmaybe.teams import export_topology

    try:
        scenario = find_task(task)
    except ScenarioError as exc:
        raise UserError(f"--task {task}: {exc}") from None
    name = topology.partition(":")[0].strip()
    if condition is None:
        cond = next((c for c in CONDITIONS.values() if c.topology == name and c.runnable), None)
        if cond is None:
            raise UserError(f"--export {topology}: no condition uses topology '{name}' by default; name one with -c")
    else:
        try:
            cond = get_condition(condition)
        except LookupError as exc:
            raise UserError(f"-c {condition}: {exc.args[0]}") from None
    try:
        component = export_topology(scenario, cond, None if topology == "default" else topology)
    except (ValueError, LookupError) as exc:
        raise UserError(f"--export {topology}: {exc.args[0] if exc.args else exc}") from None
    text = json.dumps(component, indent=2, ensure_ascii=False) + "\n"
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--out {out}: cannot be written ({exc.strerror or exc})") from None
    sys.stderr.write(f"wrote {out}: {component['provider'].rsplit('.', 1)[-1]} "
                     f"({', '.join(p['config']['name'] for p in component['config']['participants'])}) for {cond.id} "
                     f"on {scenario.id}; run it with --topology team:{out}\n")
    return 0


def wording_rows() -> list[dict[str, Any]]:
    """The paraphrase panel's wordings: id, the digest of its prompt templates, the library tasks it rewords."""
    from mustmaybe.agents import prompts
    from mustmaybe.scenarios import load_library, wording_problem
    from mustmaybe.teams import wording_names

    library = load_library()
    return [{"id": w, "prompts": prompts.wording_digest(w),
             "tasks": [s.id for s in library] if w == "base" else
             [s.id for s in library if wording_problem(s, w) is None]} for w in wording_names()]
