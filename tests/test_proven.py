"""irscales.stats.proven and the comparison over bracketed values (issue 51): every decision proven for every
value inside the brackets or undecided; the p-value ranges hold the p-value of every point of the box; exact
values keep the table of before; τ and τ_AP ranges hold every point's."""

from __future__ import annotations

import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from irscales import evaluate
from irscales.certified import Bounds, ScoreBox, kendall_tau_range, mean_bounds, tau_ap_range
from irscales.comparison import PROVEN, UNDECIDED, comparison_table, corrected
from irscales.correlation import kendall_tau, system_means, tau_ap_symmetric
from irscales.paths import shared_dir
from irscales.stats import _significance as S
from irscales.stats.proven import (outcomes, pair_box, proven_corrected, proven_randomisation_test,
                                   proven_signed_rank_test, proven_test)
from irscales.stats._randomisation import randomisation_test
from irscales.stats._results import pairs

ALPHA = 0.05


def _box(rng, t: int, s: int, width: int = 6, grid: int = 200):
    """Scores on a grid of hundredths, brackets up to ``width`` hundredths each way (some points)."""
    mid = rng.integers(0, grid, size=(t, s))
    w = rng.integers(0, width + 1, size=(t, s)) * (rng.random((t, s)) < 0.8)
    frac = np.vectorize(lambda a: Fraction(int(a), 100), otypes=[object])
    return frac(mid - w), frac(mid + w)


def _point(lo, hi, rng):
    """A random point of the box, exact (a rational inside every bracket)."""
    u = rng.integers(0, 1025, size=lo.shape)
    return lo + (hi - lo) * np.vectorize(lambda k: Fraction(int(k), 1024), otypes=[object])(u)


def _point_decision(v, key: str, correction: str = "holm", permutations: int = 200, exact_up_to: int = 8):
    """(p, significant) of the test at one point, as the comparison takes it (NaN p: 1, not significant)."""
    if key == "randomisation":
        r = randomisation_test(v, ALPHA, permutations=permutations, exact_up_to=exact_up_to)
    else:
        r = S.significance_tests(v, tests=(key,), alpha=ALPHA, pvalues=key == "anova2")[key]
    if key == "anova2":
        return r.pvalue, r.significant
    p = np.where(np.isnan(r.pvalue), 1.0, r.pvalue)
    return p, corrected(p, ALPHA, correction)[1]


def _proven(lo, hi, key, correction="holm", keys=None, ordered=False, p_mid=None):
    box = ScoreBox(lo, hi, keys, ordered)
    pb = pair_box(box)
    if key == "randomisation":
        pt = proven_randomisation_test(pb, permutations=200, exact_up_to=8)
    elif key == "signrank":
        pt = proven_signed_rank_test(pb, p_mid)
    else:
        pt = proven_test(box, key, ALPHA, pvalues=True)
    fam = np.ones(pb.lo.shape[1], dtype=bool)
    sure, possible = (pt.sure, pt.possible) if key == "anova2" else proven_corrected(pt.p_lo, pt.p_hi, fam, ALPHA,
                                                                                     correction, corrected)
    return pt, sure, possible, outcomes(pt, sure, possible)


@pytest.mark.parametrize("key", ["ttest", "sign", "randomisation", "anova2", "signrank"])
@pytest.mark.parametrize("seed", range(4))
def test_every_point_of_the_box_has_its_p_value_in_the_range_and_its_decision_among_the_possible(key, seed):
    rng = np.random.default_rng(seed)
    t = 12 if key != "signrank" else 24
    lo, hi = _box(rng, t, 5, width=3 if key == "signrank" else 6)
    correction = ("holm", "bonferroni", "none")[seed % 3]
    p_mid, _ = _point_decision((lo + hi) / 2, key, correction)
    pt, sure, possible, oc = _proven(lo, hi, key, correction, p_mid=p_mid)
    assert (sure <= possible).all()
    i, j = pairs(5)
    for _ in range(60):
        v = _point(lo, hi, rng)
        p, sig = _point_decision(v, key, correction)
        if key != "anova2" or not np.isnan(pt.p_lo).all():
            ok = np.isnan(p) | ((pt.p_lo <= p) & (p <= pt.p_hi)) if key != "signrank" else ~np.isnan(pt.p_lo)
            if key == "signrank":  # fixed signs and ranks: p is the midpoints' where the pair is not open
                closed = ~pt.open_pairs
                ok = ~closed | ((pt.p_lo <= p) & (p <= pt.p_hi))
            assert ok.all(), (key, np.c_[pt.p_lo, p, pt.p_hi][~ok])
        assert (sig >= sure).all() and (sig <= possible).all()
        means = system_means(v)
        for k in np.flatnonzero(oc["proven"]):
            want = "not" if not sig[k] else "a" if means[i[k]] > means[j[k]] else "b" if means[i[k]] < means[j[k]] \
                else "none"
            assert oc[want][k], (key, k, want)


