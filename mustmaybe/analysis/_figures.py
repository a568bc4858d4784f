"""Figures (PNG, matplotlib's Agg canvas; no pyplot, so no global state and no display).

Each function reads one table frame of one panel and writes one file. Simulated-panel figures carry a
'SIMULATED' title prefix and watermark; `n` (see `n_text`), when given, is the title's last line, so a
figure read on its own still says how many episodes it draws.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MAX_BARS = 40
MAX_LINES = 12
_COLORS = {"P": "#2e7d32", "D": "#c62828", "U": "#9e9e9e", "unsafe": "#ef6c00", "retention": "#1565c0",
           "recognition": "#6a1b9a"}
_DPI = 100


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def n_text(total: int, per: pl.Series | None = None, unit: str = "episodes", each: str = "bar") -> str:
    """'n = 36 episodes (6 per bar)' or '(3–12 per bar)': what a figure's marks rest on."""
    text = f"n = {total} {unit}"
    vals = [] if per is None else [int(v) for v in per.drop_nulls().to_list()]
    if vals:
        lo, hi = min(vals), max(vals)
        text += f" ({lo} per {each})" if lo == hi else f" ({lo}–{hi} per {each})"
    return text


def _finish(fig: Figure, path: Path, title: str, simulated: bool, n: str = "") -> Path:
    if n:
        title = f"{title}\n{n}"
    if simulated:
        title = "SIMULATED (sim backend: rates are inputs, not findings)\n" + title
        fig.text(0.5, 0.5, "SIMULATED", fontsize=64, color="grey", alpha=0.12, rotation=25,
                 ha="center", va="center")
    # Wrap to the figure's width so a long title is never cut off at the edges.
    chars = max(40, int(fig.get_figwidth() * 13))
    fig.suptitle("\n".join(textwrap.fill(line, chars) for line in title.split("\n")), fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=_DPI)
    return path


def _yerr(df: pl.DataFrame, col: str) -> np.ndarray | None:
    lo, hi = f"{col}_lo", f"{col}_hi"
    if lo not in df.columns:
        return None
    v = df[col].fill_null(np.nan).to_numpy()
    low = np.clip(v - df[lo].fill_null(np.nan).to_numpy(), 0, None)
    high = np.clip(df[hi].fill_null(np.nan).to_numpy() - v, 0, None)
    return np.nan_to_num(np.vstack([low, high]))


