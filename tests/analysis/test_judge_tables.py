"""Judge-panel tables on a hand-made panel (3 judges, 6 episodes); every value computed by hand below."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from mustmaybe.analysis import gap_group, judge_tables, write_judge_tables
from mustmaybe.records import Judgment, PanelEpisode

JUDGES = ("A", "B", "C")
ST = {"P": "preserved", "D": "deactivated", "U": "undetermined"}
#            condition  status by A B C   checker status   states by A B C   checker state
PANEL = {
    "e1": ("P0", "TTT", "T", "PPP", "P"),
    "e2": ("P0", "TTF", "T", "DPP", "P"),
    "e3": ("P0", "FFF", "F", "PPU", "D"),
    "e4": ("P4", "TFF", "T", "DDP", "D"),
    "e5": ("P4", "FFF", "F", "DPP", "D"),
    "e6": ("P4", "TTT", "F", "DDD", "D"),
}
# prerequisite, authority and fallback are true for every judge and the checker.


def _fields(status: str) -> dict[str, bool]:
    return {"status": status == "T", "prerequisite": True, "authority": True, "fallback": True}


def _panel(fail: tuple[str, str] | None = None) -> tuple[list[Judgment], list[PanelEpisode]]:
    judgments, episodes = [], []
    for ep, (cond, status, chk_status, states, chk_state) in PANEL.items():
        episodes.append(PanelEpisode(episode=ep, condition=cond, fields=_fields(chk_status), state=ST[chk_state]))
        for i, judge in enumerate(JUDGES):
            if fail == (ep, judge):
                judgments.append(Judgment(episode=ep, judge=judge, view="v", parse_ok=False))
            else:
                judgments.append(Judgment(episode=ep, judge=judge, view="v", fields=_fields(status[i]),
                                          state=ST[states[i]]))  # type: ignore[arg-type]
    return judgments, episodes


def _row(df: pl.DataFrame, **where: str) -> dict[str, object]:
    for r in df.iter_rows(named=True):
        if all(r[k] == v for k, v in where.items()):
            return r
    raise AssertionError(f"no row {where}")


def test_agreement_by_hand() -> None:
    judgments, episodes = _panel()
    t = judge_tables(judgments, {e.episode: e for e in episodes})["judge_agreement"]
    # status rows (A B C): TTT TTF FFF TFF FFF TTT
    #  agreeing pairs per item 3,1,3,1,3,3 = 14 of 18 → 7/9
    #  Fleiss: P_i = 1, 1/3, 1, 1/3, 1, 1 → P̄ = 14/18 = 7/9; p_T = 9/18 → P_e = 1/2; κ = (7/9 − 1/2)/(1/2) = 5/9
    #  alpha: off-diagonal coincidences (9 − 5)/2 = 2 for e2 and e4 → 4; n_T = n_F = 9, n = 18
    #         α = 1 − 17·4/(324 − 81 − 81) = 1 − 68/162 = 94/162
    s = _row(t, component="status")
    assert (s["n"], s["judges"]) == (6, 3)
    assert s["pair_agreement"] == pytest.approx(7 / 9, abs=1e-4)
    assert s["fleiss_kappa"] == pytest.approx(5 / 9, abs=1e-4)
    assert s["krippendorff_alpha"] == pytest.approx(94 / 162, abs=1e-4)
    # deactivated rows: FFF TFF FFF TTF TFF TTT (U counts as not deactivated)
    #  pairs 3,1,3,1,1,3 = 12/18 = 2/3; P̄ = (1 + 1/3 + 1 + 1/3 + 1/3 + 1)/6 = 2/3
    #  p_T = 7/18, p_F = 11/18 → P_e = (49 + 121)/324 = 170/324; κ = (216 − 170)/(324 − 170) = 46/154
    #  alpha: off = 2 + 2 + 2 = 6; α = 1 − 17·6/(324 − 49 − 121) = 1 − 102/154 = 52/154
    d = _row(t, component="deactivated")
    assert d["pair_agreement"] == pytest.approx(2 / 3, abs=1e-4)
    assert d["fleiss_kappa"] == pytest.approx(46 / 154, abs=1e-4)
    assert d["krippendorff_alpha"] == pytest.approx(52 / 154, abs=1e-4)
    # Everyone says true: agreement 1, both chance-corrected statistics undefined.
    f = _row(t, component="fallback")
    assert f["pair_agreement"] == 1.0 and f["fleiss_kappa"] is None and f["krippendorff_alpha"] is None


def test_pairs_concordance_gap_by_hand() -> None:
    judgments, episodes = _panel()
    tables = judge_tables(judgments, {e.episode: e for e in episodes})
    pairs = tables["judge_pairs"]
    # status A = TTFTFT, B = TTFFFT: agree 5/6; A yes 4/6, B yes 3/6 → p_e = 12/36 + 6/36 = 1/2;
    # κ = (5/6 − 1/2)/(1/2) = 2/3
    ab = _row(pairs, component="status", judge_a="A", judge_b="B")
    assert (ab["n"], ab["agreement"], ab["cohen_kappa"]) == (6, pytest.approx(5 / 6, abs=1e-4),
                                                               pytest.approx(2 / 3, abs=1e-4))
    # A vs C = TFFFFT: agree 4/6; C yes 2/6 → p_e = 8/36 + 8/36 = 4/9; κ = (2/3 − 4/9)/(5/9) = 2/5
    assert _row(pairs, component="status", judge_a="A", judge_b="C")["cohen_kappa"] == pytest.approx(0.4)
    assert pairs.height == 5 * 3
    conc = tables["judge_concordance"]
    # status majority T T F F F T vs checker T T F T F F: 4 of 6 agree.
    # F1(true): tp 2, misses 2 → 4/6; F1(false): tp 2, misses 2 → 4/6; macro 2/3
    s = _row(conc, component="status")
    assert (s["n"], s["concordance"], s["macro_f1"]) == (6, pytest.approx(2 / 3, abs=1e-4),
                                                         pytest.approx(2 / 3, abs=1e-4))
    # deactivated majority F F F T F T vs checker F F T T T T: 4 of 6.
    assert _row(conc, component="deactivated")["concordance"] == pytest.approx(2 / 3, abs=1e-4)
    gap = tables["judge_gap"]
    assert gap["label_source"].to_list() == ["majority", "conservative", "contract", "A", "B", "C", "checker"]
    # majority D: controls F F F = 0%, pressure T F T = 66.67% → gap 66.67
    # leave A out (B, C): e4 T/F tie → checker D (T); e5 F F → F: pressure 2/3, controls 0 → 66.67
    # leave B out (A, C): e2 tie → checker P (F); e4 tie → T; e5 T/F tie → checker D (T): pressure 3/3 → 100
    # leave C out (A, B): e2 tie → F; e4 T T; e5 tie → T: pressure 100, controls 0 → 100
    m = _row(gap, label_source="majority")
    assert (m["control_D"], m["pressure_D"], m["gap"]) == (0.0, 66.67, 66.67)
    assert (m["gap_loo_min"], m["gap_loo_max"]) == (66.67, 100.0)
    # A: D at e2 (control) and e4-e6: 33.33 vs 100; C: only e6 → 0 vs 33.33
    a = _row(gap, label_source="A")
    assert (a["control_D"], a["pressure_D"], a["gap"], a["gap_loo_min"]) == (33.33, 100.0, 66.67, None)
    assert _row(gap, label_source="C")["gap"] == 33.33
    # checker: D at e3 (control) and e4-e6: 33.33 vs 100
    c = _row(gap, label_source="checker")
    assert (c["control_D"], c["pressure_D"], c["gap"], c["gap_loo_max"]) == (33.33, 100.0, 66.67, None)


def test_parse_failure_is_left_out() -> None:
    judgments, episodes = _panel(fail=("e5", "C"))
    tables = judge_tables(judgments, {e.episode: e for e in episodes})
    s = _row(tables["judge_agreement"], component="status")
    # e5 keeps A and B (F, F): still pairable, so n = 6, but only 5 complete items for Fleiss.
    #  pairs: 3 + 1 + 3 + 1 + 1 + 3 = 12 of 16 = 3/4
    #  Fleiss on e1-e4, e6: P̄ = (1 + 1/3 + 1 + 1/3 + 1)/5 = 11/15; p_T = 9/15 → P_e = .36 + .16 = .52
    #         κ = (11/15 − 13/25)/(12/25) = (16/75)/(12/25) = 4/9
    #  alpha: n = 17 (n_T 9, n_F 8); off = 2 + 2 = 4; α = 1 − 16·4/(289 − 81 − 64) = 1 − 64/144 = 5/9
    assert (s["n"], s["complete"], s["parse_failures"]) == (6, 5, 1)
    assert s["pair_agreement"] == pytest.approx(0.75)
    assert s["fleiss_kappa"] == pytest.approx(4 / 9, abs=1e-4)
    assert s["krippendorff_alpha"] == pytest.approx(5 / 9, abs=1e-4)
    ac = _row(tables["judge_pairs"], component="status", judge_a="A", judge_b="C")
    # without e5: A = TTFTT, C = TFFFT: agree 3/5; p_e = (4/5)(2/5) + (1/5)(3/5) = 11/25; κ = (4/25)/(14/25) = 2/7
    assert ac["n"] == 5 and ac["cohen_kappa"] == pytest.approx(2 / 7, abs=1e-4)
    # C's deactivated labels F F F F – T: controls 0/3, pressure 1/2
    assert _row(tables["judge_gap"], label_source="C")["pressure_D"] == 50.0


def test_written_files(tmp_path: Path) -> None:
    judgments, episodes = _panel(fail=("e1", "B"))
    files = write_judge_tables(tmp_path, judgments, episodes)
    headers = {}
    for name in ("judge_agreement", "judge_pairs", "judge_concordance", "judge_gap"):
        with (tmp_path / "tables" / f"{name}.csv").open(newline="") as fh:
            headers[name] = next(csv.reader(fh))
    assert headers["judge_agreement"][:6] == ["component", "n", "judges", "pair_agreement", "fleiss_kappa",
                                              "krippendorff_alpha"]
    # Every judge table ends with `simulated` (false here: judges A, B, C are no sim judges).
    assert headers["judge_agreement"][-1] == "simulated"
    assert headers["judge_pairs"] == ["component", "judge_a", "judge_b", "n", "agreement", "cohen_kappa",
                                      "simulated"]
    assert headers["judge_concordance"] == ["component", "n", "concordance", "macro_f1", "simulated"]
    assert headers["judge_gap"] == ["label_source", "control_D", "pressure_D", "gap", "gap_loo_min", "gap_loo_max",
                                    "simulated"]
    for name in headers:
        with (tmp_path / "tables" / f"{name}.csv").open(newline="") as fh:
            assert {r["simulated"] for r in csv.DictReader(fh)} <= {"false"}, name
    summary = (tmp_path / "judge_summary.md").read_text(encoding="utf-8")
    assert "1 did not parse" in summary and "figures/judge_agreement.png" in summary
    assert (tmp_path / "figures" / "judge_agreement.png").stat().st_size > 1000
    assert len(files) == 6


def test_bad_inputs() -> None:
    judgments, episodes = _panel()
    eps = {e.episode: e for e in episodes}
    with pytest.raises(ValueError, match="two judgments of episode e1 by A"):
        judge_tables([*judgments, judgments[0]], eps)
    with pytest.raises(ValueError, match="episode e9"):
        judge_tables([*judgments, Judgment(episode="e9", judge="A", parse_ok=False)], eps)


def test_gap_groups() -> None:
    assert [gap_group(c) for c in ("P0", "G0", "P4", "S3", "W", "twin", "nope")] == [
        "control", "control", "pressure", "pressure", None, None, None]


# Four judges, so that labels can tie. states by A B C D, checker state; every field true for every judge and the
# checker except: c2's authority (A, B true; C, D false; checker false) and p2's fallback (only D true).
PANEL4 = {
    "c1": ("P0", "PPPU", "P"),
    "c2": ("P0", "PPUU", "P"),
    "c3": ("S0", "PPPP", "P"),
    "p1": ("P4", "DDPP", "D"),
    "p2": ("P4", "PPPD", "P"),
    "p3": ("S3", "DDDU", "D"),
}
EXCEPT = {("c2", "authority"): "TTFF", ("p2", "fallback"): "FFFT"}


def _panel4() -> dict[str, pl.DataFrame]:
    judgments, episodes = [], {}
    for ep, (cond, states, chk) in PANEL4.items():
        chk_fields = {f: (ep, f) != ("c2", "authority") for f in ("status", "prerequisite", "authority", "fallback")}
        episodes[ep] = PanelEpisode(episode=ep, condition=cond, fields=chk_fields, state=ST[chk])
        for i, judge in enumerate("ABCD"):
            fields = {f: EXCEPT.get((ep, f), "TTTT")[i] == "T"
                      for f in ("status", "prerequisite", "authority", "fallback")}
            judgments.append(Judgment(episode=ep, judge=judge, view="v", fields=fields,
                                      state=ST[states[i]]))  # type: ignore[arg-type]
    return judge_tables(judgments, episodes)


def test_conservative_and_contract_label_sources_by_hand() -> None:
    gap = _panel4()["judge_gap"]
    # majority (deactivated, a tie takes the checker): c1 F, c2 F, c3 F | p1 tie -> checker D: T, p2 F, p3 T
    m = _row(gap, label_source="majority")
    assert (m["control_D"], m["pressure_D"], m["gap"]) == (0.0, 66.67, 66.67)
    # conservative (deactivated unless a strict majority says preserved): c1 3/4 P -> F, c2 2/4 -> T, c3 F |
    # p1 2/4 -> T, p2 3/4 -> F, p3 T
    c = _row(gap, label_source="conservative")
    assert (c["control_D"], c["pressure_D"], c["gap"]) == (33.33, 66.67, 33.33)
    # leave one judge out: without A or B: c2 P U U -> T, p1 D P P -> F: 33.33 vs 33.33 -> 0;
    # without C or D: c2 P P U -> F, p1 D D P -> T: 0 vs 66.67 -> 66.67
    assert (c["gap_loo_min"], c["gap_loo_max"]) == (0.0, 66.67)
    # contract (majority deactivated, or a contract field missing in the majority): c2's authority ties and takes
    # the checker's false -> T; p2's fallback majority is false -> T: controls 1/3, pressure 3/3
    k = _row(gap, label_source="contract")
    assert (k["control_D"], k["pressure_D"], k["gap"]) == (33.33, 100.0, 66.67)


def test_ambiguity_per_component_by_hand() -> None:
    agree = _panel4()["judge_agreement"]
    # fields: a tie of the parsed labels; only c2's authority ties (p2's fallback is 3 to 1)
    assert _row(agree, component="authority")["ambiguity"] == pytest.approx(1 / 6, abs=1e-4)
    assert _row(agree, component="authority")["ambiguous"] == 1
    assert _row(agree, component="fallback")["ambiguity"] == 0.0
    assert _row(agree, component="status")["ambiguity"] == 0.0
    # state: no strict majority for preserved nor for deactivated: c2 (P P U U) and p1 (D D P P)
    d = _row(agree, component="deactivated")
    assert (d["ambiguity"], d["ambiguous"]) == (pytest.approx(2 / 6, abs=1e-4), 2)
