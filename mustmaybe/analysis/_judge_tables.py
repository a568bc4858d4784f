"""Judge-panel tables (CHECKER_AND_JUDGES.md, "Judge panels"): agreement, pairs, concordance, gap.

Inputs are the judgments (one per episode and judge; blind, so they carry no condition) and, per judged
episode, its condition and the run checker's reading. A judgment that did not parse gives no label:
it is left out of every figure and counted in `parse_failures`. A majority is taken per component over
the judges that parsed; a tie falls back to the checker's label, and an episode no judge parsed has no
majority at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from pathlib import Path

import polars as pl

from mustmaybe.records import Judgment, PanelEpisode

from ._agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, pair_agreement
from ._markdown import table_markdown
from ._model import fmt, table

COMPONENTS: tuple[str, ...] = ("status", "prerequisite", "authority", "fallback", "deactivated")
CONTROLS: tuple[str, ...] = ("P0", "S0", "C0", "E0", "G0")
AGREEMENT_COLUMNS = ("component", "n", "judges", "pair_agreement", "fleiss_kappa", "krippendorff_alpha")
PAIR_COLUMNS = ("component", "judge_a", "judge_b", "n", "agreement", "cohen_kappa")
CONCORDANCE_COLUMNS = ("component", "n", "concordance", "macro_f1")
GAP_COLUMNS = ("label_source", "control_D", "pressure_D", "gap", "gap_loo_min", "gap_loo_max")

Labels = dict[str, bool | None]  # episode → label (None: none given)


def gap_group(condition: str) -> str | None:
    """'control' (P0, S0, C0, E0, G0), 'pressure' (a condition transformed from one of them), or None
    (remedy arms, twins, unknown ids: neither side of the gap)."""
    if condition in CONTROLS:
        return "control"
    try:
        from mustmaybe.scenarios import CONDITIONS
    except Exception:
        return None
    cond = CONDITIONS.get(condition)
    return "pressure" if cond is not None and cond.control in CONTROLS else None


def _component(fields: Mapping[str, bool], state: str | None, comp: str) -> bool | None:
    if comp == "deactivated":
        return None if state is None else state == "deactivated"
    return fields.get(comp)


def _judge_label(j: Judgment, comp: str) -> bool | None:
    return _component(j.fields, j.state, comp) if j.parse_ok else None


class _Panel:
    """Judgments indexed by (episode, judge), checked against the episodes."""

    def __init__(self, judgments: Sequence[Judgment], episodes: Mapping[str, PanelEpisode]) -> None:
        self.by: dict[tuple[str, str], Judgment] = {}
        for j in judgments:
            if (j.episode, j.judge) in self.by:
                raise ValueError(f"judgments: two judgments of episode {j.episode} by {j.judge}")
            if j.episode not in episodes:
                raise ValueError(f"judgments: episode {j.episode} (judge {j.judge}) is not among the episodes")
            self.by[(j.episode, j.judge)] = j
        self.judges = list(dict.fromkeys(j.judge for j in judgments))
        self.episodes = [e for e in dict.fromkeys(j.episode for j in judgments)]
        self.info = episodes
        self.parse_failures = sum(not j.parse_ok for j in judgments)

    def labels(self, judge: str, comp: str) -> list[bool | None]:
        return [_judge_label(j, comp) if (j := self.by.get((e, judge))) else None for e in self.episodes]

    def grid(self, comp: str, judges: Sequence[str] | None = None) -> list[list[bool | None]]:
        cols = [self.labels(j, comp) for j in (self.judges if judges is None else judges)]
        return [list(row) for row in zip(*cols, strict=True)] if cols else [[] for _ in self.episodes]

    def checker(self, comp: str) -> list[bool | None]:
        return [_component(self.info[e].fields, self.info[e].state, comp) for e in self.episodes]

    def majority(self, comp: str, judges: Sequence[str] | None = None) -> list[bool | None]:
        out: list[bool | None] = []
        for row, chk in zip(self.grid(comp, judges), self.checker(comp), strict=True):
            given = [v for v in row if v is not None]
            yes = sum(given)
            out.append(None if not given else chk if 2 * yes == len(given) else 2 * yes > len(given))
        return out


    def parsed(self, episode: str, judges: Sequence[str] | None = None) -> list[Judgment]:
        """The parsed judgments of one episode (by `judges`, default every judge)."""
        return [j for k in (self.judges if judges is None else judges)
                if (j := self.by.get((episode, k))) is not None and j.parse_ok and j.state is not None]

    def conservative(self, judges: Sequence[str] | None = None) -> list[bool | None]:
        """Deactivated unless a strict majority of the parsed judges reads the artifact as preserved: a split, a
        tie or an undetermined reading counts as deactivated (None: no judge parsed)."""
        out: list[bool | None] = []
        for e in self.episodes:
            states = [j.state for j in self.parsed(e, judges)]
            out.append(None if not states else not 2 * states.count("preserved") > len(states))
        return out

    def contract(self, judges: Sequence[str] | None = None) -> list[bool | None]:
        """Deactivated when the majority reads it deactivated or the majority misses any of the source contract's
        four fields (status, prerequisite, authority, fallback): the artifact does not carry the whole contract."""
        fields = [self.majority(f, judges) for f in COMPONENTS[:4]]
        out: list[bool | None] = []
        for d, *kept in zip(self.majority("deactivated", judges), *fields, strict=True):
            out.append(None if d is None or any(k is None for k in kept) else bool(d or not all(kept)))
        return out

    def ambiguous(self, comp: str) -> list[bool | None]:
        """Per artifact with a parsed label: the panel does not settle `comp`. A field is unsettled when its parsed
        labels tie; the overall state when no strict majority reads it preserved and none reads it deactivated
        (undetermined readings, or a split). None where no judge parsed."""
        out: list[bool | None] = []
        for e, row in zip(self.episodes, self.grid(comp), strict=True):
            given = [v for v in row if v is not None]
            if not given:
                out.append(None)
            elif comp == "deactivated":
                states = [j.state for j in self.parsed(e)]
                out.append(not any(2 * states.count(s) > len(states) for s in ("preserved", "deactivated")))
            else:
                out.append(2 * sum(given) == len(given))
        return out


def _round(v: float | None, digits: int = 4) -> float | None:
    return None if v is None else round(v, digits)


def agreement_table(p: _Panel) -> pl.DataFrame:
    rows = []
    for comp in COMPONENTS:
        grid = p.grid(comp)
        amb = [a for a in p.ambiguous(comp) if a is not None]
        rows.append({"component": comp, "n": sum(sum(v is not None for v in r) >= 2 for r in grid),
                     "judges": len(p.judges), "pair_agreement": _round(pair_agreement(grid)),
                     "fleiss_kappa": _round(fleiss_kappa(grid)), "krippendorff_alpha": _round(krippendorff_alpha(grid)),
                     "complete": sum(all(v is not None for v in r) for r in grid),
                     "parse_failures": p.parse_failures,
                     "ambiguity": _round(sum(amb) / len(amb)) if amb else None, "ambiguous": sum(amb)})
    return pl.DataFrame(rows, schema={"component": pl.String, "n": pl.Int64, "judges": pl.Int64,
                                      "pair_agreement": pl.Float64, "fleiss_kappa": pl.Float64,
                                      "krippendorff_alpha": pl.Float64, "complete": pl.Int64,
                                      "parse_failures": pl.Int64, "ambiguity": pl.Float64, "ambiguous": pl.Int64})


def pairs_table(p: _Panel) -> pl.DataFrame:
    rows = []
    for comp in COMPONENTS:
        for a, b in combinations(p.judges, 2):
            la, lb = p.labels(a, comp), p.labels(b, comp)
            both = [(x, y) for x, y in zip(la, lb, strict=True) if x is not None and y is not None]
            rows.append({"component": comp, "judge_a": a, "judge_b": b, "n": len(both),
                         "agreement": _round(pair_agreement(both)), "cohen_kappa": _round(cohen_kappa(la, lb))})
    return pl.DataFrame(rows, schema={"component": pl.String, "judge_a": pl.String, "judge_b": pl.String,
                                      "n": pl.Int64, "agreement": pl.Float64, "cohen_kappa": pl.Float64})


def _macro_f1(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Macro-F1 over the classes (true, false) that either side uses; None with no pair."""
    classes = [c for c in (True, False) if any(c in pr for pr in pairs)]
    if not classes:
        return None
    f1s = []
    for c in classes:
        tp = sum(g == c and m == c for g, m in pairs)
        wrong = sum((g == c) != (m == c) for g, m in pairs)
        f1s.append(2 * tp / (2 * tp + wrong))
    return sum(f1s) / len(f1s)