def _grouped_bars(ax: Axes, labels: list[str], df: pl.DataFrame, cols: list[str], *, errors: bool) -> None:
    x = np.arange(len(labels))
    width = 0.8 / len(cols)
    for i, col in enumerate(cols):
        yerr = _yerr(df, col) if errors else None
        ax.bar(x + (i - (len(cols) - 1) / 2) * width, df[col].fill_null(np.nan).to_numpy(), width,
               yerr=yerr, capsize=2, label=col, color=_COLORS.get(col))
    ax.set_xticks(x, labels, rotation=45 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center",
                  fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("% of episodes")
    ax.legend(fontsize=8, ncols=len(cols), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(axis="y", alpha=0.3)


def condition_bars(rates: pl.DataFrame, path: Path, *, simulated: bool, n: str = "") -> Path:
    """P, D and unsafe per (condition, topology), with task-cluster 95% intervals."""
    df = rates.head(MAX_BARS)
    multi = df.height != df["condition"].n_unique()
    labels = [f"{c}\n{t}" if multi else c for c, t in df.select("condition", "topology").iter_rows()]
    fig = _figure(max(6.0, 0.55 * len(labels) + 2), 4.2)
    _grouped_bars(fig.add_subplot(), labels, df, ["P", "D", "unsafe"], errors=True)
    return _finish(fig, path, "P, D and unsafe by condition (95% task-cluster intervals)", simulated, n)


def field_loss_heatmap(loss: pl.DataFrame, path: Path, *, simulated: bool, n: str = "") -> Path:
    """Loss of each blocker field (and actionability) per family group and condition."""
    cols = ["status", "prerequisite", "authority", "fallback", "actionability"]
    df = loss.head(MAX_BARS)
    labels = [g if g not in ("controls", "transformed", "twin") else f"{f}: {g}"
              for f, g in df.select("family", "group").iter_rows()]
    data = df.select(cols).fill_null(np.nan).to_numpy()
    fig = _figure(7.0, 0.32 * len(labels) + 1.6)
    ax = fig.add_subplot()
    im = ax.imshow(data, vmin=0, vmax=100, cmap="Reds", aspect="auto")
    ax.set_xticks(range(len(cols)), cols, fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    for (i, j), v in np.ndenumerate(data):
        if np.isfinite(v):
            ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if v > 60 else "black")
    fig.colorbar(im, ax=ax, label="% lost")
    return _finish(fig, path, "Field loss in the final artifact", simulated, n)


def dp_vs_dy(rd: pl.DataFrame, path: Path, *, simulated: bool, n: str = "") -> Path:
    """Matched ΔP against ΔY per condition, with 95% intervals on both."""
    df = rd.filter(pl.col("n") > 0)
    fig = _figure(6.0, 4.6)
    ax = fig.add_subplot()
    x, y = df["dP"].to_numpy(), df["dY"].to_numpy()
    xerr = np.vstack([x - df["dP_lo"].to_numpy(), df["dP_hi"].to_numpy() - x]).clip(0)
    yerr = np.vstack([y - df["dY_lo"].to_numpy(), df["dY_hi"].to_numpy() - y]).clip(0)
    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", color="#c62828", ecolor="#999999", capsize=2)
    multi = df.height != df["condition"].n_unique()
    for (c, t), xi, yi in zip(df.select("condition", "topology").iter_rows(), x, y, strict=True):
        ax.annotate(f"{c} ({t})" if multi else c, (xi, yi), fontsize=7, xytext=(3, 3),
                    textcoords="offset points")
    ax.axhline(0, color="black", lw=0.6)
    ax.axvline(0, color="black", lw=0.6)
    _square_axes(ax, (-105, 105), "ΔP, transformed − control (pp)", "ΔY (unsafe), transformed − control (pp)")
    return _finish(fig, path, "Artifact preservation change against endpoint change", simulated, n)


def _square_axes(ax: Any, lim: tuple[float, float], xlabel: str, ylabel: str) -> None:
    """Both axes over the same percentage range, labelled, with a light grid."""
    ax.set_xlim(*lim)
    ax.set_ylim(*lim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def remedy_price(rem: pl.DataFrame, path: Path, *, simulated: bool, n: str = "") -> Path:
    """Each remedy arm as a point: unsafe on blocked episodes (x) against over-blocking on its twins (y)."""
    df = rem.filter(pl.col("unsafe").is_not_null())
    fig = _figure(6.4, 4.8)
    ax = fig.add_subplot()
    x = df["unsafe"].to_numpy()
    y = df["overblocked"].fill_null(float("nan")).to_numpy()
    ax.scatter(x, y, color="#1565c0", s=24)
    # Arms that land on the same point share one label, so coinciding remedies stay readable.
    spots: dict[tuple[float, float], list[str]] = {}
    for (r, t), xi, yi in zip(df.select("remedy", "topology").iter_rows(), x, y, strict=True):
        label = f"{r} ({t.split(':')[0]})" if r == "W" or not r.startswith(("R-", "V-")) else r
        spots.setdefault((round(float(xi), 1), 0.0 if np.isnan(yi) else round(float(yi), 1)), []).append(label)
    for (xi, yi), labels in spots.items():
        lines = [", ".join(labels[i:i + 3]) for i in range(0, len(labels), 3)]
        ax.annotate("\n".join(lines), (xi, yi), fontsize=6, xytext=(4, 2), textcoords="offset points",
                    va="bottom" if yi < 90 else "top")
    _square_axes(ax, (-5, 105), "unsafe on blocked episodes (%)", "over-blocked on benign twins (%)")
    return _finish(fig, path, "The price of each remedy: unsafe vs over-blocking", simulated, n)


def _stage_axis(fam: pl.DataFrame) -> dict[str, int]:
    """One family's x axis: stage label → position. Numbered stages ('hop 2', 'round 2') sit at their
    number and the closing ones (coordinator, plan, repair) after the highest, so a one-round and a
    two-round group share the reviewer, round 1 and coordinator ticks."""
    first = fam.group_by("stage").agg(pl.col("hop").min()).iter_rows()

    def key(item: tuple[str, int]) -> tuple[int, int]:
        label, hop = item
        number = label.rpartition(" ")[2]
        if label == "reviewer":
            return (0, 0)
        return (1, int(number)) if number.isdigit() else (2, hop)

    return {label: x for x, (label, _) in enumerate(sorted(first, key=key))}


def drift_lines(curves: pl.DataFrame, path: Path, *, simulated: bool, n: str = "") -> Path:
    """Preserved share at each carried stage: one panel per topology family (a hop means something
    different in each), one line per (condition, topology) within it."""
    import matplotlib

    families = list(curves.partition_by("family", as_dict=True, maintain_order=True).items())
    cols = min(2, len(families))
    rows = -(-len(families) // cols)
    fig = _figure(6.0 * cols, 3.8 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    # Distinct colour and marker per line: the default cycle repeats after ten lines.
    colours = [matplotlib.colormaps["tab20"](i) for i in range(20)]
    markers = "osD^vP*Xh<>p"
    for ax, ((family,), fam) in zip(axes.flat, families, strict=False):
        groups = list(fam.partition_by(["condition", "topology"], as_dict=True, maintain_order=True).items())
        # The longest curves first: they show where along the stages preservation breaks.
        groups.sort(key=lambda kv: -kv[1].height)
        multi = len({c for (c, _), _ in groups}) != len(groups)
        axis = _stage_axis(fam)
        for i, ((cond, topo), g) in enumerate(groups[:MAX_LINES]):
            g = g.sort("hop")
            ax.plot([axis[label] for label in g["stage"].to_list()], g["preserved"].to_numpy(),
                    marker=markers[i % len(markers)], color=colours[i % len(colours)],
                    label=f"{cond} ({topo})" if multi else str(cond))
        ax.set_xticks(list(axis.values()), list(axis), fontsize=7)
        ax.set_ylim(-3, 103)
        ax.set_title(f"{family}", fontsize=9)
        ax.set_ylabel("% preserved")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    for ax in list(axes.flat)[len(families):]:
        ax.set_visible(False)
    return _finish(fig, path, "Preservation across carried stages, per topology family", simulated, n)


def rate_bars(rates: pl.DataFrame, label_col: str, path: Path, *, title: str, simulated: bool, n: str = "") -> Path:
    """P, D and unsafe per row of a rates table (models or topologies), horizontal."""
    df = rates.head(MAX_BARS)
    labels = df[label_col].to_list()
    cols = ["P", "D", "unsafe"]
    fig = _figure(7.5, 0.45 * len(labels) * len(cols) / 2 + 1.8)
    ax = fig.add_subplot()
    y = np.arange(len(labels))
    h = 0.8 / len(cols)
    for i, col in enumerate(cols):
        ax.barh(y + (i - 1) * h, df[col].fill_null(np.nan).to_numpy(), h, label=col, color=_COLORS[col])
    ax.set_yticks(y, [lbl if len(lbl) <= 48 else lbl[:45] + "…" for lbl in labels], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 105)
    ax.set_xlabel("% of episodes")
    ax.legend(fontsize=8, ncols=3)
    ax.grid(axis="x", alpha=0.3)
    return _finish(fig, path, title, simulated, n)


def gradient_lines(grad: pl.DataFrame, path: Path, *, simulated: bool, n: str = "") -> Path:
    """The compression gradient: P, D, unsafe and retention across G0-G4."""
    fig = _figure(6.0, 4.0)
    ax = fig.add_subplot()
    x = np.arange(grad.height)
    for col in ("P", "D", "unsafe", "retention"):
        ax.plot(x, grad[col].fill_null(np.nan).to_numpy(), marker="o", label=col, color=_COLORS[col])
    ax.set_xticks(x, grad["condition"].to_list())
    ax.set_ylim(-3, 103)
    ax.set_ylabel("%")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _finish(fig, path, "Compression gradient", simulated, n)


def judge_agreement_bars(agreement: pl.DataFrame, path: Path, *, simulated: bool = False, n: str = "") -> Path:
    """Fleiss' kappa and Krippendorff's alpha per component (judge_agreement.csv); undefined values are gaps."""
    labels = agreement["component"].to_list()
    fig = _figure(max(5.0, 0.9 * len(labels) + 2), 3.8)
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    for i, (col, color) in enumerate((("fleiss_kappa", "#1565c0"), ("krippendorff_alpha", "#ef6c00"))):
        ax.bar(x + (i - 0.5) * 0.38, agreement[col].cast(pl.Float64).fill_null(np.nan).to_numpy(), 0.38,
               label=col.replace("_", " "), color=color)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylim(min(-0.2, float(np.nanmin(ax.get_ylim()))), 1.05)
    ax.set_ylabel("chance-corrected agreement")
    ax.legend(fontsize=8, ncols=2, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _finish(fig, path, "Judge agreement per component (empty: undefined, one category only)", simulated, n)


def repair_panels(arms: pl.DataFrame, retention: pl.DataFrame, path: Path, *, simulated: bool,
                  n: str = "") -> Path:
    """The paper's repair figure (Fig. 3B / Fig. 4C–D): left, P, D and unsafe per deterministic repair arm
    on the fixed base artifacts; right, each field's retention before (R-none) and after (R-all)
    all-field restoration."""
    df = arms.head(MAX_BARS)
    multi = df["models"].n_unique() > 1
    labels = [f"{a}\n{m}" if multi else a for a, m in df.select("arm", "models").iter_rows()]
    fig = _figure(max(9.0, 0.5 * len(labels) + 5.0), 4.6)
    left, right = fig.subplots(1, 2, width_ratios=[max(2.0, len(labels) / 4), 1.4])
    _grouped_bars(left, labels, df, ["P", "D", "unsafe"], errors=False)
    left.set_xlabel("repair arm (Fig. 3B / 4C)", fontsize=8)
    fields = ["status", "prerequisite", "authority", "fallback"]
    x = np.arange(len(fields))
    rows = list(retention.iter_rows(named=True))
    width = 0.8 / max(1, len(rows))
    for i, row in enumerate(rows):
        label = f"{row['arm']} ({row['models']})" if multi else str(row["arm"])
        right.bar(x + (i - (len(rows) - 1) / 2) * width, [row[f] if row[f] is not None else np.nan for f in fields],
                  width, label=label, color="#c62828" if row["arm"] == "R-none" else "#2e7d32")
    right.set_xticks(x, fields, fontsize=8, rotation=30, ha="right")
    right.set_ylim(0, 105)
    right.set_ylabel("% of replays carrying the field")
    right.set_xlabel("field retention before / after all-field restoration (Fig. 4D)", fontsize=8)
    right.legend(fontsize=7, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2)
    right.grid(axis="y", alpha=0.3)
    return _finish(fig, path, "Deterministic repair of fixed degraded artifacts (Fig. 3B / 4C–D)", simulated, n)
