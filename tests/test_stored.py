"""irscales.stored and the policy it carries (issue 52): the committed derived tables hold the same bytes on every
machine and in every order of work. Floats are stored with ten significant digits; the tests show that no
committed table holds a longer one, and that Fer17's Table 1 divergences — whose last bits moved between two
runs of ``make test`` — round to the committed bytes however the kernel sums are ordered and whichever ``exp``
computes them."""

from __future__ import annotations

import csv
import importlib
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

from irscales.papers import published
from irscales.paths import repo_root
from irscales.stored import SIGNIFICANT_DIGITS, csv_text, stored_float, stored_literal, write_csv

ROOT = repo_root()
fer17_kde = importlib.import_module("irscales.papers.fer17.kde")  # the package exports a function named kde
_FLOAT = re.compile(r"-?(?:(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)")


def _digits(token: str) -> int:
    """Significant digits of a float written as text, trailing zeros not counted (``0.0330055064`` → 9,
    ``1.5e-05`` → 2, ``0.500000`` → 1, ``9007199255000000.0`` → 10)."""
    return len(token.lstrip("-").lower().split("e")[0].replace(".", "").strip("0"))


def _integral(token: str) -> bool:
    return "e" not in token.lower() and set(token.partition(".")[2]) <= {"0"}


# ----------------------------------------------------------------------------------------------- the rounding

def test_ten_significant_digits_counts_and_special_values_kept():
    assert SIGNIFICANT_DIGITS == 10
    assert repr(stored_float(0.03300550640404276)) == "0.0330055064" == repr(stored_float(0.033005506404042755))
    assert stored_float(np.float64(2 / 3)) == 0.6666666667 and stored_float(1e-300 / 3) == 3.333333333e-301
    assert stored_float(1073741824.0) == 1073741824.0 and stored_float(-3.0) == -3.0  # counts stay whole
    assert stored_float(2.0 ** 60) == 1.152921505e18  # past 2^53 an integral float is not a count
    assert math.isnan(stored_float(float("nan"))) and stored_float(float("-inf")) == float("-inf")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_rounding_is_idempotent_short_and_close(x):
    y = stored_float(x)
    assert stored_float(y) == y
    assert _digits(repr(y)) <= SIGNIFICANT_DIGITS or (y.is_integer() and abs(y) < 2.0 ** 53)
    assert abs(y - x) <= 5e-10 * abs(x)


def test_a_computed_float_is_rounded_and_other_text_kept():
    assert stored_literal("0.03300550640404276") == "0.0330055064"
    assert stored_literal("2.4545454545454546") == "2.454545455" and stored_literal("1e-05") == "1e-05"
    assert [stored_literal(t) for t in ("", "3", "3.0", "1/2", "yes", "0.5 (of 2)", "nan")] == \
        ["", "3", "3.0", "1/2", "yes", "0.5 (of 2)", "nan"]


def test_a_frame_is_stored_with_its_floats_rounded_and_nothing_else_changed(tmp_path):
    f = pd.DataFrame({"x": [1 / 3, np.nan, 3.0], "o": ["a", 2 / 3, None], "n": [1, 2, 3]},
                     index=pd.Index([0.1 + 0.2, 2.0, 1 / 7], name="k"))
    text = csv_text(f)
    assert text.splitlines() == ["k,x,o,n", "0.3,0.3333333333,a,1", "2.0,,0.6666666667,2", "0.1428571429,3.0,,3"]
    assert write_csv(f, tmp_path / "t.csv").read_text() == text
    m = f.set_index("n", append=True)
    assert csv_text(m).splitlines()[1] == "0.3,1,0.3333333333,a"
    assert f.loc[2.0, "o"] == 2 / 3  # the caller's frame keeps every digit


def test_a_comparison_file_rounds_what_was_computed_and_keeps_what_was_printed(tmp_path):
    pub = pd.DataFrame([{"item": "t1/a", "location": "Table 1", "context": "", "value": "0.0330", "kind": "trec",
                         "note": ""},
                        {"item": "t1/b", "location": "Table 1", "context": "", "value": "1/2", "kind": "theory",
                         "note": ""}])
    cmp = published.compare("fer17", {"t1/a": 0.03300550640404276, "t1/b": "1/2"}, published=pub, route="real")
    assert cmp.frame.loc[0, "reproduced"] == "0.03300550640404276"  # the frame keeps every digit for display
    rows = list(csv.DictReader(cmp.save(tmp_path / "c.csv").open()))
    assert [(r["published"], r["reproduced"], r["status"]) for r in rows] == \
        [("0.0330", "0.0330055064", "match"), ("1/2", "1/2", "match")]


