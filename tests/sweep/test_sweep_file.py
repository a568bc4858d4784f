"""The sweep file: `--dry-run` counts, and errors that name the key (exit status 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mustmaybe.records import TopologySpec
from mustmaybe.sweep import SweepError, plan_sweep, transformer_calls

from .conftest import TASKS, run_cli, run_json, sweep_text, write_sweep

URL = "http://127.0.0.1:9/v1"


def test_dry_run_counts_calls_per_role_from_the_topology(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write_sweep(
        tmp_path / "s.toml",
        conditions=["P0", "P4", "S3", "P3", "E4", "C4"],
        seeds=[1, 2],
        roles={"reviewer": ["sim"], "transformer": ["sim"], "executor": [f"openai:m@{URL}"]},
    )
    code, body = run_json(capsys, "sweep", str(f), "--dry-run", "--json")
    assert code == 0
    assert set(body) == {"episodes", "calls_by_endpoint"}
    per_pair = len(TASKS) * 2
    # transformer calls: direct 0, single 1, chain hops, consensus peers×rounds+1, planner 1
    transformer = {"P0": 0, "P4": 1, "S3": 3, "P3": 3 * 1 + 1, "E4": 3 * 2 + 1, "C4": 1}
    assert body["episodes"] == 6 * per_pair
    assert body["calls_by_endpoint"] == {
        "sim": per_pair * (6 + sum(transformer.values())),  # one reviewer call each, plus the transformers
        URL: per_pair * 6,  # one executor call each
    }


def test_transformer_calls_table() -> None:
    assert transformer_calls(TopologySpec(name="chain", params={"hops": 5})) == 5
    assert transformer_calls(TopologySpec(name="consensus", params={"peers": 4, "rounds": 3})) == 13
    assert transformer_calls(TopologySpec(name="direct")) == 0
    assert transformer_calls(TopologySpec(name="chain")) == 3  # the registry's default, not a guess
    # A topology the registry does not know is an error, never silently one call.
    with pytest.raises(LookupError, match="unknown topology 'ring'"):
        transformer_calls(TopologySpec(name="ring"))


def test_the_plan_holds_its_inputs_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Topology texts, the checker and the model specs are read where the file is read, once each; the
    pairs, the runner and the episodes receive them parsed."""
    import mustmaybe.agents as agents_mod
    import mustmaybe.judges as judges_mod
    import mustmaybe.sweep._file as file_mod
    import mustmaybe.sweep._plan as plan_mod

    calls: dict[str, int] = {"topology": 0, "checker": 0, "model": 0}

    def counting(name: str, fn):  # type: ignore[no-untyped-def]
        def wrapped(*a, **k):  # type: ignore[no-untyped-def]
            calls[name] += 1
            return fn(*a, **k)
        return wrapped

    monkeypatch.setattr(plan_mod, "read_topology", counting("topology", plan_mod.read_topology))
    monkeypatch.setattr(judges_mod, "parse_instrument", counting("checker", judges_mod.parse_instrument))
    monkeypatch.setattr(file_mod, "check_model_spec", counting("model", file_mod.check_model_spec))
    monkeypatch.setattr(agents_mod, "check_model_spec", counting("model", agents_mod.check_model_spec))
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4", "S3", "P1"],
                    topologies=["default", "chain:hops=2", "single"], seeds=[1, 2],
                    roles={"reviewer": ["sim"], "transformer": ["sim", "sim:faithful"], "executor": ["sim"]},
                    extra='checker = "judge:sim:judge-strict"')
    plan = plan_sweep(f)
    assert len(plan.episodes) > 10
    # one read per topology entry, one parse of the checker (the judge's spec with it), one per distinct spec
    assert calls == {"topology": 3, "checker": 1, "model": 2 + 1}
    assert plan.instrument.name == "judge:sim:judge-strict" == plan.checker_name
    assert [str(m) for m in plan.instrument.models] == ["sim:judge-strict"]
    assert calls["checker"] == 1  # checker_name reads the parsed instrument


def test_topologies_cross_conditions_and_skip_incompatible_pairs(tmp_path: Path) -> None:
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4", "P1"], topologies=["default", "chain:hops=2"])
    plan = plan_sweep(f)
    pairs = {(e.condition.id, str(e.topology)) for e in plan.episodes}
    assert pairs == {("P0", "direct"), ("P0", "chain:hops=2"), ("P4", "single"), ("P4", "chain:hops=2"),
                     ("P1", "planner:order=plan_first,partial_work=False")}
    assert any(s.startswith("P1 × chain:hops=2") for s in plan.skipped)
    assert len(plan.episodes) == 5 * len(TASKS)


