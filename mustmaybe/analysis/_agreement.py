"""Inter-rater agreement for nominal labels: pairwise agreement, Cohen's, Fleiss' kappa, Krippendorff's alpha.

Ratings are items × raters; a missing label (a judge whose answer did not parse) is None. Every
function returns None when its statistic is undefined rather than a number made up for the case:
no pairable values, or an expected agreement of 1 (every value in one category, so chance agreement
is perfect and the chance-corrected ratio is 0/0). The arithmetic is exact (fractions), so "expected
disagreement is zero" is a test of equality, never of a float being small; the result is a float.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction
from itertools import combinations

Label = Hashable
Ratings = Sequence[Sequence[Label | None]]


def _present(row: Sequence[Label | None]) -> list[Label]:
    return [v for v in row if v is not None]


def pair_agreement(ratings: Ratings) -> float | None:
    """Share of agreeing rater pairs, pooled over every pair of labels given to the same item.

    Items with fewer than two labels have no pair and are skipped; None when no item has a pair.
    With two raters this is the plain observed agreement of Cohen's kappa.
    """
    agree = pairs = 0
    for row in ratings:
        vals = _present(row)
        for a, b in combinations(vals, 2):
            pairs += 1
            agree += a == b
    return agree / pairs if pairs else None


def cohen_kappa(a: Sequence[Label | None], b: Sequence[Label | None]) -> float | None:
    """Cohen's kappa of two raters over the items both labeled.

    None when no item is labeled by both, or when chance agreement is 1 (both raters used one and
    the same category throughout).
    """
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa: the raters labeled {len(a)} and {len(b)} items")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    n = len(pairs)
    if n == 0:
        return None
    observed = Fraction(sum(x == y for x, y in pairs), n)
    ca, cb = Counter(x for x, _ in pairs), Counter(y for _, y in pairs)
    expected = sum((Fraction(ca[k], n) * Fraction(cb[k], n) for k in ca), Fraction(0))
    if expected == 1:
        return None
    return float((observed - expected) / (1 - expected))


def fleiss_kappa(ratings: Ratings) -> float | None:
    """Fleiss' kappa over the items every rater labeled (an item with a missing label is left out).

    None with fewer than two raters, no complete item, or chance agreement of 1 (one category only).
    """
    rows = [list(r) for r in ratings if len(r) >= 2 and all(v is not None for v in r)]
    if not rows:
        return None
    m = len(rows[0])
    if any(len(r) != m for r in rows):
        raise ValueError("fleiss_kappa: every item needs the same number of raters")
    n_items = len(rows)
    totals: Counter[Label] = Counter()
    p_bar = Fraction(0)
    for r in rows:
        counts = Counter(r)
        totals.update(counts)
        # P_i: the share of agreeing ordered rater pairs on item i.
        p_bar += Fraction(sum(c * c for c in counts.values()) - m, m * (m - 1))
    p_bar /= n_items
    p_e = sum((Fraction(c, n_items * m) ** 2 for c in totals.values()), Fraction(0))
    if p_e == 1:
        return None
    return float((p_bar - p_e) / (1 - p_e))


def krippendorff_alpha(ratings: Ratings) -> float | None:
    """Krippendorff's alpha for nominal data, missing values allowed (Krippendorff 2011).

    Built from the coincidence matrix: each item with m_u >= 2 values adds 1/(m_u - 1) for every
    ordered pair of its values; items with one value are unpairable and drop out. With n the number
    of pairable values and n_c the marginal of category c,

        alpha = 1 - (n - 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k

    None when fewer than two values are pairable or every pairable value is in one category
    (expected disagreement 0).
    """
    off_diag = Fraction(0)
    marg: Counter[Label] = Counter()
    for row in ratings:
        vals = _present(row)
        m = len(vals)
        if m < 2:
            continue
        counts = Counter(vals)
        marg.update(counts)
        # Ordered pairs of different values in this item: m² − Σ count², each weighted 1/(m − 1).
        off_diag += Fraction(m * m - sum(c * c for c in counts.values()), m - 1)
    n = sum(marg.values())
    if n < 2:
        return None
    expected = n * n - sum(c * c for c in marg.values())  # Σ_{c≠k} n_c n_k
    if expected == 0:
        return None
    return float(1 - (n - 1) * off_diag / expected)
