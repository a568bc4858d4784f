"""Analysis and report: the paper's tables and figures from a user's own runs.

Records become two polars frames once (`build_frames`); every table, contrast and figure reads them.
Real-model and simulated episodes are separate panels and are never pooled.
"""

from ._agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, pair_agreement
from ._bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, cluster_bootstrap, task_weights
from ._calibrated import ADJ_COLUMNS, Calibration, CalibrationSet
from ._compare import BY_COLUMNS, Comparison, compare
from ._contrasts import ContrastParts, RiskDifferences, risk_differences
from ._correction import Correction, correct_shares
from ._frames import EPISODE_COLUMNS, Frames, build_frames, models_label
from ._judge_tables import (
    COMPONENTS,
    CONTROLS,
    gap_group,
    judge_tables,
    simulated_judges,
    simulated_note,
    write_judge_tables,
)
from ._load import load_domains, load_episodes, load_episodes_jsonl
from ._matrix import (
    component_loss,
    compression_gradient,
    condition_matrix,
    drift_curves,
    first_breaks,
    model_rates,
    rates_table,
    safe_at_k,
    topology_rates,
)
from ._model import ReportSummary, ReportTable, fmt
from ._panel_calibrated import PANEL_COLUMNS, PanelConfusion, PanelJudgments, panel_confusion, read_panel
from ._report import build_report, report_from_frames
from ._robustness import flip_state, label_flip, leave_one_out

__all__ = [
    "ADJ_COLUMNS",
    "BY_COLUMNS",
    "COMPONENTS",
    "CONTROLS",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "EPISODE_COLUMNS",
    "PANEL_COLUMNS",
    "Calibration",
    "CalibrationSet",
    "Comparison",
    "ContrastParts",
    "Correction",
    "Frames",
    "Interval",
    "PanelConfusion",
    "PanelJudgments",
    "ReportSummary",
    "ReportTable",
    "RiskDifferences",
    "build_frames",
    "build_report",
    "cluster_bootstrap",
    "cohen_kappa",
    "compare",
    "component_loss",
    "compression_gradient",
    "condition_matrix",
    "correct_shares",
    "drift_curves",
    "first_breaks",
    "fleiss_kappa",
    "flip_state",
    "fmt",
    "gap_group",
    "judge_tables",
    "krippendorff_alpha",
    "label_flip",
    "leave_one_out",
    "load_domains",
    "load_episodes",
    "load_episodes_jsonl",
    "model_rates",
    "models_label",
    "pair_agreement",
    "panel_confusion",
    "rates_table",
    "read_panel",
    "report_from_frames",
    "risk_differences",
    "safe_at_k",
    "simulated_judges",
    "simulated_note",
    "task_weights",
    "topology_rates",
    "write_judge_tables",
]
