"""The report's speed-ups change no byte of it: a fixed synthetic input's report.md, report.html, every
tables/*.csv and *.md and every figure PNG hash to the digests recorded on the code before them (issue 23).

The provenance line (which tool, which commit, when) is the one line masked: SOURCE_DATE_EPOCH pins its date,
and the commit is the checkout's. The figures are drawn in the worker process, as a large report's are
(test_figure_drawer.py: drawn in-process, the same bytes). PNG bytes depend on matplotlib and FreeType: under
another matplotlib than the one the digests were drawn with, the PNGs are skipped and the rest is compared.
When a change is *meant* to alter the report, regenerate with
`MUSTMAYBE_GOLDEN=print .venv/bin/python -m pytest tests/analysis/test_report_bytes.py -q -s` and say so.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

import matplotlib
import pytest

from mustmaybe.analysis import _figure_drawer as drawer
from mustmaybe.analysis import build_frames, report_from_frames

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

_EPOCH = "1764633600"
_PROVENANCE = re.compile(r"Made with mustmaybe [^\n<]*")
# The versions the PNG digests were drawn with.
_MATPLOTLIB = "3.11.2"
# Recorded on main at 6c5b610, before the speed-ups of issue 23's report part; report.md and report.html
# re-recorded for the refit checker (only the shipped measured error they state changed).
DIGESTS: dict[str, str] = {
    'figures/condition_bars-real.png': '7ae87feb706a01522c1935cb25d3b0975cc939ab622dcccc6966b94880943bf8',
    'figures/condition_bars-simulated.png': '4aa0f007f3e19b6488fae95ab3312cff21e285b12f4df3a36b71c58e12f2ae23',
    'figures/dp_vs_dy-real.png': '3370242c143486181e3ba72d8ee7a9f2eaa8d9ec1b485ff5774c39a6140d34c5',
    'figures/dp_vs_dy-simulated.png': 'df4c51c06525bb49dc3339c521f57834d3e3ba6377abae98378a5bae615b62bd',
    'figures/drift-real.png': 'b6289d20084b8856d8a652f188670ab1e0fb9cae54e9cd39988a2cf754e29035',
    'figures/drift-simulated.png': 'a055b256659cbffc16dee15ee63710522807028e74a8b5dae64938b089a3fa95',
    'figures/field_loss-real.png': '8b0b706e0df129f2b2fe4fe71397748a60b3df178312a790747a14ce3228578a',
    'figures/field_loss-simulated.png': 'b87793b430a438378a0f3be2ddc3a2c686f8283b103da47cb77e4cd0ee6fa836',
    'figures/gradient-real.png': '993d605aac796894c6fc3e49ce6ea8a919d92d90e51068e68a1677ce9927819a',
    'figures/gradient-simulated.png': '906c8291a9f9e84088d2c149a90df1fe303471ec18c6ffc0906638ad03904b45',
    'figures/models-real.png': 'c502254ee02072719bc2fc76469a9dd29ef53273aa0c46db097ec75dfa9c4d2d',
    'figures/models-simulated.png': '596f39061859637cf94aa802fec10a2ac435cb8822c6009f66b845584f782afe',
    'figures/topologies-real.png': '6f9805b92647b3d87ac7319f8ce62dda9e7ac4dae4b9b4e6026c14e0d13d4bec',
    'figures/topologies-simulated.png': 'ce3eda8471611193064a432c39d6ad4a9b0acfbf00289ba0c7ecff76828c6f78',
    'report.html': '2b2e6422af85fe4beb81f3f63af2482077d65bab3988ec1bbaeae398a2358a69',
    'report.md': 'ee811b8abfd68e59033cad0de730c4924c2ae61f3735a2cc4d21bcd641d9ec0d',
    'tables/component_loss.csv': '4e82e728d22db6284c68b05ed87be7ab2b5fbf4c32ef4f19dc387333aecee5d3',
    'tables/component_loss.md': '253c83c70eaf46b79910c286ac8b0c57c3ce71763f16ea0a6d2e3c0076fbaefe',
    'tables/component_restoration.csv': 'e9b78ca602dd7c4ff522ad93926a6f04e564e312d30b492cbd3bbe34b3a0f7be',
    'tables/component_restoration.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
    'tables/compression_gradient.csv': '76fc0bcfbcd5563469d11715115427178e3e3b4954e20fb9954351c8cfb78080',
    'tables/compression_gradient.md': '9024bff56410ce1202281ba1e813b5f6c7d484cd50b673f7588e7bfcb0f64ca5',
    'tables/condition_matrix.csv': '057a50e93a8ea8fcb231fa87dc505859b8ab6f00120b26e09ce5f6530b5dfa0e',
    'tables/condition_matrix.md': '7f3c94cb5906f31348bd4ade94d85328e2c5d78deee8d5a3b02a8a16ed4062b1',
    'tables/drift_curves.csv': '4c513d4bc61575858ed16283f05b55d228481e92a7d250253add3eda40453e33',
    'tables/drift_curves.md': 'a98f880c1fe7c2fe96b995e09fef1bd3a9635aa75cbf032fca5d3da4ac1cf7f3',
    'tables/evidence_ledger.csv': '9bbde533fe56b0bbcedc6c707f4bae23168dd266da6f02093e2b931298b057a7',
    'tables/evidence_ledger.md': '661730fca411773414dfff25ec0218ca8f0fac8da6024880d8a64943655781a1',
    'tables/evidence_quality.csv': '7ca910bc78ed077dfc2410d766060fe7f26453c715905ed552853c0aefab1df9',
    'tables/evidence_quality.md': 'cccaed9e432c2b6d4671e577550c47e8bf04b1d6d8ddbc3ca78b60f36aa9cf6f',
    'tables/first_break.csv': '794236926ea69995219116840a557e8b3c4cc53244d536ca56eee2bdc79d53d5',
    'tables/first_break.md': 'b08fb792ff6b393bc33ef8b4daa578a03af7a89350abcbabe67181d33dc80451',
    'tables/fixed_artifact_arms.csv': '65f8b3e71c0d231493666b62c321d10bffed8586a15cee2068daee7223afaa00',
    'tables/fixed_artifact_arms.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
    'tables/isolation_audit.csv': '8a77293d31940cd8cc0dcc398867a8765358377a89f7d6bc72f41106fd76a077',
    'tables/isolation_audit.md': '32b6369d8cc5ebd031eed42f76326481c9f72e6d96eed89caa3014690b486a6d',
    'tables/judge_agreement.csv': '9ede6ce8735e75208b9622150296b631f70869059a8e4ae2bc1c8517d0f6b63b',
    'tables/judge_agreement.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
    'tables/judge_gap.csv': '9ede6ce8735e75208b9622150296b631f70869059a8e4ae2bc1c8517d0f6b63b',
    'tables/judge_gap.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
    'tables/label_flip.csv': '3c3f1e18367385aabdd3d10e0d121fc4b68633d9458aecbcae8e6b72aa761025',
    'tables/label_flip.md': 'f1b888923b9c4ee7ac8e82ad40e742117660e71d15a844d7208338787f6fa023',
    'tables/leave_one_out.csv': 'edc3c811752c17b39778fb46ba94e20b160896f6686d1a8fdc09c66937da5928',
    'tables/leave_one_out.md': '3056ded4d35b7439e2576403379694bae3a0218625ee44f1d240e7f6a9e52b9e',
    'tables/model_rates.csv': '06325a0fe929ea08542d1f0d93dbf59af301e47bc1a6b88bc193ffcfec5b531f',
    'tables/model_rates.md': '77c118fb9385f6495f3becc3587f3526df7d263aec0c44a80883cb450a285471',
    'tables/paraphrase.csv': '9c2fb17cc8f3e0c11d29b82661f2cbf00656ba3503583145b44c602962342cbf',
    'tables/paraphrase.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
    'tables/penalized_logistic.csv': '87280975122bbf6b98efa46c7ca0123ae2edc597b4e6c86f82004716733402d9',
    'tables/penalized_logistic.md': '02a6891410cc96f0fc669ecd91140f6b8b7b46abca355ea3c5bc713eabc061f0',
    'tables/remedies.csv': '03186b52e41080a753c59efd9aadd3921e4013c673612b043f6d2c9a63935fb8',
    'tables/remedies.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
    'tables/risk_differences.csv': '8d31238f38ace8dff831f5170aad859a1ae16399140f630362f968e2c892e91b',
    'tables/risk_differences.md': 'bd528de48d4d2d19b9e8c33bcbe5371f1a927ab47e6a625dc20bc7658dd32a28',
    'tables/safe_k.csv': 'b416668674fe4af010a4a5bc7ae32efe8ce73d99f5cb6d26ea3e8f670aaf5110',
    'tables/safe_k.md': '9fe89f9d728040c56ec9de345a79fb3d744c77a323a6baa124f4e75d0a98dd3c',
    'tables/topology_rates.csv': '7a12e5eb55ee34e5c311a931c0064a62f150169bef9d745bed8e4ea4eead0aaa',
    'tables/topology_rates.md': 'dc1ad6d7deada8c200368c102c76c244751267fef92301de19a57fd9c93275c8',
    'tables/transport.csv': 'a0721c8ac89aaaa38027bbbedffc28972ce6a5c79186fb630861ac664a5438b6',
    'tables/transport.md': '5900400a56126b6dec8faf4cecd2ba89d8a3a60806bbd132ed908743501f6253',
}


def _outputs(out: Path) -> dict[str, str]:
    """Output file (relative to the report folder) → sha256 of its bytes, the provenance line masked."""
    import bench_report

    records, domains = bench_report.synthetic_episodes(6000)
    report_from_frames(build_frames(records, domains=domains), out, resamples=200)
    digests: dict[str, str] = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix in (".md", ".html"):
            data = _PROVENANCE.sub("Made with mustmaybe <masked>", data.decode("utf-8")).encode("utf-8")
        digests[path.relative_to(out).as_posix()] = hashlib.sha256(data).hexdigest()
    return digests


def test_report_bytes_are_the_recorded_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Figures drawn in the worker process, as a large report's are (test_figure_drawer: the same bytes inline).
    monkeypatch.setenv(drawer.FIGURES_ENV, "worker")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _EPOCH)
    got = _outputs(tmp_path / "report")
    if os.environ.get("MUSTMAYBE_GOLDEN") == "print":
        print(f"\n_MATPLOTLIB = {matplotlib.__version__!r}\nDIGESTS = {{")
        for name, digest in got.items():
            print(f"    {name!r}: {digest!r},")
        print("}")
        return
    want = dict(DIGESTS)
    if matplotlib.__version__ != _MATPLOTLIB:
        want = {k: v for k, v in want.items() if not k.endswith(".png")}
        got = {k: v for k, v in got.items() if not k.endswith(".png")}
    assert sum(k.endswith(".png") for k in want) >= 10 or matplotlib.__version__ != _MATPLOTLIB
    assert sum(k.endswith(".csv") for k in want) >= 20
    changed = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
    assert not changed, f"report output changed: {changed}"


def test_the_report_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    from mustmaybe.analysis._report import _records_frozen

    alive = [[i] for i in range(1000)]  # the caller's records
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with _records_frozen():
        assert gc.get_freeze_count() >= len(alive)  # kept out of the collector's passes while the report runs
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a caller that froze objects of its own: left frozen, exactly as they were
    try:
        mine = gc.get_freeze_count()
        with _records_frozen():
            assert gc.get_freeze_count() == mine
        assert gc.get_freeze_count() == mine
    finally:
        gc.unfreeze()