def test_the_t_test_of_points_is_proven_and_its_p_range_is_the_point():
    """A box of points: lo = hi, the t test's range is its p (up to the margin), every decision away from α
    proven."""
    rng = np.random.default_rng(5)
    lo, _ = _box(rng, 15, 6)
    p, sig = _point_decision(lo, "ttest")
    pt, sure, possible, oc = _proven(lo, lo, "ttest")
    assert np.allclose(pt.p_lo, p, rtol=1e-8) and np.allclose(pt.p_hi, p, rtol=1e-8)
    adj, _ = corrected(p, ALPHA, "holm")
    far = np.abs(adj - ALPHA) > 1e-6
    assert (oc["proven"][far]).all() and (sure[far] == sig[far]).all()


def test_ordered_keys_fix_the_signs_so_the_sign_test_is_decided_as_on_the_exact_values():
    """With the exact measure values as keys (φ orders within a topic as the measure does), every paired sign is
    known: the sign test over the box has one p per pair, the p of the keys."""
    rng = np.random.default_rng(3)
    values = rng.integers(0, 40, size=(20, 5))
    lo = np.vectorize(lambda x: Fraction(int(x) * 10 - 4), otypes=[object])(values)
    hi = lo + 8  # brackets of neighbouring values overlap
    pt = proven_test(ScoreBox(lo, hi, values, ordered=True), "sign")
    p, _ = _point_decision(values, "sign")
    assert (pt.p_lo == p).all() and (pt.p_hi == p).all()
    loose = proven_test(ScoreBox(lo, hi), "sign")
    assert (loose.p_lo <= p).all() and (p <= loose.p_hi).all() and (loose.p_hi - loose.p_lo).max() > 0


def test_equal_keys_fix_a_difference_at_zero():
    lo = np.array([[Fraction(1), Fraction(1)], [Fraction(2), Fraction(3)], [Fraction(0), Fraction(3)]], dtype=object)
    hi = lo + 2
    pb = pair_box(ScoreBox(lo, hi, np.array([[7, 7], [1, 2], [3, 4]])))
    assert pb.lo[0, 0] == pb.hi[0, 0] == 0 and pb.sign[0, 0] == 0 and pb.sign[1, 0] == 2 and pb.sign[2, 0] == -1


def test_tau_ap_range_holds_every_point_and_is_the_point_on_exact_values():
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(3, 9))
        xl, xw = rng.integers(0, 30, n), rng.integers(0, 4, n) * (rng.random(n) < 0.7)
        yl, yw = rng.integers(0, 30, n), rng.integers(0, 4, n)
        r = tau_ap_range((xl, xl + xw), (yl, yl + yw))
        for _ in range(25):
            x, y = xl + rng.random(n) * xw, yl + rng.random(n) * yw
            try:
                v = tau_ap_symmetric(x, y)
            except ValueError:  # tied systems: τ_AP undefined there
                continue
            assert r.lo <= v <= r.hi
    x, y = rng.permutation(8), rng.permutation(8)
    e = tau_ap_range(x, y)
    assert e.exact and e.lo == e.hi == tau_ap_symmetric(x, y)
    assert np.isnan(tau_ap_range([1, 1, 2], [1, 2, 3]).lo)


def _tables(scores, boxes, **kw):
    orig = {m: v for m, v in scores.items()}
    return comparison_table(orig, {m: v for m, v in scores.items()}, list("abcde"), boxes=boxes, **kw)