def test_product_zip_and_per_condition_seeds(tmp_path: Path) -> None:
    roles = {"reviewer": ["sim"], "transformer": ["sim", "sim:lossy"], "executor": ["sim", "sim:faithful"]}
    product = plan_sweep(write_sweep(tmp_path / "p.toml", conditions=["P4"], roles=roles))
    zipped = plan_sweep(write_sweep(tmp_path / "z.toml", conditions=["P4"], roles=roles, combine="zip"))
    assert len(product.episodes) == 4 * len(TASKS)
    assert len(zipped.episodes) == 2 * len(TASKS)
    per = plan_sweep(write_sweep(tmp_path / "c.toml", conditions=["P0", "P4"], seeds=[1],
                                 extra="[seeds_by_condition]\nP4 = [1, 2, 3]\n"))
    assert sum(e.condition.id == "P4" for e in per.episodes) == 3 * len(TASKS)
    assert sum(e.condition.id == "P0" for e in per.episodes) == len(TASKS)
    assert len({e.key for e in per.episodes}) == len(per.episodes)


def test_shipped_sweeps_plan() -> None:
    root = Path(__file__).resolve().parents[2] / "scripts" / "sweeps"
    assert len(plan_sweep(root / "paper-main-1296.toml").episodes) == 1296
    assert len(plan_sweep(root / "paper-main.toml").episodes) == 24 * 14 * 3
    assert {e.condition.id for e in plan_sweep(root / "compression-gradient.toml").episodes} == {
        "G0", "G1", "G2", "G3", "G4"}


BAD: list[tuple[str, str, str]] = [
    ("schema", sweep_text().replace("mustmaybe/sweep@1", "mustmaybe/sweep@9"), "schema: must be"),
    ("unknown key", sweep_text(extra="concurency = 3"), "concurency: unknown key"),
    ("condition", sweep_text(conditions=["P0", "P9"]), "conditions[1]: unknown condition 'P9'"),
    ("model spec", sweep_text(roles={"reviewer": ["sim"], "transformer": ["gpt4"], "executor": ["sim"]}),
     "roles.transformer[0]: unknown model spec 'gpt4'"),
    ("role", sweep_text(roles={"reviewer": ["sim"], "transformer": ["sim"], "executor": ["sim"], "judge": ["sim"]}),
     "roles.judge: unknown role"),
    ("missing role", sweep_text(roles={"reviewer": ["sim"], "executor": ["sim"]}), "roles.transformer: required"),
    ("zip", sweep_text(combine="zip", roles={"reviewer": ["sim", "sim:a"], "transformer": ["sim", "sim:b", "sim:c"],
                                             "executor": ["sim"]}), "roles: combine = \"zip\""),
    ("topology", sweep_text(topologies=["ring"]), "topologies[0]: unknown topology 'ring'"),
    ("topology param", sweep_text(topologies=["chain:depth=2"]), "topologies[0]: topology chain: unknown parameter"),
    ("params", sweep_text(params={"temprature": 0.2}), "params.temprature: unknown key"),
    ("params range", sweep_text(params={"temperature": 9.0}), "params.temperature:"),
    ("seeds", sweep_text(seeds=[1, 1]), "seeds: duplicate seed(s) 1"),
    ("seed type", sweep_text(seeds=["one"]), "seeds[0]:"),  # type: ignore[list-item]
    ("task", sweep_text(tasks=["library:no-such-task"]), "tasks[0]:"),
    ("domain", sweep_text(tasks=["library:nowhere/*"]), "tasks[0]: unknown domain 'nowhere'"),
    ("glob", sweep_text(tasks=["nothing/*.yaml"]), "tasks[0]: 'nothing/*.yaml' matches no task file"),
    ("endpoint key", sweep_text(endpoints=[{"base_url": URL, "concurrrency": 2}]), "endpoints[0].concurrrency"),
    ("endpoint dup", sweep_text(endpoints=[{"base_url": URL}, {"base_url": URL + "/"}]),
     "endpoints[1].base_url: http://127.0.0.1:9/v1 is already configured"),
    ("structured", sweep_text(endpoints=[{"base_url": URL, "structured_output": "xml"}]),
     "endpoints[0].structured_output"),
    ("key name", sweep_text(endpoints=[{"base_url": URL, "api_key_env": "sk-abc 123"}]), "endpoints[0].api_key_env"),
    ("toml", "schema = \"mustmaybe/sweep@1\"\nname = [\n", "not valid TOML"),
]


@pytest.mark.parametrize(("what", "text", "expected"), BAD, ids=[b[0] for b in BAD])
def test_errors_name_the_key_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, text: str,
                                        expected: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    code, out, err = run_cli(capsys, "sweep", str(f), "--dry-run", "--json")
    assert code == 2, (what, out, err)
    assert expected in " ".join(err.split()), err
    assert "Traceback" not in err