def test_every_committed_table_stores_floats_with_at_most_ten_significant_digits():
    """Every field of every CSV under figures/ and data/derived/ that is a non-integral float has at most
    :data:`~irscales.stored.SIGNIFICANT_DIGITS` significant digits (a writer that stores every digit fails here)."""
    if ROOT is None:
        pytest.skip("not a source checkout (no figures/)")
    files = [f for f in sorted((ROOT / "figures").rglob("*.csv"))
             if f.relative_to(ROOT / "figures").parts[0] not in ("executed", "public")]  # not committed
    files += sorted((ROOT / "data" / "derived").glob("*.csv"))
    assert len(files) > 50
    long = []
    for f in files:
        lines = [ln for ln in f.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
        for k, row in enumerate(csv.reader(lines), start=1):
            long += [f"{f.relative_to(ROOT)}:{k}: {v}" for v in row
                     if _FLOAT.fullmatch(v) and not _integral(v) and _digits(v) > SIGNIFICANT_DIGITS]
    assert not long, f"{len(long)} floats with more than {SIGNIFICANT_DIGITS} digits, e.g. {long[:5]}"


# --------------------------------------------------------------- the divergence whose last bits moved (Fer17 Table 1)

def _ksdensity_reference(x: np.ndarray, xi: np.ndarray, bandwidth: float, order: str) -> np.ndarray:
    """MATLAB's ``ksdensity`` as :func:`irscales.papers.fer17.kde.ksdensity` documents it, computed another way:
    each point's kernels by the C library's ``exp`` (numpy's float64 ``exp`` is its own AVX-512 kernel where the
    CPU has one) summed by distinct value (count × kernel) exactly (``math.fsum``), or by numpy's ``exp`` summed
    one by one from the largest score down (numpy's own sum is pairwise, in blocks of eight)."""
    xs = np.sort(x[~np.isnan(x)])
    n, cut = xs.size, fer17_kde.KSDENSITY_CUTOFF * bandwidth
    out = []
    for v in xi:
        if n * xi.size <= fer17_kde.KSDENSITY_BLOCK:
            window = xs
        else:
            a = min(int(np.searchsorted(xs, v - cut, side="left")), n - 1)
            b = max(a, min(int(np.searchsorted(xs, v + cut, side="right")), n - 1))
            window = xs[a:b + 1]
        if order == "by value, exact":
            values, counts = np.unique(window, return_counts=True)
            out.append(math.fsum(int(c) * math.exp(-0.5 * ((v - w) / bandwidth) ** 2) for w, c in zip(values, counts)))
        else:
            out.append(float(np.cumsum(np.exp(-0.5 * ((v - window[::-1]) / bandwidth) ** 2))[-1]))
    return np.array(out) / (math.sqrt(2 * math.pi) * n * bandwidth)


def _divergences(x: np.ndarray, y: np.ndarray) -> list[float]:
    """D_KL(x ‖ y) of Fer17 Table 1: the library's, on shuffled and reversed samples, and by the references."""
    rng = np.random.default_rng(52)
    xi, b = fer17_kde.MATTERS_GRID, fer17_kde.BANDWIDTH
    out = [fer17_kde.kl_divergence_matters(x, y), fer17_kde.kl_divergence_matters(rng.permutation(x), y[::-1])]
    for order in ("by value, exact", "one by one, descending"):
        out.append(fer17_kde.kl_divergence_trapz(_ksdensity_reference(x, xi, b, order),
                                                 _ksdensity_reference(y, xi, b, order), xi))
    return out


def test_a_divergence_is_stored_the_same_whatever_the_order_and_the_exp():
    """A sample shaped like Table 1's (scores in [0, 1] with ties, a few thousand against tens of thousands, so the
    kernel is cut as for large samples) and a small one (every kernel summed): the divergences computed four ways
    differ in their last bits, and store the same bytes."""
    rng = np.random.default_rng(2017)
    for nx, ny in ((5_000, 40_000), (200, 240)):
        x = np.round(rng.beta(0.8, 3.0, nx), 4)
        y = np.concatenate([rng.beta(0.7, 2.5, ny - ny // 10), np.zeros(ny // 10)])
        values = _divergences(x, y)
        assert len(set(values)) > 1, "the perturbations should move the last bits (else this test shows nothing)"
        assert values[0] == values[1]  # the KDE sorts its sample first: the input order cannot matter
        assert len({stored_literal(repr(v)) for v in values}) == 1, values


@pytest.mark.data
def test_table1_t07_divergences_are_the_committed_bytes_whatever_the_order_and_the_exp():
    """Fer17 Table 1, row T07 (the published TREC-7 score tables against the authors' grid; AP moved from
    0.03300550640404276 to 0.033005506404042755 between two runs of make test): computed four ways, each rounds
    to what figures/fer17/published_vs_reproduced_real_gop.csv holds."""
    from irscales import paths
    from irscales.papers.fer17 import real_gop

    if paths.gop_dir() is None or paths.scores_dir() is None:
        pytest.skip("the authors' Grid of Points or the TREC-7 score tables are absent (IRSCALES_SHARED)")
    if ROOT is None:
        pytest.skip("not a source checkout (no figures/)")
    committed = pd.read_csv(ROOT / "figures" / "fer17" / "published_vs_reproduced_real_gop.csv", dtype=str,
                            keep_default_na=False).set_index("item")["reproduced"]
    grid, original = real_gop.load_gop("T07", measures=("AP", "P@10")), real_gop.original_t07()
    for key, label in (("AP", "AP"), ("P@10", "P@10")):
        values = _divergences(np.ravel(original[key]), grid.scores[key].to_numpy().ravel())
        assert {stored_literal(repr(v)) for v in values} == {committed[f"table1/T07/{label}"]}, (label, values)
