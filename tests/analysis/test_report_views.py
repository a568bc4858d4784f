"""What the HTML report puts where a reader sees it (issue 24): the instrument's measured error beside the
condition matrix (shipped by default, `--calibration` overriding), P's interval, the confusion matrix beside
the corrected rates, the rates' intervals and error counts never scrolled away, and n on every figure."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mustmaybe.analysis import Calibration, CalibrationSet, _calibrated, _figures, build_report
from mustmaybe.analysis._html import WIDE
from mustmaybe.checker import CHECKER_NAME, CHECKER_VERSION

from .conftest import make_episode

SHIPPED = json.loads((Path(__file__).resolve().parents[2] / "checker" / "measured_error.json").read_text())


def _eps(version: str = "test") -> list:  # type: ignore[type-arg]
    eps = []
    for i in range(4):
        for s in (1, 2):
            for cond, state in (("P0", "preserved"), ("P4", "deactivated" if (i + s) % 2 else "preserved"),
                                ("S0", "preserved"), ("S3", "deactivated")):
                e = make_episode(task=f"t{i}", seed=s, condition=cond, state=state, forbidden=cond == "S3" and i == 0,
                                 hop_states=["preserved", "deactivated"] if cond == "S3" else None)
                eps.append(e.model_copy(update={"checker_version": version}))
    return eps


class _Tables(HTMLParser):
    """Each <table>: its class, the classes of the <div>s around it, its header cells; and the order of ids."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, object]] = []
        self.divs: list[str] = []
        self.order: list[str] = []  # table classes and h2/h3 headings, in document order
        self._th = False
        self._h = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        cls = dict(attrs).get("class") or ""
        if tag == "div":
            self.divs.append(cls)
        elif tag == "table":
            self.tables.append({"class": cls, "divs": list(self.divs), "header": []})
            self.order.append("table:" + cls)
        elif tag == "th":
            self._th = True
        elif tag in ("h2", "h3"):
            self._h = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self.divs.pop()
        elif tag == "th":
            self._th = False
        elif tag in ("h2", "h3"):
            self._h = False

    def handle_data(self, data: str) -> None:
        if self._th and self.tables:
            header = self.tables[-1]["header"]
            assert isinstance(header, list)
            header.append(data)
        elif self._h:
            self.order.append("h:" + data)


def _parse(html: str) -> _Tables:
    p = _Tables()
    p.feed(html)
    return p


def test_report_states_the_shipped_measured_error_beside_the_condition_matrix(tmp_path: Path) -> None:
    build_report(_eps(CHECKER_VERSION), tmp_path / "r", resamples=20, figures=False)
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    for doc in (html, md):
        assert f"measured for checker version {SHIPPED['checker_version']}" in doc
        assert f"{SHIPPED['n']} artifacts" in doc and "shipped with mustmaybe" in doc
        assert f"{SHIPPED['state']['pd_macro_f1']:.3f}" in doc
        lo, hi = SHIPPED["state"]["preserved_called_deactivated_ci"]
        assert f"[{100 * lo:.1f}%, {100 * hi:.1f}%]" in doc
        assert "CHECKER VERSION DIFFERS" not in doc  # scored by this checker
    order = _parse(html).order
    # Right after the condition matrix, before the next analysis: measured error, then the confusion.
    cm = order.index("table:condition_matrix pinned")
    assert order[cm + 2:cm + 4] == ["table:measured_error", "table:calibration_confusion"]
    assert order.index("h:Component loss") > cm + 3
    err = next(t for t in _parse(html).tables if t["class"] == "measured_error")
    assert err["header"] == ["measure", "value", "95% CI"]
    assert "D→P share" in html and "authority macro-F1" in html


def test_report_warns_when_the_runs_checker_version_differs(tmp_path: Path) -> None:
    summary = build_report(_eps("7+0000000000"), tmp_path / "r", resamples=20, figures=False)
    assert any(n.startswith("CHECKER VERSION DIFFERS") for n in summary.notes)  # on the console too
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "CHECKER VERSION DIFFERS" in md and "scored by rules@7+0000000000" in md
    assert f"the measured error is for {CHECKER_NAME}" in md


