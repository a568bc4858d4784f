"""Agreement statistics against values computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from mustmaybe.analysis import cohen_kappa, fleiss_kappa, krippendorff_alpha, pair_agreement


def test_cohen_textbook() -> None:
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    # p_o = (20 + 15) / 50 = 0.7
    # A says yes 25/50 = 0.5, B says yes 30/50 = 0.6
    # p_e = 0.5·0.6 + 0.5·0.4 = 0.3 + 0.2 = 0.5
    # kappa = (0.7 − 0.5) / (1 − 0.5) = 0.4
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert pair_agreement(list(zip(a, b, strict=True))) == pytest.approx(0.7)


def test_cohen_skips_missing_items() -> None:
    # The two None items drop out; on the remaining 4: p_o = 3/4; A yes 2/4, B yes 1/4
    # p_e = 0.5·0.25 + 0.5·0.75 = 0.5; kappa = (0.75 − 0.5) / 0.5 = 0.5
    a = [True, True, False, False, None, True]
    b = [True, False, False, False, True, None]
    assert cohen_kappa(a, b) == pytest.approx(0.5)


def test_fleiss_small_table() -> None:
    # 4 items × 3 raters, categories a/b.
    # P_i = (Σ n_ij² − 3) / (3·2): item1 aaa (9−3)/6 = 1; item2 aab (4+1−3)/6 = 1/3;
    # item3 bbb 1; item4 abb 1/3.  P̄ = (1 + 1/3 + 1 + 1/3) / 4 = 2/3
    # p_a = (3+2+0+1)/12 = 1/2, p_b = 1/2; P_e = 1/4 + 1/4 = 1/2
    # kappa = (2/3 − 1/2) / (1 − 1/2) = (1/6) / (1/2) = 1/3
    ratings = [["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"], ["a", "b", "b"]]
    assert fleiss_kappa(ratings) == pytest.approx(1 / 3)
    # Pairwise agreement: agreeing pairs 3 + 1 + 3 + 1 = 8 of 4·3 = 12 → 2/3 (= P̄ here).
    assert pair_agreement(ratings) == pytest.approx(2 / 3)
    # An item with a missing label is not a Fleiss unit: adding one changes nothing.
    assert fleiss_kappa([*ratings, ["a", None, "b"]]) == pytest.approx(1 / 3)


def test_fleiss_wikipedia_example() -> None:
    # Fleiss (1971) as reproduced on Wikipedia: 10 items, 14 raters, 5 categories; kappa ≈ 0.210.
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    ratings = [[c for c, k in enumerate(row) for _ in range(k)] for row in table]
    assert fleiss_kappa(ratings) == pytest.approx(0.20993, abs=5e-5)


# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", nominal data with missing values:
# 4 observers × 12 units (None = missing).
KRIPP = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_nominal_with_missing() -> None:
    # Coincidences per unit (each ordered pair of values weighted 1/(m_u − 1)):
    #  u1 {1,1,1}: o11 += 6/2 = 3          u2 {2,2,3,2}: o22 += 6/3 = 2, o23 = o32 += 3/3 = 1
    #  u3, u4 {3,3,3,3}: o33 += 4 each     u5, u9 {2,2,2,2}: o22 += 4 each
    #  u6 {1,2,3,4}: every o_ck (c≠k) += 1/3    u7 {4,4,4,4}: o44 += 4
    #  u8 {1,1,2,1}: o11 += 2, o12 = o21 += 1   u10 {5,5,5}: o55 += 3   u11 {1,1}: o11 += 2
    #  u12 {3}: one value, unpairable.
    # Diagonal: o11 = 7, o22 = 10, o33 = 8, o44 = 4, o55 = 3 → 32
    # Marginals: n1 = 7 + 4/3 + 1/3 + 1/3 = 9, n2 = 10 + 4/3 + 4/3 + 1/3 = 13, n3 = 8 + 1/3 + 4/3 + 1/3 = 10,
    #            n4 = 4 + 3·1/3 = 5, n5 = 3;  n = 40, so Σ_{c≠k} o_ck = 40 − 32 = 8
    # Σ_{c≠k} n_c n_k = 40² − (81 + 169 + 100 + 25 + 9) = 1600 − 384 = 1216
    # alpha = 1 − (n − 1) · 8 / 1216 = 1 − 312/1216 = 0.74342
    units = [list(col) for col in zip(*KRIPP, strict=True)]
    assert krippendorff_alpha(units) == pytest.approx(1 - 312 / 1216)
    assert round(krippendorff_alpha(units) or 0.0, 3) == 0.743


def test_krippendorff_two_raters_complete() -> None:
    # Two raters, 4 items: (a,a) (a,b) (b,b) (b,b). Coincidences (m = 2, weight 1): o_aa = 2, o_ab = o_ba = 1,
    # o_bb = 4; n_a = 3, n_b = 5, n = 8.  alpha = 1 − 7·2 / (64 − 9 − 25) = 1 − 14/30 = 8/15
    assert krippendorff_alpha([["a", "a"], ["a", "b"], ["b", "b"], ["b", "b"]]) == pytest.approx(8 / 15)


def test_all_agree() -> None:
    ratings = [["a", "a", "a"], ["b", "b", "b"], ["a", "a", "a"]]
    assert pair_agreement(ratings) == 1.0
    assert fleiss_kappa(ratings) == pytest.approx(1.0)
    assert krippendorff_alpha(ratings) == pytest.approx(1.0)
    assert cohen_kappa(["a", "b", "a"], ["a", "b", "a"]) == pytest.approx(1.0)


def test_one_category_only_is_undefined() -> None:
    # Everyone says true everywhere: observed agreement 1 but expected agreement 1 too, so 0/0.
    ratings = [[True, True, True]] * 4
    assert pair_agreement(ratings) == 1.0
    assert fleiss_kappa(ratings) is None
    assert krippendorff_alpha(ratings) is None
    assert cohen_kappa([True] * 4, [True] * 4) is None


def test_rater_that_never_parsed() -> None:
    # Rater 3 is None everywhere: no Fleiss item is complete; alpha and pairwise use raters 1 and 2.
    ratings = [["a", "a", None], ["a", "b", None], ["b", "b", None], ["b", "b", None]]
    assert fleiss_kappa(ratings) is None
    assert krippendorff_alpha(ratings) == pytest.approx(8 / 15)  # as test_krippendorff_two_raters_complete
    assert pair_agreement(ratings) == pytest.approx(3 / 4)
    assert cohen_kappa([r[0] for r in ratings], [r[2] for r in ratings]) is None


def test_nothing_pairable() -> None:
    assert pair_agreement([["a", None], [None, "b"]]) is None
    assert krippendorff_alpha([["a", None], [None, "b"]]) is None
    assert fleiss_kappa([]) is None
    assert cohen_kappa([], []) is None


def test_negative_agreement() -> None:
    # Two raters who always disagree on a/b: p_o = 0, p_e = 0.5·0.5 + 0.5·0.5 = 0.5 → kappa = −1.
    # alpha: o_ab = o_ba = 2, n_a = n_b = 2, n = 4: 1 − 3·4 / (16 − 8) = 1 − 12/8 = −0.5
    a, b = ["a", "b"], ["b", "a"]
    assert cohen_kappa(a, b) == pytest.approx(-1.0)
    assert krippendorff_alpha([["a", "b"], ["b", "a"]]) == pytest.approx(-0.5)