def concordance_table(p: _Panel) -> pl.DataFrame:
    rows = []
    for comp in COMPONENTS:
        pairs = [(c, m) for c, m in zip(p.checker(comp), p.majority(comp), strict=True)
                 if c is not None and m is not None]
        rows.append({"component": comp, "n": len(pairs),
                     "concordance": _round(sum(c == m for c, m in pairs) / len(pairs)) if pairs else None,
                     "macro_f1": _round(_macro_f1(pairs))})
    return pl.DataFrame(rows, schema={"component": pl.String, "n": pl.Int64, "concordance": pl.Float64,
                                      "macro_f1": pl.Float64})


def _shares(p: _Panel, labels: Sequence[bool | None]) -> tuple[float | None, float | None, float | None]:
    """(control_D, pressure_D, gap) in percent over the episodes with a label."""
    out: dict[str, list[bool]] = {"control": [], "pressure": []}
    for e, v in zip(p.episodes, labels, strict=True):
        g = gap_group(p.info[e].condition)
        if g is not None and v is not None:
            out[g].append(v)
    c, t = (100.0 * sum(out[k]) / len(out[k]) if out[k] else None for k in ("control", "pressure"))
    return c, t, (t - c if c is not None and t is not None else None)


def gap_table(p: _Panel) -> pl.DataFrame:
    comp = "deactivated"
    rows = []

    def row(source: str, labels: Sequence[bool | None], loo: Sequence[float] = ()) -> None:
        c, t, g = _shares(p, labels)
        rows.append({"label_source": source, "control_D": _round(c, 2), "pressure_D": _round(t, 2),
                     "gap": _round(g, 2), "gap_loo_min": _round(min(loo), 2) if loo else None,
                     "gap_loo_max": _round(max(loo), 2) if loo else None})

    def loo(source: Callable[[Sequence[str]], Sequence[bool | None]]) -> list[float]:
        gaps: list[float] = []
        if len(p.judges) >= 2:
            for j in p.judges:
                g = _shares(p, source([k for k in p.judges if k != j]))[2]
                if g is not None:
                    gaps.append(g)
        return gaps

    row("majority", p.majority(comp), loo(lambda js: p.majority(comp, js)))
    row("conservative", p.conservative(), loo(p.conservative))
    row("contract", p.contract(), loo(p.contract))
    for j in p.judges:
        row(j, p.labels(j, comp))
    row("checker", p.checker(comp))
    return pl.DataFrame(rows, schema={c: (pl.String if c == "label_source" else pl.Float64) for c in GAP_COLUMNS})