def test_report_without_a_shipped_measurement_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_calibrated, "measured_error_file", lambda: tmp_path / "absent.json")
    build_report(_eps(), tmp_path / "r", resamples=20, figures=False)
    assert "No measured error of the instrument" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def _fresh() -> Calibration:
    conf = {"preserved": {"preserved": 40, "deactivated": 5, "undetermined": 5},
            "deactivated": {"preserved": 4, "deactivated": 44, "undetermined": 2},
            "undetermined": {"preserved": 3, "deactivated": 3, "undetermined": 14}}
    return Calibration(checker="rules@9+fresh00000", n=120, sets=(CalibrationSet(name="test-x", n=120, split="test"),),
                       confusion=conf, pd_macro_f1=0.9, p_to_d=0.1, d_to_p=0.08)


def test_calibration_overrides_and_its_confusion_sits_beside_the_corrected_rates(tmp_path: Path) -> None:
    build_report(_eps(), tmp_path / "r", resamples=20, figures=False, calibration=_fresh())
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "measured for checker version 9+fresh00000" in html and "measured now on the --calibration sets" in html
    assert "shipped with mustmaybe" not in html
    order = _parse(html).order
    adj = order.index("table:condition_matrix_adjusted")
    assert order[adj - 1] == "h:Corrected rates" and order[adj + 1] == "table:calibration_confusion"
    # one confusion per panel, beside its corrected rates; none at the very end
    assert order.count("table:calibration_confusion") == order.count("table:condition_matrix_adjusted")
    assert order[-1] != "table:calibration_confusion"
    cm = order.index("table:condition_matrix pinned")
    assert order.index("table:measured_error") < adj and cm < adj


def test_condition_matrix_has_a_p_interval_beside_p(tmp_path: Path) -> None:
    summary = build_report(_eps(), tmp_path / "r", resamples=50, figures=False)
    t = summary.headline[0]
    assert t.id == "condition_matrix"
    i = t.header.index("P")
    assert t.header[i + 1] == "P 95% CI"
    assert t.header[t.header.index("D") + 1] == "D 95% CI"
    assert t.header[t.header.index("unsafe") + 1] == "unsafe 95% CI"
    assert all(re.fullmatch(r"\[\d+\.\d, \d+\.\d\]", row[i + 1]) for row in t.rows)
    assert "P 95% CI" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_wide_tables_keep_intervals_and_error_counts_out_of_the_scroll(tmp_path: Path) -> None:
    build_report(_eps(), tmp_path / "r", resamples=20, figures=False)
    tables = _parse((tmp_path / "r" / "report.html").read_text(encoding="utf-8")).tables
    key = re.compile(r"CI|errors|failed")
    checked = 0
    for t in tables:
        header = t["header"]
        assert isinstance(header, list)
        scrolls = any("scroll" in d for d in t["divs"])  # type: ignore[union-attr]
        if scrolls and len(header) > WIDE:
            pytest.fail(f"{t['class']}: {len(header)} columns in a scrolling table")
        if "pinned" in str(t["class"]):
            checked += 1
            assert not scrolls
    cm = next(t for t in tables if t["class"] == "condition_matrix pinned")
    assert cm["header"] == ["condition", "topology", "models", "n", "failed", "P", "P 95% CI", "D", "D 95% CI",
                            "U", "unsafe", "unsafe 95% CI", "errors", "parse errors"]
    more = next(t for t in tables if t["class"] == "condition_matrix more")
    assert more["header"][:3] == ["condition", "topology", "models"]
    assert not any(key.search(h) for h in more["header"])  # type: ignore[union-attr]
    rd = next(t for t in tables if t["class"] == "risk_differences pinned")
    assert {"dP 95% CI", "dD 95% CI", "dY 95% CI"} <= set(rd["header"])  # type: ignore[arg-type]
    assert checked >= 2


def test_every_figure_carries_n(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    titles: list[str] = []
    finish = _figures._finish

    def spy(fig, path, title, simulated, n=""):  # type: ignore[no-untyped-def]
        titles.append(f"{title}\n{n}")
        return finish(fig, path, title, simulated, n)

    monkeypatch.setattr(_figures, "_finish", spy)
    build_report(_eps(), tmp_path / "r", resamples=20)
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", html, re.S)
    assert len(captions) >= 5 and len(titles) == len(captions)
    assert all(re.search(r"n = \d+ ", c) for c in captions), captions
    assert all(re.search(r"\nn = \d+ ", t) for t in titles), titles
    assert "n = 32 episodes (8 per condition and topology)" in html
