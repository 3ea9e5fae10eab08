"""Input and result types of the significance procedures (:mod:`irscales.stats._significance`).

A score matrix ``(T topics, S systems)`` of floats or :class:`fractions.Fraction` is read once by
:func:`prepare_scores` (exact order codes for every tie decision, scaled integers when the
Fractions share a 64-bit common denominator); every procedure returns one :class:`PairwiseTest`
— the one result type — for the ``S(S-1)/2`` system pairs in :func:`pairs` order, and
:class:`SignificanceResult` holds several of them for one matrix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from irscales.exact import common_denominator
from irscales.options import SIGNIFICANCE
from irscales.ranks import dense_ranks

__all__ = ["TESTS", "TEST_LABELS", "ORDINAL_TESTS", "PreparedScores", "prepare_scores", "unit_image", "check_alpha", "pairs",
           "PairwiseTest", "SignificanceResult"]

#: Test keys in the order of FFF21 Tables 5–6 (:data:`irscales.options.SIGNIFICANCE`).
TESTS = tuple(p.key for p in SIGNIFICANCE)
#: Row labels of FFF21 Tables 5–6.
TEST_LABELS = {p.key: p.label for p in SIGNIFICANCE}
#: Tests that assume only an ordinal scale (grey rows of FFF21 Tables 5–6, §2.5).
ORDINAL_TESTS = frozenset(p.key for p in SIGNIFICANCE if p.ordinal)


@dataclass(frozen=True)
class PreparedScores:
    """A ``(T, S)`` score matrix read once for all procedures: float ``values`` for the parametric
    statistics (the input for floats, :func:`unit_image` for exact input), exact order ``codes`` over
    the whole matrix, the exact values (``exact``: Fractions, or the Python ints given; None for float input and
    64-bit integers), the
    ``systems`` names and, when they fit, the exact scores as int64 ``scaled`` = exact · L
    (``integers``: the same for any exact input, as Python ints when they do not fit)."""

    values: np.ndarray          # (T, S) float (exact input: its affine image onto [0, 1])
    codes: np.ndarray           # (T, S) int64, exact order codes over the whole matrix
    exact: np.ndarray | None    # (T, S) object Fractions (Python ints, as given), or None for float input
    systems: tuple[str, ...]
    scaled: np.ndarray | None = None  # (T, S) int64 = exact · L (common denominator), if it fits
    integers: np.ndarray | None = None  # (T, S) exact · L for any exact input: int64, else Python ints


def prepare_scores(scores: ArrayLike | PreparedScores, systems: Sequence[str] | None = None) -> PreparedScores:
    """Check a ``(T, S)`` matrix (≥ 2 topics and systems, finite, distinct system names) and read it
    as :class:`PreparedScores`; an already prepared matrix is returned as it is."""
    if isinstance(scores, PreparedScores):  # prepared once by significance_tests for all its procedures
        return scores
    a = np.asarray(scores)
    if a.ndim != 2:
        raise ValueError(f"scores must be a (T topics, S systems) matrix, got shape {a.shape}")
    t, s = a.shape
    if t < 2 or s < 2:
        raise ValueError(f"scores must have at least 2 topics and 2 systems, got shape {a.shape}")
    codes = dense_ranks(a)  # also rejects NaN and non-numbers, with the index of the culprit
    scaled = None
    if np.issubdtype(a.dtype, np.integer):
        values = unit_image(a)
        if -2**61 <= int(a.min()) and int(a.max()) <= 2**61:
            exact, scaled = None, a.astype(np.int64)  # exact integer arithmetic (common denominator 1)
        else:
            exact = a.astype(object)  # Python ints, exact as they are
    elif a.dtype == object:
        # Python ints (φ beyond int64) are exact as they are: no Fraction per entry (issue 49)
        exact = a if all(type(x) is int for x in a.ravel().tolist()) else np.vectorize(Fraction, otypes=[object])(a)
        values = None  # the unit image of the integers on the common denominator, made below
    else:
        exact = None
        if np.isinf(a).any():
            where = tuple(int(i) for i in np.argwhere(np.isinf(a))[0])
            raise ValueError(f"scores contain an infinite value at (topic, system) = {where}")
        values = _tame_floats(a.astype(float))
    if systems is None:
        names = tuple(str(k) for k in range(s))
    else:
        names = tuple(str(x) for x in systems)
        if len(names) != s:
            raise ValueError(f"{len(names)} system names given for {s} systems (columns of scores)")
        if len(set(names)) != s:
            raise ValueError("system names must be distinct")
    integers = scaled
    if exact is not None:  # exact · L in int64 when |a − b| stays below 2**62
        common = common_denominator(exact, headroom_bits=2)
        scaled = common.ints if common.fits_int64() else None
        integers = common.ints
        if values is None:  # the same image: (x − lo)/span is unchanged by the common factor L
            values = unit_image(integers)
    return PreparedScores(values, codes, exact, names, scaled, integers)


def unit_image(a: ArrayLike) -> np.ndarray:
    """The float image of an exact matrix (integers, or an object array of ints / Fractions) that the
    parametric statistics use: the positive affine map onto [0, 1], (x − min) / (max − min), computed
    exactly and rounded once per entry (all zeros when every entry is equal).

    t, F and Tukey's q are invariant under positive affine maps, so they are unchanged in exact
    arithmetic; in floating point this image makes them (1) safe from overflow and from the loss of
    low bits of integers above 2^53 (the ranked measure φ reaches 2^1000 at depth 1000: its squares
    overflow a double), and (2) *identical, bit for bit*, for every positive affine transform of the
    same exact scores: φ and its normalised (φ − 1)/(K − 1) (interval scales admit exactly these
    maps, FFF21 §2) have the same image, hence the same statistics and decisions.
    """
    a = np.asarray(a)
    if a.size == 0:
        return np.zeros(a.shape)
    if a.dtype != object:
        lo, hi = int(a.min()), int(a.max())
        span = hi - lo
        if span == 0:
            return np.zeros(a.shape)
        if span < 2**53 and -2**62 <= lo and hi <= 2**62:  # x − lo and span are exact doubles
            return (a.astype(np.int64) - lo).astype(float) / float(span)
        a = a.astype(object)
    flat = a.ravel().tolist()
    if not all(type(x) is int for x in flat):  # Fractions: as integers on their common denominator
        flat = common_denominator([Fraction(x) for x in flat]).ints.tolist()
    lo, hi = min(flat), max(flat)
    span = hi - lo
    if span == 0:
        return np.zeros(a.shape)
    # int / int true division is correctly rounded: the float of the Fraction (x − lo)/span, which Fraction's
    # float() computes by the same division (tests/test_significance.py), 10x faster than Fraction arithmetic
    return np.fromiter(((x - lo) / span for x in flat), dtype=float, count=len(flat)).reshape(a.shape)


def _tame_floats(v: np.ndarray) -> np.ndarray:
    """Float scores scaled by a power of two (exact) when their squares could overflow; unchanged
    otherwise (every score in [0, 1], as most measures give, is left alone)."""
    big = float(np.abs(v).max(initial=0.0))
    if big <= 2.0**64:
        return v
    return np.ldexp(v, -math.frexp(big)[1])


def check_alpha(alpha: float) -> Fraction:
    """The significance level α as an exact Fraction (its shortest decimal); 0 < α < 1."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return Fraction(repr(float(alpha)))