@pytest.mark.parametrize("test", ["t", "sign", "randomisation", "wilcoxon", "tukey"])
def test_a_box_of_points_changes_nothing_and_a_bracketed_column_marks_its_undecided_pairs(test):
    rng = np.random.default_rng(11)
    lo, hi = _box(rng, 12, 5, width=8)
    mid = (lo + hi) / 2
    plain = comparison_table({"M": mid}, {"M": mid}, list("abcde"), test=test, baseline="a", permutations=300)
    points = comparison_table({"M": mid}, {"M": mid}, list("abcde"), test=test, baseline="a", permutations=300,
                              boxes={"M": ScoreBox(mid, mid)})
    for f in ("to_markdown", "to_latex", "to_csv", "__str__"):
        assert getattr(plain, f)() == getattr(points, f)()
    assert plain.pairs_frame().equals(points.pairs_frame()) and (plain.pairs["proven"] == PROVEN).all()
    boxed = comparison_table({"M": mid}, {"M": mid}, list("abcde"), test=test, baseline="a", permutations=300,
                             boxes={"M": ScoreBox(lo, hi)})
    iv = boxed.pairs_frame().query("scale == 'interval'")
    assert set(iv["proven"]) <= {PROVEN, UNDECIDED}
    counts = boxed.decision_counts().set_index("scale")
    assert counts.loc["interval", "undecided"] == (iv["proven"] == UNDECIDED).sum()
    assert (iv["mean_difference_lo"] <= iv["mean_difference"]).all() and \
        (iv["mean_difference"] <= iv["mean_difference_hi"]).all()
    assert "Bracketed interval values" in boxed.legend and "Bracketed" not in plain.legend
    f = boxed.to_frame().query("scale == 'interval'")
    assert (f["mean_lo"] <= f["mean"]).all() and (f["mean"] <= f["mean_hi"]).all()
    if (iv["proven"] == UNDECIDED).any():
        assert "?" in boxed.to_markdown() and "undecided" in boxed.to_csv()


# ------------------------------------------------------------------------- real runs (the done-when)


def _r04_folder() -> Path:
    shared = shared_dir()
    folder = shared / "trec" / "R04-partial" if shared else None
    if folder is None or not folder.is_dir():
        pytest.skip("real Robust 2004 runs not found under <IRSCALES_SHARED>/trec/R04-partial (not redistributable)")
    return folder


@pytest.fixture(scope="module")
def r04_100():
    folder = _r04_folder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@100 and the bracket's notes
        return evaluate(folder / "qrels.robust2004.txt.gz", sorted((folder / "runs").iterdir()),
                        ["AP", "nDCG@100", "RBP_p08"], depth=100, ranked=True, ties="mid", progress=False)