def judge_tables(judgments: Sequence[Judgment], episodes: Mapping[str, PanelEpisode]) -> dict[str, pl.DataFrame]:
    """The four tables by name (judge_agreement, judge_pairs, judge_concordance, judge_gap).

    Raises:
        ValueError: an episode judged twice by one judge, or a judgment of an episode not in `episodes`.
    """
    p = _Panel(judgments, episodes)
    builders: dict[str, Callable[[_Panel], pl.DataFrame]] = {
        "judge_agreement": agreement_table, "judge_pairs": pairs_table,
        "judge_concordance": concordance_table, "judge_gap": gap_table}
    return {name: build(p) for name, build in builders.items()}


def simulated_judges(judges: Sequence[str]) -> list[str]:
    """The judges among `judges` (model specs) that ran on the sim backend: their labels are configured."""
    from mustmaybe.records import parse_model_spec

    out = []
    for j in judges:
        try:
            if parse_model_spec(j).simulated:
                out.append(j)
        except ValueError:  # not a model spec (a label from elsewhere): not a sim judge
            pass
    return out


def simulated_note(sim: Sequence[str]) -> str:
    """The SIMULATED line every judge output carries when a sim judge took part."""
    return (f"SIMULATED: {len(sim)} judge(s) ran on the sim backend ({', '.join(sim)}); their labels and every "
            "agreement figure built on them are configured inputs of a simulator, not a measurement.")


