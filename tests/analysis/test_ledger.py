"""Table 12, the evidence-state ledger: each claim's state on hand-made panels where the figures it rests on
are known by construction (counts given in the comments), including a case for every state that is not the
paper's."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from mustmaybe.analysis import build_frames, label_flip, leave_one_out, risk_differences
from mustmaybe.analysis._ledger import evidence_ledger
from mustmaybe.records import RepairRecord, ReplayBase

from .conftest import make_episode


def _ledger(eps: list, domains: dict[str, str] | None = None) -> dict[str, dict[str, object]]:  # type: ignore[type-arg]
    ep = build_frames(eps, domains=domains or {}).episodes
    rd = risk_differences(ep, resamples=200, rng=np.random.default_rng(0))
    led = evidence_ledger(ep, rd, leave_one_out(ep, rd), label_flip(rd), resamples=200, rng=np.random.default_rng(1))
    assert led.columns[:3] == ["claim", "state", "statement"]
    return {r["claim"]: r for r in led.iter_rows(named=True)}


def _main(tasks: int, *, forbidden: bool, models: tuple[str, ...] = ("sim:m1", "sim:m2")) -> list:  # type: ignore[type-arg]
    return [e for i in range(tasks) for m in models for e in (
        make_episode(task=f"t{i}", model=m, condition="P0", state="preserved"),
        make_episode(task=f"t{i}", model=m, condition="P4", state="deactivated", forbidden=forbidden))]


def test_clear_gaps_are_identified_and_a_null_endpoint_is_not() -> None:
    # P4 deactivates every episode, P0 none: dD = 100 in every task, model and domain; nobody acts unsafely.
    led = _ledger(_main(6, forbidden=False), {f"t{i}": f"d{i % 2}" for i in range(6)})
    d = led["deactivation"]
    assert d["state"] == "identified positive" and d["n"] == 12
    assert "pooled dD 100.0 [100.0, 100.0]" in str(d["evidence"])
    assert "pooled dP -100.0 [-100.0, -100.0]" in str(d["evidence"])
    assert "leave-one-model-out dD 100.0 to 100.0 (2 slices)" in str(d["evidence"])
    assert "label flips dD: identified through 20%" in str(d["evidence"])
    y = led["endpoint"]
    assert y["state"] == "inconclusive" and "pooled dY 0.0 [0.0, 0.0]" in str(y["evidence"])
    assert led["outside estimand"]["state"] == "outside estimand"
    for claim in ("threshold", "restoration", "separation", "relative necessity"):
        assert led[claim]["state"] == "not run", claim


def test_a_domain_that_reverses_the_sign_makes_it_inconclusive() -> None:
    # 20 tasks of d1 deactivate under P4 and never under P0; 1 task of d2 the other way round. The pooled gap,
    # (20 - 1) / 21, keeps an interval above zero, but leaving d1 out leaves a gap of -100.
    eps = _main(20, forbidden=True, models=("sim:m1",))
    eps += [make_episode(task="t20", model="sim:m1", condition="P0", state="deactivated"),
            make_episode(task="t20", model="sim:m1", condition="P4", state="preserved")]
    led = _ledger(eps, {**{f"t{i}": "d1" for i in range(20)}, "t20": "d2"})
    d = led["deactivation"]
    assert "pooled dD 90.5 [" in str(d["evidence"]) and "leave-one-domain-out dD -100.0 to 100.0" in str(d["evidence"])
    assert "sign not kept" in str(d["evidence"])
    assert d["state"] == "inconclusive"
    assert "leave-one-model-out: cannot be formed" in str(d["evidence"])


def _gradient(d: dict[str, list[int]], y: dict[str, list[int]]) -> list:  # type: ignore[type-arg]
    return [make_episode(task=f"t{i}", condition=g, state="deactivated" if d[g][i] else "preserved",
                         forbidden=bool(y[g][i])) for g in d for i in range(len(d[g]))]


def test_threshold_contrast_and_endpoint_monotonicity() -> None:
    # 8 tasks. D: G0 0/8, G1 2/8, G2-G4 8/8; unsafe: G2 4/8, G3 7/8, G4 6/8 (up, then down: not monotone).
    n = 8
    d = {"G0": [0] * n, "G1": [1, 1] + [0] * 6, "G2": [1] * n, "G3": [1] * n, "G4": [1] * n}
    y = {"G0": [0] * n, "G1": [0] * n, "G2": [1] * 4 + [0] * 4, "G3": [1] * 7 + [0], "G4": [1] * 6 + [0] * 2}
    t = _ledger(_gradient(d, y))["threshold"]
    assert t["state"] == "identified threshold contrast"
    assert "D %: G0 0.0, G1 25.0, G2 100.0, G3 100.0, G4 100.0" in str(t["statement"])
    assert "are not monotone" in str(t["statement"]) and "unsafe %: G2 50.0, G3 87.5, G4 75.0" in str(t["statement"])
    assert "G2 vs G1 dD 75.0 [" in str(t["evidence"]) and "G4 vs G0 dD 100.0 [100.0, 100.0]" in str(t["evidence"])
    # G2 no better than G1 at deactivating: the threshold is not identified; monotone endpoint said as such.
    d2 = {**d, "G2": [1, 1] + [0] * 6}
    y2 = {**y, "G4": [1] * 8}
    t2 = _ledger(_gradient(d2, y2))["threshold"]
    assert t2["state"] == "inconclusive" and "G2 vs G1 dD 0.0 [0.0, 0.0]" in str(t2["evidence"])
    assert "endpoint rates are monotone" in str(t2["statement"])


def _replay(task: str, seed: int, route: int, arm: str, *, state: str = "deactivated", lost: tuple[str, ...] = (),
            forbidden: bool = False):  # type: ignore[no-untyped-def]
    restore = arm.removeprefix("R-") if arm.startswith("R-") else None
    params: dict[str, object] = {"route": route, **({"restore": restore} if restore else {"verify": arm[2:]})}
    e = make_episode(task=task, seed=seed, condition=arm, topology="replay", topology_params=params, state=state,
                     lost=lost, forbidden=forbidden)
    key = hashlib.sha256(f"{task}|{seed}".encode()).hexdigest()
    return e.model_copy(update={
        "replay_base": ReplayBase(key=key, digest="0" * 64, condition="S3", route=route),
        "repair": RepairRecord(restored=[], inserted=[], active_blocker=arm == "R-all") if restore else None})


def test_fixed_artifact_claims_pair_replays_on_base_and_route() -> None:
    eps = []
    for i in range(4):
        for seed in (1, 2):
            for route in (1, 2):
                base = (f"t{i}", seed, route)
                # R-none: degraded, incomplete (status lost); R-all restores both on every replay but one.
                eps.append(_replay(*base, "R-none", lost=("status",), forbidden=True))
                full = not (i == 0 and seed == 1 and route == 1)
                eps.append(_replay(*base, "R-all", state="preserved" if full else "deactivated",
                                   lost=() if full else ("status",)))
                # Verification: the same degraded artifact; V-soft contains every forbidden action, V-hard half.
                eps.append(_replay(*base, "V-plain", forbidden=True))
                eps.append(_replay(*base, "V-soft", forbidden=False))
                eps.append(_replay(*base, "V-hard", forbidden=route == 1))
                # Leave-one-out arms: prerequisite and authority never unsafe, fallback on route 1 of t0 only.
                eps.append(_replay(*base, "R-minus-prerequisite", lost=("prerequisite",)))
                eps.append(_replay(*base, "R-minus-authority", lost=("authority",)))
                eps.append(_replay(*base, "R-minus-fallback", lost=("fallback",), forbidden=i == 0 and route == 1))
    led = _ledger(eps)
    r = led["restoration"]
    # 16 pairs: dC = dP = 15/16 = 93.75
    assert r["state"] == "identified intervention" and r["n"] == 16
    assert str(r["evidence"]).startswith("dC 93.8 [") and "dP 93.8 [" in str(r["evidence"])
    s = led["separation"]
    # V-soft: dY = -100 with dP = 0; V-hard: dY = -50 (route 2 contained), also P unchanged
    assert s["state"] == "identified separation"
    assert "V-soft dY -100.0 [-100.0, -100.0], dP 0.0 [0.0, 0.0]" in str(s["evidence"])
    assert "V-hard dY -50.0 [-50.0, -50.0]" in str(s["evidence"])
    assert "holds for V-soft, V-hard" in str(s["evidence"])
    nec = led["relative necessity"]
    # fallback − prerequisite: unsafe on 2 of 16 replays (t0, route 1, both seeds), all in one task, so the task
    # bootstrap draws it or not: the interval reaches 0 and the relative necessity stays inconclusive.
    assert nec["state"] == "inconclusive"
    assert "R-minus-prerequisite − R-minus-fallback dY -12.5 [" in str(nec["evidence"])
    assert led["deactivation"]["state"] == "not run"


def test_a_clear_omission_ordering_is_reported_as_identified() -> None:
    eps = [_replay(f"t{i}", 1, 1, arm, forbidden=arm == "R-minus-fallback")
           for i in range(10) for arm in ("R-minus-prerequisite", "R-minus-fallback")]
    nec = _ledger(eps)["relative necessity"]
    assert nec["state"] == "identified difference"
    assert "R-minus-prerequisite below R-minus-fallback" in str(nec["statement"])


@pytest.mark.parametrize("claim", ["deactivation", "endpoint"])
def test_no_main_matrix_means_not_run(claim: str) -> None:
    led = _ledger([make_episode(condition="G0", state="preserved")])
    assert led[claim]["state"] == "not run" and led[claim]["n"] is None
    assert isinstance(led[claim]["statement"], str)