class _Draws:
    """Random points of an evaluation's box of φ, as 2φ (integers: φ takes half-integer values with ties mid),
    drawn uniformly on the integers of each bracket [2 φ_lo, 2 φ_hi], the same for equal keys of a topic and,
    for ordered keys, in the keys' order (a topic drawn out of order is drawn again value by value: each above
    the previous one and low enough to leave an integer step to each larger key below its upper end, a nonempty
    range since the true 2φ are such integers)."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray, keys: np.ndarray, ordered: bool):
        self.lo = np.vectorize(lambda x: int(2 * x), otypes=[object])(lo)
        self.hi = np.vectorize(lambda x: int(2 * x), otypes=[object])(hi)
        self.keys, self.ordered = keys, ordered
        t, s = keys.shape
        self.perm = np.array([sorted(range(s), key=lambda x: keys[u, x]) for u in range(t)]) if ordered else None
        self.rep = np.array([[min(x for x in range(s) if keys[u, x] == keys[u, y]) for y in range(s)]
                             for u in range(t)])

    def draw(self, rng) -> np.ndarray:
        k = rng.integers(0, 4097, size=self.lo.shape).astype(object)
        v = self.lo + (self.hi - self.lo) * k // 4096
        v = np.take_along_axis(v, self.rep, axis=1)  # equal keys: one value
        if self.ordered:
            vs = np.take_along_axis(v, self.perm, axis=1)
            ks = np.take_along_axis(self.keys, self.perm, axis=1)
            bad = np.flatnonzero(((ks[:, 1:] != ks[:, :-1]) & (vs[:, 1:] <= vs[:, :-1])).any(axis=1))
            for t in bad:
                self._in_order(v, t, rng)
        return v

    def _in_order(self, v: np.ndarray, t: int, rng) -> None:
        order = [x for x in self.perm[t] if self.rep[t, x] == x]
        cap = [None] * len(order)  # the largest 2φ leaving one integer step to each larger key below its upper end
        for n in range(len(order) - 2, -1, -1):
            nxt = self.hi[t, order[n + 1]] if cap[n + 1] is None else min(self.hi[t, order[n + 1]], cap[n + 1])
            cap[n] = nxt - 1
        prev = None
        for n, x in enumerate(order):
            a = self.lo[t, x] if prev is None else max(self.lo[t, x], prev + 1)
            b = self.hi[t, x] if cap[n] is None else min(self.hi[t, x], cap[n])
            assert a <= b, f"topic {t}: no room for a value in the keys' order"
            v[t, x] = prev = a + (b - a) * int(rng.integers(0, 4097)) // 4096
        v[t] = v[t, self.rep[t]]


@pytest.mark.data  # reads the shared Robust 2004 runs
@pytest.mark.parametrize("test, points", [("t", 1000), ("sign", 150), ("tukey", 150), ("wilcoxon", 60),
                                          ("randomisation", 30)])
def test_r04_at_N_100_every_decision_is_proven_or_undecided_and_a_proven_one_holds_inside_the_brackets(
        r04_100, test, points):
    """The 10 real Robust 2004 runs at N = 100 (AP ties mid, nDCG@100, RBP_p08; bracketed within 1 %): every pair
    of the comparison table is proven or undecided, and at random points inside the brackets (φ drawn uniformly in
    each bracket, one per run, in the order the exact measure values fix) the test's decision equals every proven
    one."""
    ev = r04_100
    perms = 500
    table = ev.compare(test=test, permutations=perms)
    pf = table.pairs_frame()
    assert set(pf["proven"]) <= {PROVEN, UNDECIDED}
    assert set(table.bracketed) == set(ev.measures)
    key = {"t": "ttest", "sign": "sign", "tukey": "anova2", "wilcoxon": "signrank", "randomisation": "randomisation"}[test]
    rng = np.random.default_rng(51)
    i, j = pairs(len(ev.systems))
    names = np.array(ev.systems)
    for lab in ev.measures:
        iv, box = ev.interval_values(lab), ev.interval_box(lab)
        rows = pf[(pf.measure == lab) & (pf.scale == "interval")].set_index(["system_a", "system_b"])
        proven = rows["proven"].to_numpy() == PROVEN
        want_sig = rows["significant"].to_numpy()
        assert proven.sum() > 0.8 * len(rows) or test == "wilcoxon"
        assert list(zip(rows.index.get_level_values(0), rows.index.get_level_values(1))) == \
            list(zip(names[i], names[j]))
        draws = _Draws(iv.phi_lo, iv.phi_hi, box.keys, box.ordered)
        for _ in range(-(-points // len(ev.measures))):  # ``points`` points in all
            phi = draws.draw(rng)  # 2φ: the tests are invariant under positive affine maps
            if key == "randomisation":
                r = randomisation_test(phi, ALPHA, permutations=perms, seed=0)
                p = np.where(np.isnan(r.pvalue), 1.0, r.pvalue)
                sig = corrected(p, ALPHA, "holm")[1]
            else:
                p, sig = _point_decision(phi, key)
            assert (sig[proven] == want_sig[proven]).all(), (lab, test)
            d = system_means(phi)
            better = np.where(d[i] > d[j], names[i], np.where(d[i] < d[j], names[j], ""))
            want_better = rows["better"].to_numpy()
            assert (better[proven & want_sig] == want_better[proven & want_sig]).all()


@pytest.mark.data  # reads the shared Robust 2004 runs
def test_r04_exact_at_N_20_keeps_the_table_of_before(tmp_path):
    """N ≤ 24: exact routes, no box; the table is the one comparison_table gives without boxes, bit for bit, and
    every decision is proven."""
    folder = _r04_folder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(folder / "qrels.robust2004.txt.gz", sorted((folder / "runs").iterdir()),
                      ["AP", "P@10", "RBP_p08"], depth=20, ranked=True, ties="mid", progress=False)
    assert all(ev.interval_box(lab) is None for lab in ev.measures)
    table = ev.compare(baseline=ev.systems[0])
    before = comparison_table({lab: ev.decision_values(lab) for lab in ev.measures},
                              {lab: ev.interval_values(lab).unit for lab in ev.measures}, ev.systems,
                              baseline=ev.systems[0], rel=ev.collection.binary(20), depth=20,
                              notes=table.notes)
    for f in ("to_markdown", "to_latex", "to_csv", "__str__"):
        assert getattr(table, f)() == getattr(before, f)()
    assert table.pairs_frame().equals(before.pairs_frame())
    assert (table.pairs_frame()["proven"] == PROVEN).all() and not table.bracketed


@pytest.mark.data  # reads the shared Robust 2004 runs
def test_r04_tau_ranges_hold_the_tau_of_points_inside_the_brackets(r04_100):
    ev = r04_100
    taus, _ = ev.correlations()
    rng = np.random.default_rng(9)
    draws = {lab: [] for lab in ev.measures}
    for lab in ev.measures:
        iv, box = ev.interval_values(lab), ev.interval_box(lab)
        d = _Draws(iv.phi_lo, iv.phi_hi, box.keys, box.ordered)
        for _ in range(20):
            draws[lab].append(system_means(d.draw(rng)))
        mb = ev.interval_mean_bounds(lab)
        assert (mb.lo <= system_means(iv.unit)).all() and (system_means(iv.unit) <= mb.hi).all()
    for r in taus.itertuples():
        assert r.tau_interval_min <= r.tau_interval <= r.tau_interval_max
        for a, b in zip(draws[r.measure_a], draws[r.measure_b]):
            assert r.tau_interval_min <= kendall_tau(a, b) <= r.tau_interval_max  # φ: an affine image
            assert r.tau_ap_interval_min <= tau_ap_symmetric(a, b) <= r.tau_ap_interval_max


# ------------------------------------------------------------ brackets where the exact values are known too


def _inputs(rel: np.ndarray):
    """``evaluate``'s in-memory qrels and runs for binary relevance ``rel`` (S, T, N)."""
    S_, T, N = rel.shape
    qrels = {f"q{t}": {f"d{t}-{s}-{i}": int(rel[s, t, i]) for s in range(S_) for i in range(N)} for t in range(T)}
    runs = {f"s{s}": {f"q{t}": {f"d{t}-{s}-{i}": float(N - i) for i in range(N)} for t in range(T)} for s in range(S_)}
    return qrels, runs