def pairs(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of all system pairs, in the order every result uses."""
    return np.triu_indices(n_systems, 1)


# --------------------------------------------------------------------------- result objects


@dataclass(frozen=True, kw_only=True)
class PairwiseTest:
    """Outcome of one procedure for every system pair (arrays of length S(S-1)/2).

    ``statistic`` is the per-pair statistic named by ``statistic_name``; ``pvalue`` its two-sided
    p-value (NaN where undefined or not computed); ``significant`` the decision at ``alpha``.
    ``omnibus`` holds the overall test of the all-systems procedures (statistic, df, p-value).
    """

    test: str
    alpha: float
    systems: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    significant: np.ndarray
    statistic_name: str
    omnibus: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return TEST_LABELS[self.test]

    @property
    def n_significant(self) -> int:
        return int(self.significant.sum())

    def significant_pairs(self) -> set[tuple[str, str]]:
        """The significantly different pairs, as (system, system) names."""
        sig = np.flatnonzero(self.significant)
        return {(self.systems[self.first[k]], self.systems[self.second[k]]) for k in sig}

    def to_frame(self) -> pd.DataFrame:
        """One row per system pair: system_a, system_b, statistic, pvalue, significant."""
        return pd.DataFrame({
            "test": self.test,
            "system_a": np.asarray(self.systems, dtype=object)[self.first],
            "system_b": np.asarray(self.systems, dtype=object)[self.second],
            self.statistic_name: self.statistic,
            "pvalue": self.pvalue,
            "significant": self.significant,
        })

    def to_latex(self) -> str:
        return self.to_frame().to_latex(index=False, float_format="%.4g")


@dataclass(frozen=True)
class SignificanceResult:
    """Several procedures run on one score matrix: ``tests[key]`` is a :class:`PairwiseTest`."""

    tests: dict[str, PairwiseTest]

    def __getitem__(self, key: str) -> PairwiseTest:
        return self.tests[key]

    @property
    def systems(self) -> tuple[str, ...]:
        return next(iter(self.tests.values())).systems

    def to_frame(self) -> pd.DataFrame:
        """Summary: one row per test with its label, omnibus result and number of significant pairs."""
        rows = []
        for key, res in self.tests.items():
            rows.append({
                "test": key, "label": res.label, "pairs": len(res.significant),
                "significant": res.n_significant,
                "omnibus_statistic": res.omnibus.get("statistic", np.nan),
                "omnibus_pvalue": res.omnibus.get("pvalue", np.nan),
            })
        return pd.DataFrame(rows)

    def pairs_frame(self) -> pd.DataFrame:
        """All tests' per-pair decisions: one row per pair, one boolean column per test."""
        first = next(iter(self.tests.values()))
        names = np.asarray(first.systems, dtype=object)
        out = pd.DataFrame({"system_a": names[first.first], "system_b": names[first.second]})
        for key, res in self.tests.items():
            out[key] = res.significant
        return out

    def to_latex(self) -> str:
        return self.to_frame().to_latex(index=False, float_format="%.4g")