def test_missing_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "sweep", str(tmp_path / "none.toml"), "--dry-run")
    assert code == 2 and "cannot read the sweep file" in err


def test_workers_never_outnumber_an_endpoints_concurrency(tmp_path: Path) -> None:
    # A worker's share of an endpoint is at least one slot: 4 workers on a 2-slot endpoint would run 4 at once.
    url = "http://127.0.0.1:9/v1"
    f = write_sweep(tmp_path / "s.toml", conditions=["P0"], roles={"reviewer": ["sim"], "transformer": ["sim"],
                                                                   "executor": [f"openai:m@{url}"]},
                    endpoints=[{"base_url": url, "concurrency": 2}], extra="workers = 4")
    plan = plan_sweep(f)
    assert plan.workers == 2
    assert any("workers = 4" in w and "concurrency" in w for w in plan.warnings)
    sim = plan_sweep(write_sweep(tmp_path / "sim.toml", conditions=["P0"], extra="workers = 4"))
    assert sim.workers == 4  # no endpoint, nothing to share


def test_twins_key_runs_every_resolved_task_twice_under_every_condition_and_topology(tmp_path: Path) -> None:
    text = sweep_text(conditions=["P0", "W", "V-lookup-enforced"], topologies=["default", "chain:hops=2"])
    plain = plan_sweep(write_sweep(tmp_path / "a.toml", conditions=["P0", "W", "V-lookup-enforced"],
                                   topologies=["default", "chain:hops=2"]))
    (tmp_path / "b.toml").write_text(text.replace("\nseeds =", "\ntwins = true\nseeds =", 1), encoding="utf-8")
    twins = plan_sweep(tmp_path / "b.toml")
    resolved = {t for t in plain.scenarios if plain.scenarios[t].resolution is not None}
    assert resolved, "the fixture tasks have resolutions"
    cells = {(e.spec.task, e.condition.id, str(e.topology)) for e in plain.episodes}
    twin_cells = {(e.spec.task, e.condition.id, str(e.topology)) for e in twins.episodes if e.twin}
    assert twin_cells == {c for c in cells if c[0] in resolved}
    assert {str(e.topology) for e in twins.episodes if e.twin and e.condition.id == "W"} == {"direct", "chain:hops=2"}
    assert len(twins.episodes) == len(plain.episodes) + len(twin_cells)
    assert len({e.key for e in twins.episodes}) == len(twins.episodes)  # a twin is its own episode


def test_twins_must_be_a_boolean(tmp_path: Path) -> None:
    from mustmaybe.sweep import SweepError

    (tmp_path / "s.toml").write_text(sweep_text().replace("\nseeds =", '\ntwins = "yes"\nseeds =', 1),
                                     encoding="utf-8")
    with pytest.raises(SweepError, match="twins"):
        plan_sweep(tmp_path / "s.toml")


def test_remedies_sweep_plans_w_under_four_topologies_with_twins() -> None:
    root = Path(__file__).resolve().parents[2] / "scripts" / "sweeps"
    plan = plan_sweep(root / "remedies.toml")
    w = {e.topology.name for e in plan.episodes if e.condition.id == "W"}
    assert w == {"direct", "chain", "consensus", "planner"}
    assert any(e.twin for e in plan.episodes) and plan.file.twins
    assert {e.condition.id for e in plan.episodes} >= {"R-all", "R-minus-status", "V-hard", "V-hard-enforced",
                                                        "V-lookup-enforced", "V-human-enforced"}


def test_every_problem_of_a_sweep_file_is_listed_in_one_pass(tmp_path: Path) -> None:
    # Mistakes of every kind at once: the file's own keys, the planner's (tasks, conditions, topologies).
    f = tmp_path / "s.toml"
    f.write_text("\n".join([
        'schema = "mustmaybe/sweep@1"', 'name = "bad name!"', 'tasks = ["no-such-task"]',
        'conditions = ["P4", "P99"]', 'topologies = ["chain:hops=0"]', "seeds = [1, 1]", 'combine = "cross"',
        "colour = 3", 'checker = "oracle:x"',
        "[roles]", 'reviewer = ["sim"]', 'transformer = ["sim"]', 'executor = ["nope:x"]',
        "[params]", "temperature = 9",
        "[[endpoints]]", 'base_url = "ftp://example.org"',
    ]) + "\n", encoding="utf-8")
    with pytest.raises(SweepError) as info:
        plan_sweep(f)
    keys = {p.split(":")[0] for p in info.value.problems}
    for key in ("name", "combine", "colour", "seeds", "roles.executor[0]", "params.temperature",
                "endpoints[0].base_url", "tasks[0]", "conditions[1]", "topologies[0]", "checker"):
        assert any(k == key or k.startswith(key) for k in keys), (key, info.value.problems)