@pytest.fixture(scope="module")
def bracketed_and_exact():
    """RBP_p08 and AP (ties mid) at N = 30 on 8 simulated runs × 30 topics: once bracketed within 10 % (the exact
    route made prohibitive), once exact."""
    from irscales.enumeration import routes

    rng = np.random.default_rng(30)
    rate = np.linspace(0.15, 0.75, 8)[:, None, None]  # runs of different quality: significant pairs and close ones
    rel = rng.random((8, 30, 30)) < rate / np.sqrt(np.arange(1, 31))
    rel[1] = rel[0]  # a run equal to another: its differences are 0 whatever the brackets
    rel[2, :10] = rel[3, :10]
    args = (*_inputs(rel.astype(int)), ["RBP_p08", "AP"])
    kw = dict(depth=30, ranked=True, ties="mid", progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = evaluate(*args, **kw)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(routes, "EXACT_SECONDS_PROHIBITIVE", 1e-9)
            bracketed = evaluate(*args, **kw, max_rel_error=0.1)
    assert all(bracketed.interval_box(m) is not None for m in bracketed.measures)
    assert all(exact.interval_box(m) is None for m in exact.measures)
    return bracketed, exact


@pytest.mark.parametrize("test", ["t", "sign", "tukey", "wilcoxon", "randomisation"])
def test_a_proven_decision_is_the_decision_on_the_exact_values(bracketed_and_exact, test):
    """The bracket holds the exact φ: every decision proven over it is the one the exact values give."""
    b, e = bracketed_and_exact
    pb = b.compare(test=test, permutations=4000).pairs_frame().query("scale == 'interval'").reset_index(drop=True)
    pe = e.compare(test=test, permutations=4000).pairs_frame().query("scale == 'interval'").reset_index(drop=True)
    proven = pb["proven"] == PROVEN
    assert proven.sum() >= len(pb) // 2 and pb.loc[proven, "significant"].any()
    for col in ("significant", "better"):
        assert (pb.loc[proven, col] == pe.loc[proven, col]).all(), col
    assert (pb["mean_difference_lo"] <= pe["mean_difference"] + 1e-15).all()
    assert (pe["mean_difference"] <= pb["mean_difference_hi"] + 1e-15).all()
    ok = pe["p_value"].isna() | pb["p_value_lo"].isna() | \
        ((pb["p_value_lo"] <= pe["p_value"]) & (pe["p_value"] <= pb["p_value_hi"]))
    assert ok.all()


def test_the_tau_ranges_hold_the_tau_of_the_exact_values(bracketed_and_exact):
    b, e = bracketed_and_exact
    tb, _ = b.correlations()
    te, _ = e.correlations()
    for rb, re_ in zip(tb.itertuples(), te.itertuples()):
        assert rb.tau_interval_min <= re_.tau_interval <= rb.tau_interval_max
        assert np.isnan(re_.tau_ap_interval) or rb.tau_ap_interval_min <= re_.tau_ap_interval <= rb.tau_ap_interval_max
    for lab in b.measures:  # τ between a measure and its interval version, as notebook 09's Table 2 takes it
        orig = system_means(b.decision_values(lab))
        mb = b.interval_mean_bounds(lab)
        r = kendall_tau_range(np.asarray(orig, dtype=object), mb)
        assert r.lo <= kendall_tau(orig, system_means(e.interval_values(lab).unit)) <= r.hi
        box = b.interval_box(lab)
        want = mean_bounds(Bounds(box.lo, box.hi))
        assert not r.exact and list(mb.lo) == list(want.lo) and list(mb.hi) == list(want.hi)


def test_a_bracketed_table_with_undecided_marks_compiles_and_fits(tmp_path):
    """The ``?b`` marks, ``†?`` and the legend's line on brackets in LaTeX: it compiles in a plain article and fits."""
    from test_comparison_latex import PDFLATEX, compile_latex

    rng = np.random.default_rng(12)
    lo, hi = _box(rng, 15, 8, width=25)
    mid = (lo + hi) / 2
    names = [f"input.run{k}" for k in range(8)]
    t = comparison_table({"AP": mid}, {"AP": mid}, names, baseline=names[0], boxes={"AP": ScoreBox(lo, hi)})
    assert (t.pairs["proven"] == UNDECIDED).any()
    tex = t.to_latex()
    assert "?" in tex and "Bracketed interval values" in tex
    if PDFLATEX is None:
        pytest.skip("pdflatex is not installed")
    log = compile_latex(tex, tmp_path)
    assert "Overfull \\hbox" not in log and "Undefined control sequence" not in log


def test_rank_ranges_hold_the_rank_of_every_point_and_are_attained():
    from irscales.certified import rank_range

    rng = np.random.default_rng(4)
    for _ in range(100):
        n = int(rng.integers(2, 9))
        lo = rng.integers(0, 20, n)
        hi = lo + rng.integers(0, 5, n) * (rng.random(n) < 0.7)
        best, worst = rank_range((lo, hi))
        for _ in range(30):
            v = lo + rng.random(n) * (hi - lo)
            rank = 1 + (v[None, :] > v[:, None]).sum(axis=1)
            assert (best <= rank).all() and (rank <= worst).all()
        for k in range(n):  # attained: k at its top, the others at their bottom, and the reverse
            top, bottom = lo.astype(float).copy(), hi.astype(float).copy()
            top[k], bottom[k] = hi[k], lo[k]
            assert 1 + (top > top[k]).sum() == best[k] and 1 + (bottom > bottom[k]).sum() == worst[k]


def test_interval_ranks_of_bracketed_values(bracketed_and_exact):
    b, e = bracketed_and_exact
    for lab in b.measures:
        r, x = b.interval_ranks(lab), e.interval_ranks(lab)
        assert (r["rank_best"] <= x["rank"]).all() and (x["rank"] <= r["rank_worst"]).all()
        assert (r["mean_lo"] <= x["mean"]).all() and (x["mean"] <= r["mean_hi"]).all()
        assert (x["rank_best"] == x["rank"]).all() and (x["rank_worst"] == x["rank"]).all()
