"""`mustmaybe run`: one live episode (or several conditions side by side) in the console."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.judges import Instrument
    from mustmaybe.records import EpisodeRecord, EpisodeSpec


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    r = sub.add_parser("run", help="run one scenario live and watch the blocker drift hop by hop")
    r.add_argument("task", help="library task id, or a path to a task file")
    r.add_argument("--condition", "-c", default=None,
                   help="condition id (see `mustmaybe list conditions`; default P4, said on standard error)")
    r.add_argument("--compare", default=None, help="comma-separated condition ids to run side by side")
    r.add_argument("--topology", "-t", default=None,
                   help="NAME[:param=value,...] to run the condition under another topology, e.g. chain:hops=3; "
                        "team:PATH.json runs your own AutoGen team (its dump_component() JSON) as the transformers")
    r.add_argument("--trust-components", action="store_true",
                   help="let a team:PATH.json team load components that run code, call tools or come from "
                        "other modules (refused otherwise)")
    r.add_argument("--model", "-m", action="append", default=None,
                   help="model spec for every role (sim, sim:<profile>, local, openai:<model>[@<url>]); "
                        "ROLE=SPEC for one role; repeatable")
    r.add_argument("--seed", type=int, default=1,
                   help="episode seed (default 1); also every model's sampling seed unless --model-seed")
    r.add_argument("--twin", action="store_true", help="run the benign twin (the blocker is resolved)")
    r.add_argument("--wording", default="base",
                   help="wording variant of the role prompts and the task's text (paraphrase panel; "
                        "`mustmaybe list wordings`; default base)")
    r.add_argument("--substrate", default="autogen", metavar="NAME",
                   help="the framework that runs the team and the executor: autogen (default) or langgraph "
                        "(the optional extra mustmaybe[langgraph]; docs/substrates.md)")
    r.add_argument("--temperature", action="append", help="VALUE or ROLE=VALUE")
    r.add_argument("--max-tokens", action="append", help="VALUE or ROLE=VALUE")
    r.add_argument("--timeout", action="append", help="seconds per model call: VALUE or ROLE=VALUE")
    r.add_argument("--model-seed", action="append", help="sampling seed: VALUE or ROLE=VALUE (default: --seed)")
    r.add_argument("--model-param", action="append", metavar="[ROLE.]KEY=VALUE",
                   help="a request parameter for every role or one (VALUE as JSON, else text): top_p, "
                        "reasoning_effort, stop, extra_body, or any key above; repeatable; sent to "
                        "OpenAI-compatible endpoints")
    r.add_argument("--structured-output", choices=["json_schema", "json_object_schema", "prompt"],
                   default="json_schema", help="how OpenAI-compatible endpoints are asked for the executor's JSON")
    r.add_argument("--api-key-env", default=None,
                   help="NAME of the environment variable holding the endpoint's API key (never the key)")
    r.add_argument("--checker", default="rules", metavar="SPEC",
                   help="the instrument that scores the stored record: rules (default; also drives the live view), "
                        "judge:<model>, panel:<m>;<m>;…, routed:<judge or panel>")
    r.add_argument("--json", action="store_true", help="print the episode record (contract JSON) instead")
    r.add_argument("--runs-dir", default="runs", help="where the run folder is written (default: runs/)")
    r.add_argument("--trace", action="store_true",
                   help="export OpenTelemetry spans: OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else "
                        "RUN/traces.jsonl (docs/traces.md)")
    r.set_defaults(func=cmd_run)


DEFAULT_CONDITION = "P4"


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_.-]+", "-", text).strip("-")[:60]


def cmd_run(args: argparse.Namespace) -> int:
    from mustmaybe.records import EndpointConfig
    from mustmaybe.scenarios import ScenarioError, find_task, get_condition

    from ._preflight import check_run_inputs, check_run_keys, team_topology_text

    try:
        scenario = find_task(args.task)
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    defaulted = args.condition is None and not args.compare
    if defaulted:
        args.condition = DEFAULT_CONDITION
    cond_ids = [c.strip() for c in args.compare.split(",")] if args.compare else [args.condition]
    try:
        conditions = [get_condition(c) for c in cond_ids]
    except LookupError as exc:
        raise UserError(str(exc.args[0])) from None
    from ._roleopts import per_role, role_params

    models = per_role("--model", args.model, "sim:paper", str)
    if team_topology_text(args.topology) and per_role("--model", args.model, None, str)["transformer"] is None:
        models["transformer"] = "team"  # no transformer model given: the team's own clients run it
    # Everything the episodes need is checked here, before the live panel is drawn (exit 2, flag named).
    checked = check_run_inputs(scenario, conditions, topology=args.topology, models=models, twin=args.twin,
                               trust=args.trust_components, wording=args.wording, substrate=args.substrate)
    from mustmaybe.store import folder_problem

    if (where := folder_problem(args.runs_dir)) is not None:
        raise UserError(f"--runs-dir {args.runs_dir}: {where}")
    from mustmaybe.judges import instrument_for

    instrument = instrument_for(args.checker)
    specs = checked.specs
    if any(s.backend == "local" for s in specs.values()):
        from mustmaybe.agents import check_local_backend

        check_local_backend()  # a llama.cpp that crashes this CPU: one line and exit 2, before any panel
    params = role_params(args)
    endpoints = {
        s.endpoint: EndpointConfig(base_url=s.endpoint, api_key_env=args.api_key_env,
                                   structured_output=args.structured_output)
        for s in specs.values() if s.backend == "openai"
    }
    check_run_keys(endpoints)
    if args.trace:
        from mustmaybe.tracing import check_tracing

        check_tracing()  # a missing extra: one line, before any model call
    if defaulted:
        # Never a silent default: the condition decides what the episode measures. Said once every input is
        # checked, so a refused run stays one line naming what is wrong.
        sys.stderr.write(f"no --condition given: running {DEFAULT_CONDITION} (see `mustmaybe list conditions`)\n")
    from mustmaybe.teams import episode_spec

    # Every input is resolved here, once; the episodes run from these specs as they are.
    episodes = [episode_spec(scenario, cond, models=specs, seed=args.seed, topology=checked.topologies[cond.id],
                             params=params, endpoints=endpoints, twin=args.twin, wording=args.wording,
                             substrate=checked.substrate)
                for cond in conditions]
    from mustmaybe import interrupt, tracing

    records: list[Any] = []  # each finished episode, kept even if a Ctrl-C stops the rest
    # With --trace the folder is named now, so the spans can go into it while the episodes run.
    run_dir = _run_dir(args, scenario, [c.id for c in conditions], args.twin) if args.trace else None
    secret = os.environ.get(args.api_key_env, "") if args.api_key_env else ""
    root = {"mustmaybe.task": scenario.id, "mustmaybe.conditions": [c.id for c in conditions],
            "mustmaybe.run_dir": str(run_dir)}
    with tracing.traced(run_dir, "mustmaybe.run", root, secrets=[secret]):
        try:
            interrupt.run(_run_all(episodes, live=not args.json, records=records,
                                   instrument=None if instrument.is_rules else instrument))
        except interrupt.Interrupted as stop:
            return _stopped(args, scenario, records, stop.exit_code, run_dir)
        except ValueError as exc:  # missing pressure material, backend configuration
            raise UserError(str(exc)) from None
        run_dir = _write_run(args, scenario, records, run_dir)
        where = tracing.destination()
    if where is not None:
        sys.stderr.write(f"traces: {where}\n")
    if args.json:
        out: Any = records[0].to_json_dict() if len(records) == 1 else [r.to_json_dict() for r in records]
        print(json.dumps(out, indent=2))
        return _failed_exit(records, run_dir)
    from ._pipe import EXIT_BROKEN_PIPE, PipeSafeConsole

    console = PipeSafeConsole(highlight=False)
    if len(records) > 1:
        from ._live import compare_table

        console.print(compare_table(records))
    console.print(f"[dim]run folder: {run_dir}[/dim]")
    code = _failed_exit(records, run_dir)
    # The reader closed the pipe (`| head`): the episode is stored all the same; exit quietly.
    return EXIT_BROKEN_PIPE if PipeSafeConsole.pipe_closed and code == 0 else code


def _failed_exit(records: list[Any], run_dir: Path) -> int:
    """Exit status 1 with one line on standard error when an episode failed (nothing was scored), else 0."""
    failed = [r for r in records if r.failed]
    if not failed:
        return 0
    r = failed[0]
    err = next((e for e in r.errors if e.role is not None), r.errors[0] if r.errors else None)
    reason = " ".join(err.message.split()) if err is not None else "a model call failed"
    more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
    sys.stderr.write(f"error: episode {r.condition} failed{more}: {reason}; nothing was scored "
                     f"(run folder: {run_dir})\n")
    return 1


def _stopped(args: argparse.Namespace, scenario: Any, records: list[Any], code: int,
             run_dir: Path | None = None) -> int:
    """Ctrl-C (or SIGTERM): keep the episodes that finished, say where, exit 130 (143)."""
    if records:
        msg = f"stopped: {len(records)} finished episode(s) kept in {_write_run(args, scenario, records, run_dir)}"
    elif run_dir is not None:
        msg = f"stopped before any episode finished; nothing was stored (the traces go to {run_dir})"
    else:
        msg = "stopped before any episode finished; nothing was written"
    sys.stderr.write(msg + "\n")
    return code


async def _run_all(episodes: list[EpisodeSpec], *, live: bool, records: list[EpisodeRecord],
                   instrument: Instrument | None = None) -> None:
    from mustmaybe.teams import build_team, episode_span, note_outcome, run_episode

    try:
        for spec in episodes:
            with episode_span(spec) as span:  # a no-op unless --trace
                rec = await (_run_live(spec) if live else run_episode(build_team(spec), spec))
                if instrument is not None:  # the stored scores are the instrument's; the live view showed the rules'
                    rec = await instrument.score_record(rec, spec.scenario)
                note_outcome(span, rec)
            records.append(rec)
    finally:
        if instrument is not None:
            await instrument.close()


async def _run_live(spec: EpisodeSpec) -> EpisodeRecord:
    from rich.live import Live

    from mustmaybe.checker import score_artifact
    from mustmaybe.records import ArtifactScore, Hop, carried_stages
    from mustmaybe.teams import build_team, run_episode

    from . import _live
    from ._pipe import PipeSafeConsole

    console = PipeSafeConsole(highlight=False)  # a closed pipe silences the view, never the episode
    scenario = spec.scenario
    head = _live.header(scenario.id, spec.condition.id, str(spec.topology), spec.model_names, spec.simulated,
                        spec.seed, twin=spec.twin, substrate=spec.substrate)
    hops: list[Hop] = []
    scored: dict[str, ArtifactScore] = {}

    def score(text: str) -> ArtifactScore:
        # A consensus round's thread is rescored as each peer line arrives; each text only once.
        if text not in scored:
            scored[text] = score_artifact(scenario, text)
        return scored[text]

    waiting = _live.InFlight("reviewer is reading the full record…")
    with Live(_live.live_view(head, hops, waiting, twin=spec.twin), console=console,
              refresh_per_second=8, transient=False) as live:

        def on_hop(hop: Hop) -> None:
            hops.append(hop)
            try:
                stages = carried_stages(hops, score, spec.topology.name)
            except Exception:  # the episode records a checker failure; the view keeps the one-hop stages
                stages = None
            live.update(_live.live_view(head, hops, _live.InFlight(f"hop {hop.index} from {hop.sender} arrived; "
                                                                   "next agent…"), stages, twin=spec.twin))

        rec = await run_episode(build_team(spec, on_hop=on_hop), spec)
        status = "handoff delivered; executor acted" if not rec.failed else \
            "FAILED: a model call failed, so nothing was scored (see errors)"
        live.update(_live.live_view(head, rec.hops, status, rec.stages, twin=spec.twin))
    console.print()
    console.print(_live.outcome(rec))
    return rec


def _run_dir(args: argparse.Namespace, scenario: Any, conditions: list[str], twin: bool) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    # A twin's folder says so: its rates answer another question (over-blocking), never to be pooled by eye.
    label = "-".join(conditions) + ("-twin" if twin else "")
    substrate = str(args.substrate).strip().lower()
    label += f"-{substrate}" if substrate != "autogen" else ""  # a LangGraph run's folder says so
    return Path(args.runs_dir) / _slug(f"run-{scenario.id}-{label}-s{args.seed}-{stamp}")


def _write_run(args: argparse.Namespace, scenario: Any, records: list[Any], run_dir: Path | None = None) -> Path:
    from mustmaybe import tracing
    from mustmaybe.store import write_single_run
    from mustmaybe.teams import store_span

    if run_dir is None:
        run_dir = _run_dir(args, scenario, [r.condition for r in records], any(r.twin for r in records))
    with store_span(episodes=len(records)):
        write_single_run(run_dir, records, scenario, command=["mustmaybe", "run", args.task, *_argv_tail(args)],
                         api_key_env=args.api_key_env, trace=tracing.destination())
    return run_dir


def _argv_tail(args: argparse.Namespace) -> list[str]:
    out = []
    for k in ("condition", "compare", "topology", "seed"):
        v = getattr(args, k)
        if v is not None:
            out += [f"--{k}", str(v)]
    if getattr(args, "trust_components", False):
        out.append("--trust-components")
    if args.substrate != "autogen":  # the manifest's command of an AutoGen run stays as it was
        out += ["--substrate", args.substrate]
    for m in args.model or []:
        out += ["--model", m]
    if args.trace:
        out.append("--trace")
    return out