def write_judge_tables(out_dir: str | Path, judgments: Sequence[Judgment], episodes: Mapping[str, PanelEpisode]
                       | Sequence[PanelEpisode], *, figures: bool = True) -> list[Path]:
    """Write DIR/tables/judge_*.csv, DIR/judge_summary.md and DIR/figures/judge_agreement.png.

    Where a sim judge took part, every table has `simulated` true, the summary opens with the
    SIMULATED line and the figure carries the SIMULATED mark.
    """
    eps = episodes if isinstance(episodes, Mapping) else {e.episode: e for e in episodes}
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    sim = simulated_judges(list(dict.fromkeys(j.judge for j in judgments)))
    tables = {name: df.with_columns(pl.lit(bool(sim)).alias("simulated"))
              for name, df in judge_tables(judgments, eps).items()}
    files = []
    for name, df in tables.items():
        path = out / "tables" / f"{name}.csv"
        df.write_csv(path)
        files.append(path)
    fig = None
    if figures:
        from ._figures import judge_agreement_bars, n_text

        ag = tables["judge_agreement"]
        n = n_text(len({j.episode for j in judgments}), ag["n"] if "n" in ag.columns else None, unit="artifacts",
                   each="component") if ag.height else ""
        fig = judge_agreement_bars(ag, out / "figures" / "judge_agreement.png", simulated=bool(sim), n=n)
        files.append(fig)
    summary = out / "judge_summary.md"
    summary.write_text(_summary(tables, judgments, fig, out), encoding="utf-8")
    return [summary, *files]


def _cell(col: str) -> Callable[[dict[str, object]], str]:
    # Kappas need more than the report's one decimal; percentages keep two.
    return lambda row: fmt(row.get(col), 2 if col.endswith(("_D", "gap", "_min", "_max")) else 3)


def _summary(tables: Mapping[str, pl.DataFrame], judgments: Sequence[Judgment], fig: Path | None,
             out: Path) -> str:
    judges = list(dict.fromkeys(j.judge for j in judgments))
    n_ep = len({j.episode for j in judgments})
    failed = sum(not j.parse_ok for j in judgments)
    sim = simulated_judges(judges)
    lines = [
        "# Judge panel" + (" — SIMULATED" if sim else ""), "",
        *([f"**{simulated_note(sim)}**", ""] if sim else []),
        f"{len(judges)} judge(s) ({', '.join(judges) or 'none'}) on {n_ep} artifact(s); {len(judgments)} "
        f"judgment(s), {failed} did not parse and are left out of every figure.", "",
        "Agreement: n = artifacts with at least two parsed labels; Fleiss' kappa uses only the artifacts every "
        "judge parsed; Krippendorff's alpha (nominal) allows missing labels. An empty cell is undefined "
        "(every label in one category). Concordance: the judges' majority against the run's checker (a tie "
        "takes the checker's label). Gap: deactivated share (%) in pressure conditions minus controls "
        "(P0, S0, C0, E0, G0); gap_loo = range of the majority's gap leaving each judge out in turn.", "",
    ]
    for name, title in (("judge_agreement", "Agreement per component"), ("judge_pairs", "Judge pairs"),
                        ("judge_concordance", "Majority vs the run's checker"),
                        ("judge_gap", "Deactivated share: controls vs pressure")):
        df = tables[name].drop("simulated", strict=False)
        t = table(name, title, df, [(c, _cell(c)) for c in df.columns])
        lines += [f"## {title}", "", table_markdown(t), ""]
    if fig is not None:
        lines += [f"![Judge agreement]({fig.relative_to(out).as_posix()})", ""]
    return "\n".join(lines)
