"""Tests of irscales.enumeration: the scale of a measure over REL^N and the ranked measure φ (FFF21 §5).

Reference values are computed independently here: exact Fractions from ``Measure.exact`` for the
rational measures, Decimal evaluation at 50 digits of Σ_i g_i / log_b(i) for DCG, and the few
numbers printed in FFF21 (§5 worked example, Example 12, §5.1 counts).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import enumeration as E
from irscales.enumeration import _engine as engine, _kernels as kernels, routes, _scale_class as scale_class
from irscales.enumeration import _cache as cache_mod
from irscales import measures as M

F = M.CLASSIC_MEASURES


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Scales cached by default (cache=True) go to a temporary folder, never into data/cache."""
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "default-cache"))
RATIONAL = ["P", "R", "AP", "RR", "RBP_p03", "RBP_p05", "RBP_p08"]


def all_runs(N: int, c: int = 1) -> np.ndarray:
    return E.runs_from_ids(np.arange((c + 1) ** N), N, c)


def exact_rank(values: list) -> tuple[list, list, np.ndarray]:
    """Distinct exact values, their counts, and φ (unq) of each input."""
    u = sorted(set(values))
    where = {v: i for i, v in enumerate(u)}
    cnt = [0] * len(u)
    for v in values:
        cnt[where[v]] += 1
    return u, cnt, np.array([where[v] + 1 for v in values])


def decimal_dcg(rel: np.ndarray, base: int = 2, discount: str = "jk", digits: int = 50) -> list[Decimal]:
    """DCG of each run in Decimal arithmetic, directly from the definition (no structure used)."""
    n = rel.shape[-1]
    with localcontext() as ctx:
        ctx.prec = digits
        lb = Decimal(base if discount == "jk" else 2).ln()
        if discount == "jk":
            w = [Decimal(1) if i < base else lb / Decimal(i).ln() for i in range(1, n + 1)]
        else:
            w = [lb / Decimal(i + 1).ln() for i in range(1, n + 1)]
        return [+sum((Decimal(int(g)) * wi for g, wi in zip(row, w)), Decimal(0)) for row in rel.tolist()]


def decimal_distinct(vals: list[Decimal], digits: int = 35):
    """Distinct Decimal values, merging only values equal to `digits` places (far below any real gap)."""
    with localcontext() as ctx:
        ctx.prec = 60
        q = Decimal(10) ** -digits
        return exact_rank([v.quantize(q) for v in vals])


# ------------------------------------------------------------------------------------------ ids


@given(st.integers(1, 12), st.integers(1, 3), st.data())
def test_run_ids_roundtrip(N, c, data):
    ids = np.array(data.draw(st.lists(st.integers(0, (c + 1) ** N - 1), min_size=1, max_size=20)))
    assert np.array_equal(E.run_ids(E.runs_from_ids(ids, N, c), c), ids)


def test_run_ids_rank_one_is_most_significant():
    assert E.run_ids([[1, 0, 0], [0, 0, 1]]).tolist() == [4, 1]
    with pytest.raises(ValueError, match="grades must lie in 0..2"):
        E.run_ids([[3, 0]], c=2)


# ---------------------------------------------------------------------- engine vs brute force


@pytest.mark.parametrize("name", RATIONAL)
@pytest.mark.parametrize("N", [1, 2, 3, 5, 8, 11])
def test_engine_equals_exact_brute_force(name, N):
    m = F[name]
    s = E.scale(m, N, rb=3, method="engine", cache=False, workers=1)
    vals = m.exact(all_runs(N), rb=3).tolist()
    u, cnt, phi = exact_rank(vals)
    assert s.n_distinct == len(u)
    assert s.exact_values() == u
    assert s.counts.tolist() == cnt
    assert np.array_equal(s.phi_runs(all_runs(N)), phi)


@pytest.mark.parametrize("name,base,discount", [("DCG_b02", 2, "jk"), ("DCG_b10", 10, "jk"),
                                                 ("DCG_b03", 3, "jk"), ("DCG_log2p1", 2, "log2p1")])
@pytest.mark.parametrize("N", [1, 4, 9, 12])
def test_dcg_engine_equals_decimal_brute_force(name, base, discount, N):
    m = M.DCG(base=base, discount=discount)
    s = E.scale(m, N, cache=False, workers=1)
    rel = all_runs(N)
    u, cnt, phi = decimal_distinct(decimal_dcg(rel, base, discount))
    assert s.n_distinct == len(u)
    assert s.counts.tolist() == cnt
    assert np.allclose(s.values, [float(x) for x in u], rtol=0, atol=1e-12)
    assert np.array_equal(s.phi_runs(rel), phi)
    # float input (as computed by irscales.measures) lands on the same ranks
    assert np.array_equal(s.phi(m(rel)), phi)


def test_graded_engine_equals_brute_force():
    rel = all_runs(6, c=2)
    for m in (M.GRBP(p=0.5, max_gain=2), M.GRBP(p=0.8, max_gain=2)):
        s = E.scale(m, 6, c=2, cache=False, workers=1)
        u, cnt, phi = exact_rank(m.exact(rel).tolist())
        assert (s.n_distinct, s.counts.tolist()) == (len(u), cnt)
        assert np.array_equal(s.phi_runs(rel), phi)
    g = M.DCG(base=2, gains="graded")
    s = E.scale(g, 7, c=2, cache=False, workers=1)
    rel = all_runs(7, c=2)
    u, cnt, phi = decimal_distinct(decimal_dcg(rel, 2, "jk"))
    assert (s.n_distinct, s.counts.tolist()) == (len(u), cnt)
    assert np.array_equal(s.phi_runs(rel), phi)
    # binary measures read grades leniently (rel > 0): 3^N runs, the binary scale with counts 2^k
    sp = E.scale(M.P(), 5, c=2, method="engine", cache=False, workers=1)
    assert sp.n_distinct == 6 and sp.counts.tolist() == [math.comb(5, k) * 2**k for k in range(6)]


def test_float_path_agrees_with_integer_path():
    """RBP p=0.8 forced into float mode (as at N ≥ 28) gives the integer path's exact order."""
    N = 14
    exact = kernels.Kernel(M.RBP(p=0.8), N, 1)
    flt = kernels.Kernel(M.RBP(p=0.8), N, 1, int_bits=20)
    assert exact.mode == "int" and flt.mode == "float"
    ke, ce, _ = exact.reduce_chunk(None, None)
    kf, cf, multi = flt.reduce_chunk(None, None)
    assert len(ke) == len(kf) == 2**N and ce.tolist() == cf.tolist()
    ids = np.arange(2**N)
    order_int = np.argsort(exact.keys_of_ids(ids)[0], kind="stable")
    # float keys of the same runs, sorted with exact adjudication, in the same order
    fk = flt.keys_of_ids(ids)[0]
    assert np.all(np.diff(fk[order_int]) >= -flt.delta)
    assert np.allclose(np.sort(fk), kf)


@pytest.mark.parametrize("m", [M.RBP(p=0.8), M.DCG(base=2), M.DCG(discount="log2p1")], ids=str)
def test_exact_adjudication_of_near_ties(m, monkeypatch):
    """Real near-ties (float gap ≤ δ between distinct values) are rare below N = 25, so δ is
    inflated here to send most values through the exact adjudication (Fractions for RBP, Decimal
    for DCG) and through phi_runs' identity lookup; the result must still be the exact scale."""
    N = 11
    k = kernels.Kernel(m, N, 1, int_bits=20)
    assert k.mode == "float"
    k.delta = 0.02
    for mod in (routes, scale_class, kernels):
        monkeypatch.setattr(mod, "kernel", lambda *a: k)
    s = E.scale(m, N, cache=False, workers=1, method="engine")
    assert len(s.chunks[0].multi) > 200  # many entries came out of multi-identity clusters
    rel = all_runs(N)
    if isinstance(m, M.RBP):
        u, cnt, phi = exact_rank(m.exact(rel).tolist())
    else:
        u, cnt, phi = decimal_distinct(decimal_dcg(rel, 2, m.discount))
    assert s.n_distinct == len(u) and s.counts.tolist() == cnt
    assert np.array_equal(s.phi_runs(rel), phi)
    assert np.allclose(s.values, [float(x) for x in u], atol=0.05)


def test_float_mode_near_ties_are_adjudicated():
    """RBP p=0.3 at N=20 needs 10^20 > 2^62: float mode, checked against the closed form."""
    N = 20
    eng = E.scale(M.RBP(p=0.3), N, method="engine", cache=False, workers=1)
    clo = E.scale(M.RBP(p=0.3), N, method="closed")
    assert eng.mode == "float" and clo.method == "closed"
    rng = np.random.default_rng(7)
    rel = rng.integers(0, 2, size=(4000, N))
    assert np.array_equal(eng.phi_runs(rel), clo.phi_runs(rel))
    assert np.array_equal(clo.phi_runs(rel), E.run_ids(rel) + 1)
    assert eng.n_distinct == clo.n_distinct == 2**N


# ------------------------------------------------------------------------------ exact ties


def test_naive_float_handling_splits_and_merges():
    """Exact ties matter: float equality splits equal DCG values, rounding merges RBP values.

    The same DCG summed left-to-right and right-to-left differs in the last bits for 1,583 of the
    4,096 runs at N = 12, so floats from two code paths (or two BLAS groupings) are not comparable
    with ``==`` / ``np.unique``.
    """
    N = 12
    rel = all_runs(N)
    w = M.dcg_discount(N, 2, "jk")
    lr, rl = np.zeros(2**N), np.zeros(2**N)
    for i in range(N):  # two explicit summation orders
        lr = lr + rel[:, i] * w[i]
        rl = rl + rel[:, N - 1 - i] * w[N - 1 - i]
    exact = E.scale(F["DCG_b02"], N, cache=False)
    assert exact.n_distinct == 3 * 2 ** (N - 2) == len(np.unique(lr))
    assert len(np.unique(np.concatenate([lr, rl]))) > exact.n_distinct
    assert np.array_equal(exact.phi(lr), exact.phi(rl))  # φ matches floats within a tolerance
    # the measure itself accumulates rank by rank, so its floats tie exactly where the values do
    assert len(np.unique(F["DCG_b02"](rel))) == 3 * 2 ** (N - 2)
    N = 14
    rbp = F["RBP_p08"](all_runs(N))
    exact = E.scale(F["RBP_p08"], N, cache=False)
    assert exact.n_distinct == 2**N == len(set(F["RBP_p08"].exact(all_runs(N)).tolist()))
    assert len(np.unique(np.round(rbp, 8))) < 2**N  # FFF21 fn. 9 rounds to 8 decimals


def test_rounding_to_8_decimals_merges_dcg_values_at_N20():
    s = E.scale(F["DCG_b02"], 20, cache=False)
    v = s.values
    assert s.n_distinct == 3 * 2**18
    assert np.diff(v).min() < 1e-8  # genuinely distinct values (certified gaps) closer than 1e-8
    assert len(np.unique(np.round(v, 8))) < s.n_distinct


def test_binary_rbp_never_ties():
    """Rational-root argument of the module docstring, checked exhaustively for small N."""
    for p in (0.3, 0.5, 0.8, 0.9, 0.25):
        for N in (6, 10):
            vals = M.RBP(p=p).exact(all_runs(N)).tolist()
            assert len(set(vals)) == 2**N


def test_dcg_identity_structure():
    """w_1 = w_2 = 1, w_4 = 1/2, w_8 = 1/3, w_9 = w_3/2, w_16 = 1/4, w_27 = w_3/3 (base 2)."""
    k = kernels.Kernel(M.DCG(base=2), 27, 1)
    ident = lambda ranks: int(k.keys_of_ids(E.run_ids([[1 if i + 1 in ranks else 0 for i in range(27)]]))[1][0])
    assert ident({1}) == ident({2})
    assert ident({4, 8}) != ident({1})
    assert ident({9}) * 2 == ident({3})
    assert ident({27}) * 3 == ident({3})
    assert ident({4}) * 2 == ident({1}) and ident({16}) * 4 == ident({1})
    assert ident({8}) * 3 == ident({1})


def test_undecidable_tie_raises():
    k = kernels.Kernel(M.DCG(base=2), 6, 1)
    k.exact_of_ident = lambda ids, digits=60: [Decimal(1)] * len(ids)  # pretend equal values
    with pytest.raises(E.TieUndecidable, match="could not be separated"):
        k.adjudicate([1, 2])


# --------------------------------------------------------------------------- FFF21 numbers


def test_fff21_section5_tie_example():
    m = [0.00, 0.25, 0.40, 0.40, 0.70]
    assert E.rank_values(m, "unq").tolist() == [1, 2, 3, 3, 4]
    assert E.rank_values(m, "mid").tolist() == [1, 2, 3.5, 3.5, 5]
    assert E.rank_values(m, "min").tolist() == [1, 2, 3, 3, 5]
    assert E.rank_values(m, "max").tolist() == [1, 2, 4, 4, 5]


def test_fff21_example12_dcg_n4():
    s = E.scale(F["DCG_b02"], 4, cache=False)
    assert s.n_runs == 16 and s.n_distinct == 12
    runs = [[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert s.phi_runs(runs).tolist() == [12, 11, 10, 9, 9, 2, 1]
    assert np.round(F["DCG_b02"](runs), 3).tolist() == [3.131, 2.631, 2.5, 2.131, 2.131, 0.5, 0.0]


@pytest.mark.parametrize("N,printed", [(5, 24), (10, 768), (15, 24576)])
def test_fff21_section51_dcg_distinct_counts(N, printed):
    """FFF21 §5.1: 24, 768, 24,576 distinct DCG (log2) values; = 3·2^{N−2} (only w_1 = w_2 ties)."""
    s = E.scale(F["DCG_b02"], N, cache=False)
    assert s.n_distinct == printed == 3 * 2 ** (N - 2)


def test_fff21_section5_closed_phi_formulas_are_off_by_one():
    """FFF21 §5: φ(m) = 2^N m for RBP p=1/2 and N+1−1/m for RR; eq. (2) gives one more (φ(0) = 1)."""
    N = 8
    rel = all_runs(N)
    rbp = E.scale(F["RBP_p05"], N, cache=False)
    m = F["RBP_p05"].exact(rel)
    assert np.array_equal(rbp.phi_runs(rel), np.array([2**N * x + 1 for x in m]).astype(int))
    rr = E.scale(F["RR"], N, cache=False)
    r = F["RR"].exact(rel)
    pos = np.array([x > 0 for x in r])
    assert np.array_equal(rr.phi_runs(rel)[pos], np.array([N + 2 - 1 / x for x in r[pos]]).astype(int))
    assert set(rr.phi_runs(rel)[~pos].tolist()) == {1}


def test_fff21_rr_clusters_below_02():
    """FFF21 §7.1.1: RR has 1, 6, 16, 26 distinct values in [0, 0.2) for N = 5, 10, 20, 30."""
    got = [int((E.scale(F["RR"], N).values < 0.2).sum()) for N in (5, 10, 20, 30)]
    assert got == [1, 6, 16, 26]


# ------------------------------------------------------------------------ closed forms, ties


@pytest.mark.parametrize("name", ["P", "R", "RR", "RBP_p05", "RBP_p03"])
@pytest.mark.parametrize("N", list(range(1, 17)))
def test_closed_forms_equal_engine(name, N):
    """Closed forms vs the engine for every N ≤ 16 (N = 20: test_engine_equals_vectorised_brute_force_n20)."""
    clo = E.scale(F[name], N, rb=4, method="closed")
    eng = E.scale(F[name], N, rb=4, method="engine", cache=False, workers=1)
    assert clo.n_distinct == eng.n_distinct and clo.n_runs == eng.n_runs == 2**N
    assert np.array_equal(clo.counts, eng.counts)
    assert np.allclose(clo.values, eng.values, rtol=1e-14, atol=0)
    rel = all_runs(N) if N <= 13 else np.random.default_rng(N).integers(0, 2, (5000, N))
    assert np.array_equal(clo.phi_runs(rel), eng.phi_runs(rel))


@pytest.mark.parametrize("name", ["P", "AP", "RR", "RBP_p08", "DCG_b02"])
@pytest.mark.parametrize("ties", ["min", "max", "mid"])
def test_tie_strategies_match_ranks_over_all_runs(name, ties):
    from scipy.stats import rankdata

    N = 9
    s = E.scale(F[name], N, rb=5, cache=False)
    rel = all_runs(N)
    unq = s.phi_runs(rel)  # exact distinct-value ranks; rankdata on them gives the run ranks
    method = {"min": "min", "max": "max", "mid": "average"}[ties]
    assert np.array_equal(s.phi_runs(rel, ties=ties), rankdata(unq, method=method))
    assert np.array_equal(E.rank_values(unq.tolist(), ties), rankdata(unq, method=method))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RATIONAL), st.integers(2, 16), st.data())
def test_phi_preserves_the_exact_order(name, N, data):
    """M(r) < M(s) ⇔ φ(r) < φ(s) and M(r) = M(s) ⇔ φ(r) = φ(s), on random pairs of runs."""
    s = E.scale(F[name], N, rb=3, cache=False, workers=1)
    ids = data.draw(st.lists(st.integers(0, 2**N - 1), min_size=2, max_size=2))
    rel = E.runs_from_ids(np.array(ids), N)
    a, b = F[name].exact(rel, rb=3).tolist()
    pa, pb = s.phi_runs(rel).tolist()
    assert (a < b) == (pa < pb) and (a == b) == (pa == pb)


# ------------------------------------------------------------------------------ recall base


@pytest.mark.parametrize("N", [4, 7, 10])
def test_recall_base_independence(N):
    """FFF21 §5.2.2: per topic, φ_R = φ_P, φ_AP = φ_SP, φ_nDCG = φ_DCG for every RB > 0.

    The per-topic scale is enumerated by brute force for several recall bases, including RB < N
    (runs with more relevant documents than RB are kept: the values exceed 1 there).
    """
    rel = all_runs(N)
    for rb in (1, 2, N - 1, N, N + 5):
        for m, base in ((M.R(), M.P()), (M.AP(), M.SP())):
            _, _, phi_topic = exact_rank(m.exact(rel, rb=rb).tolist())
            _, _, phi_base = exact_rank(base.exact(rel).tolist())
            assert np.array_equal(phi_topic, phi_base)
            s = E.scale(m, N, rb=rb, cache=False)
            assert np.array_equal(s.phi_runs(rel), phi_topic)
            assert np.allclose(s.phi(m(rel, rb=rb)), phi_topic)
            assert s.exact_values() == sorted(set(m.exact(rel, rb=rb).tolist()))
        for b in (2, 10):
            nd, dc = M.NDCG(base=b), M.DCG(base=b)
            s = E.scale(nd, N, rb=rb, cache=False)
            _, _, phi_dcg = decimal_distinct(decimal_dcg(rel, b))
            assert np.array_equal(s.phi(nd(rel, rb=rb)), phi_dcg)
            assert np.array_equal(s.phi_runs(rel), phi_dcg)
            ideal = np.array([[1] * min(rb, N) + [0] * max(N - rb, 0)])
            idcg = dc(ideal)[0]
            assert np.allclose(s.values, E.scale(dc, N, cache=False).values / idcg, rtol=1e-14)
    with pytest.raises(ValueError, match="rb=0"):
        E.scale(M.AP(), N, rb=0)


# ----------------------------------------------------------------------------------- cache


def _files(d: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


def test_chunked_equals_single_chunk_and_respects_budget(tmp_path):
    m = F["DCG_b02"]
    one = E.scale(m, 16, cache=False, workers=1)
    many = E.scale(m, 16, cache=tmp_path, memory_mb=1, workers=1)
    assert len(many.chunks) > 5
    assert np.array_equal(one.keys, many.keys) and np.array_equal(one.counts, many.counts)
    man = json.loads((many.directory / "manifest.json").read_text())
    per_chunk = 2**20 / kernels.BYTES_PER_RUN
    assert all(e["n_runs"] <= 1.6 * per_chunk for e in man["chunks"])  # bisection leaves ±1 run slack


def test_interrupted_and_resumed_cache_is_byte_identical(tmp_path, monkeypatch):
    m = F["AP"]
    ref = E.scale(m, 15, cache=tmp_path / "ref", memory_mb=1, workers=1)
    ref_files = _files(ref.directory)
    assert len(ref.chunks) >= 4

    calls = {"n": 0}
    real = engine.chunk_task

    def dying(*a):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt("simulated interruption")
        return real(*a)

    monkeypatch.setattr(engine, "chunk_task", dying)
    with pytest.raises(KeyboardInterrupt):
        E.scale(m, 15, cache=tmp_path / "run", memory_mb=1, workers=1)
    d = next((tmp_path / "run" / "scales").iterdir())
    done = [e["done"] for e in json.loads((d / "manifest.json").read_text())["chunks"]]
    assert sum(done) == 2 and not any(n.endswith(".tmp") for n in _files(d))
    monkeypatch.setattr(engine, "chunk_task", real)
    calls["n"] = 0
    resumed = E.scale(m, 15, cache=tmp_path / "run", memory_mb=1, workers=1)
    assert _files(resumed.directory) == ref_files
    assert np.array_equal(resumed.keys, ref.keys)


def test_corrupt_truncated_and_stale_chunks_are_recomputed(tmp_path, monkeypatch):
    m = F["RBP_p08"]
    s = E.scale(m, 16, cache=tmp_path, memory_mb=1, workers=1)
    d = s.directory
    ref = _files(d)
    keys = s.keys.copy()
    del s
    f = sorted(d.glob("chunk*_keys.npy"))[1]
    raw = bytearray(f.read_bytes())
    raw[-3] ^= 0xFF  # one flipped bit-pattern in the data
    f.write_bytes(bytes(raw))
    g = sorted(d.glob("chunk*_keys.npy"))[2]
    g.write_bytes(g.read_bytes()[:-16])  # truncated file
    # checksums are memoised per process by (path, size, mtime); a rewrite within the same clock
    # tick could keep the mtime, so start from a fresh memo as a new process would
    monkeypatch.setattr(cache_mod, "VERIFIED", set())
    calls = []
    real = engine.chunk_task
    monkeypatch.setattr(engine, "chunk_task", lambda *a: calls.append(a) or real(*a))
    again = E.scale(m, 16, cache=tmp_path, memory_mb=1, workers=1)
    assert len(calls) == 2  # only the two damaged chunks
    assert _files(d) == ref and np.array_equal(again.keys, keys)
    # a manifest written by other parameters (another kernel version) is stale: all recomputed
    man = json.loads((d / "manifest.json").read_text())
    man["params"]["kernel_version"] = "0"
    (d / "manifest.json").write_text(json.dumps(man))
    calls.clear()
    E.scale(m, 16, cache=tmp_path, memory_mb=1, workers=1)
    assert len(calls) == len(man["chunks"])
    assert _files(d) == ref


@pytest.mark.parametrize("measure", ["RBP_p08", "AP"])  # without and with a counts file
def test_an_edited_run_count_in_the_manifest_is_caught(tmp_path, monkeypatch, measure):
    # issue 27 item 5: the manifest's n_runs was trusted; φ (min/max/mid) adds these counts up
    m = F[measure]
    s = E.scale(m, 14, cache=tmp_path, memory_mb=1, workers=1, method="engine", build=True)
    d, ref = s.directory, s.phi_runs(np.eye(14, dtype=np.int8), "min")
    del s
    man = json.loads((d / "manifest.json").read_text())
    man["chunks"][1]["n_runs"] += 1
    (d / "manifest.json").write_text(json.dumps(man))
    monkeypatch.setattr(cache_mod, "VERIFIED", set())  # a new process
    calls = []
    real = engine.chunk_task
    monkeypatch.setattr(engine, "chunk_task", lambda *a: calls.append(a) or real(*a))
    again = E.scale(m, 14, cache=tmp_path, memory_mb=1, workers=1, method="engine", build=True)
    assert len(calls) == 1  # the chunk whose count was edited is computed again
    assert np.array_equal(again.phi_runs(np.eye(14, dtype=np.int8), "min"), ref)
    assert json.loads((d / "manifest.json").read_text())["chunks"][1]["n_runs"] == man["chunks"][1]["n_runs"] - 1


def test_concurrent_writers_compute_each_chunk_once(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    calls = []
    real = engine.chunk_task
    monkeypatch.setattr(engine, "chunk_task", lambda *a: calls.append(a) or real(*a))
    run = lambda _: E.scale(F["DCG_b02"], 14, cache=tmp_path, memory_mb=1, workers=1)
    with ThreadPoolExecutor(2) as ex:
        a, b = ex.map(run, range(2))
    assert np.array_equal(a.keys, b.keys) and np.array_equal(a.counts, b.counts)
    assert len(calls) == len(a.chunks) > 1  # the second writer waited and read the first's chunks


def test_prune_cache_removes_only_stale_folders(tmp_path):
    keep = E.scale(F["AP"], 8, cache=tmp_path).directory
    old = E.scale(F["DCG_b02"], 8, cache=tmp_path).directory
    man = json.loads((old / "manifest.json").read_text())
    man["params"]["kernel_version"] = "0"
    (old / "manifest.json").write_text(json.dumps(man))
    broken = tmp_path / "scales" / "leftover"
    broken.mkdir()
    assert E.prune_cache(tmp_path, dry_run=True) == [old, broken] and old.exists()
    assert E.prune_cache(tmp_path) == [old, broken]
    assert keep.exists() and not old.exists() and not broken.exists()


class _FullDisk:
    """A file object whose disk fills up after ``room`` bytes: writes then raise OSError(ENOSPC)."""

    room = 0

    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        if _FullDisk.room < len(data):
            import errno
            raise OSError(errno.ENOSPC, "No space left on device")
        _FullDisk.room -= len(data)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


@pytest.mark.parametrize("room", [0, 20_000], ids=["manifest", "chunk"])
def test_a_full_disk_names_the_file_and_leaves_no_temporary_files(tmp_path, monkeypatch, room):
    """Issue 27 (10): the full-disk error of a build named no path and left ``*.tmp`` files (the manifest's
    temporary file leaked). Now the error is ENOSPC naming the file, in one CLI line, and nothing is left."""
    import errno
    import os as os_mod

    from click.testing import CliRunner
    from irscales.cli import main

    real = os_mod.fdopen
    monkeypatch.setattr(os_mod, "fdopen", lambda *a, **k: _FullDisk(real(*a, **k)))  # the one writer: irscales._atomic
    _FullDisk.room = room
    with pytest.raises(OSError) as e:
        E.scale(F["DCG_b02"], 14, cache=tmp_path, memory_mb=1, workers=1)
    assert e.value.errno == errno.ENOSPC
    assert Path(e.value.filename).parent.parent == tmp_path / "scales" and "No space left" in str(e.value)
    assert Path(e.value.filename).name == ("manifest.json" if room == 0 else "chunk00000_keys.npy")
    assert not list(tmp_path.rglob("*.tmp"))
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cli"))
    _FullDisk.room = room
    r = CliRunner().invoke(main, ["scale", "--measure", "DCG_b02", "--depth", "14"])
    errors = [x for x in r.output.splitlines() if x.startswith("irscales: error:")]
    assert r.exit_code == 1 and len(errors) == 1 and str(tmp_path / "cli" / "scales") in errors[0]
    assert "No space left on device" in errors[0] and not list(tmp_path.rglob("*.tmp"))


def test_process_pool_equals_serial(tmp_path):
    m = F["DCG_b02"]
    a = E.scale(m, 16, cache=False, workers=1)
    b = E.scale(m, 16, cache=tmp_path, memory_mb=1, workers=2)
    assert len(b.chunks) > 1
    assert np.array_equal(a.keys, b.keys) and np.array_equal(a.counts, b.counts)


def test_dask_client(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        s = E.scale(F["AP"], 14, cache=tmp_path, memory_mb=1, client=client)
    ref = E.scale(F["AP"], 14, cache=False, workers=1)
    assert len(s.chunks) > 1
    assert np.array_equal(s.keys, ref.keys) and np.array_equal(s.counts, ref.counts)


# --------------------------------------------------------------------------- quantiles, I/O


@pytest.mark.parametrize("name", ["P", "RR", "AP", "RBP_p08", "RBP_p03", "DCG_b02"])
def test_quantiles_are_sorted_run_values(name):
    N = 10
    s = E.scale(F[name], N, rb=4, cache=False)
    runs_sorted = np.sort(F[name](all_runs(N), rb=4))
    q = np.linspace(0, 1, 37)
    assert np.allclose(s.quantiles(q), runs_sorted[np.floor(q * (2**N - 1)).astype(int)], atol=1e-12)


def test_bad_input_messages():
    with pytest.raises(ValueError, match="unknown measure 'nope'"):
        E.scale("nope", 5)
    with pytest.raises(ValueError, match="N must be a positive integer"):
        E.scale(F["P"], 0)
    with pytest.raises(NotImplementedError, match="no enumeration kernel for ERR"):
        E.scale(M.ERR(), 5)
    with pytest.raises(NotImplementedError, match="integer log base"):
        E.scale(M.DCG(base=2.5), 5)
    s = E.scale(F["AP"], 6, rb=3)
    with pytest.raises(ValueError, match="not a value of AP at N=6"):
        s.phi([0.123456])
    with pytest.raises(ValueError, match=r"runs must have shape \(\.\.\., 6\)"):
        s.phi_runs(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="ties must be one of"):
        s.phi([0.0], ties="dense")
    with pytest.raises(ValueError, match="q must lie in"):
        s.quantiles([1.5])
    with pytest.raises(ValueError, match="method must be"):
        E.scale(F["P"], 5, method="fast")


def test_phi_reports_float_ambiguity():
    s = E.scale(F["RBP_p08"], 20, cache=False)
    v = s.values
    i = int(np.argmin(np.diff(v)))
    with pytest.raises(ValueError, match="use phi_runs"):
        s.phi([v[i]], rtol=1e-6)
    assert s.phi([v[i]]).tolist() == [i + 1]


def test_distinct_counts_table(tmp_path):
    out = tmp_path / "dc.csv"
    df = E.distinct_counts_table([4, 5], out=out, cache=False)
    assert out.exists()
    got = {(r.measure, r.N): r.n_distinct for r in df.itertuples()}
    for N in (4, 5):
        for name in RATIONAL:
            assert got[(name, N)] == len(set(F[name].exact(all_runs(N), rb=2).tolist()))
    assert got[("DCG_b02", 5)] == 24 and got[("nDCG_b10", 5)] == 6


def _int_brute_keys(name: str, rel: np.ndarray) -> np.ndarray:
    """Exact integer keys of all runs straight from the definitions (vectorised, no half tables)."""
    N = rel.shape[-1]
    b = (rel > 0).astype(np.int64)
    if name in ("P", "R"):
        return b.sum(1)
    if name == "RR":
        first = np.argmax(b, axis=1) + 1
        return np.where(b.any(1), N + 1 - first, 0)  # larger key = larger RR
    if name == "AP":
        L = math.lcm(*range(1, N + 1))
        return (b * np.cumsum(b, axis=1) * np.array([L // i for i in range(1, N + 1)])).sum(1)
    p = Fraction(name[-2] + "." + name[-1]) if name.startswith("RBP") else None
    w = np.array([p.numerator**i * p.denominator ** (N - 1 - i) for i in range(N)], dtype=np.int64)
    return b @ w


@pytest.mark.parametrize("name", ["P", "R", "AP", "RR", "RBP_p03", "RBP_p05", "RBP_p08", "DCG_b02", "DCG_b10"])
def test_engine_equals_vectorised_brute_force_n20(name):
    """N = 20: every run evaluated directly (2^20 runs), compared with the chunked engine."""
    N = 20
    rel = all_runs(N)
    s = E.scale(F[name], N, rb=7, method="engine", cache=False, memory_mb=40, workers=1)
    # P, R, RR and DCG_b10 have few distinct half runs (deduplicated): one chunk suffices
    assert len(s.chunks) > 1 or name in ("P", "R", "RR", "DCG_b10")
    if name.startswith("DCG") or name == "RBP_p03":
        # floats of the definition; at N = 20 distinct DCG values are ≥ 5e-9 apart, RBP_p03 ones
        # ≥ 0.7·0.3^19 ≈ 8e-11, and float noise is ~1e-14, so gaps above the threshold separate
        # values and smaller ones are float noise on ties (RBP_p03 keys overflow int64 at N = 20)
        v = F[name](rel)
        order = np.argsort(v, kind="stable")
        new = np.concatenate([[True], np.diff(v[order]) > (1e-10 if name.startswith("DCG") else 1e-12)])
        phi = np.empty(len(v), np.int64)
        phi[order] = np.cumsum(new)
    else:
        keys = _int_brute_keys(name, rel)
        _, phi = np.unique(keys, return_inverse=True)
        phi = phi + 1
    sample = np.arange(0, 2**N, 37)
    scales = [s]
    if name in ("P", "R", "RR", "RBP_p03", "RBP_p05"):  # the closed form too
        scales.append(E.scale(F[name], N, rb=7, method="closed"))
    for sc in scales:
        assert sc.n_distinct == phi.max()
        assert np.array_equal(sc.counts, np.bincount(phi)[1:])
        assert np.array_equal(sc.phi_runs(rel[sample]), phi[sample])


def test_max_enumerable_depth_and_build_cost(tmp_path):
    """Each measure's largest N with its reason, checked by scale() before any work (issue 18: AP
    overflowed above 40, RR at 62 asked for 496 GiB, RR at 64 raised OverflowError)."""
    assert E.max_enumerable_depth(M.AP())[0] == 40 and "SP·lcm(1..N)" in E.max_enumerable_depth(M.AP())[1]
    assert E.max_enumerable_depth(M.RR()) == E.max_enumerable_depth(M.P())
    assert E.max_enumerable_depth(M.F1())[0] == 0 and E.max_enumerable_depth(M.DCG(base=1.5))[0] == 0
    assert E.max_enumerable_depth(M.GRBP(p=0.8, max_gain=3), c=3)[0] <= 20
    for m, n in [(M.AP(), 41), (M.RR(), 62), (M.RR(), 64)]:
        with pytest.raises(ValueError, match=f"at N={n} \\(at most N=40\\)"):
            E.scale(m, n, method="engine")  # "auto" counts RR there (tests/test_counting.py)
    cost = E.build_cost(M.DCG(base=2), 9, cache=tmp_path)
    assert cost.runs == 2**9 and not cost.cached and cost.directory.parent == tmp_path / "scales"
    E.scale(M.DCG(base=2), 9, cache=tmp_path)
    assert E.build_cost(M.DCG(base=2), 9, cache=tmp_path).cached
    assert E.build_cost(M.RR(), 40).runs == 0  # closed form


# ------------------------------------------------------------------ graded scales, G = 3 and 4 (issue 20)

GRADED_RATIONAL = [(M.GRBP, 0.5), (M.GRBP, 0.8), (M.GP, None)]


@pytest.mark.parametrize("c,N", [(2, 1), (2, 4), (2, 7), (3, 1), (3, 3), (3, 6)])
@pytest.mark.parametrize("cls,p", GRADED_RATIONAL, ids=["gRBP_p05", "gRBP_p08", "gP"])
def test_graded_rational_engine_equals_brute_force(cls, p, c, N):
    """gRBP and gP over G = c + 1 grades: the engine's distinct values, their counts and φ of every
    one of the G^N runs equal those of exact Fractions computed run by run from the definition."""
    m = cls(p=p, max_gain=c) if p is not None else cls(max_gain=c)
    rel = all_runs(N, c)
    u, cnt, phi = exact_rank(m.exact(rel).tolist())
    s = E.scale(m, N, c=c, method="engine", cache=False, workers=1)
    assert s.n_runs == (c + 1) ** N and (s.n_distinct, s.counts.tolist()) == (len(u), cnt)
    assert s.exact_values() == u
    assert np.array_equal(s.phi_runs(rel), phi)
    assert np.array_equal(s.phi(m(rel)), phi)  # float input lands on the same ranks


@pytest.mark.parametrize("c,N", [(2, 2), (2, 7), (3, 5)])
@pytest.mark.parametrize("base,discount", [(2, "jk"), (10, "jk"), (2, "log2p1")])
def test_graded_dcg_and_ndcg_engine_equal_brute_force(base, discount, c, N):
    """Graded DCG (gains = grades) of every run evaluated in 50-digit Decimals straight from the
    definition: same distinct values, counts and φ as the engine, and nDCG (one ideal run) the
    same φ with values DCG / ideal DCG."""
    rel = all_runs(N, c)
    u, cnt, phi = decimal_distinct(decimal_dcg(rel, base, discount))
    g = M.DCG(base=base, discount=discount, gains="graded")
    s = E.scale(g, N, c=c, method="engine", cache=False, workers=1)
    assert (s.n_distinct, s.counts.tolist()) == (len(u), cnt)
    assert np.array_equal(s.phi_runs(rel), phi)
    assert np.allclose(s.values, [float(x) for x in u], rtol=1e-13, atol=0)
    ideal = [c, c - 1, 1, 0]
    n = M.NDCG(base=base, discount=discount, gains="graded")
    sn = E.scale(n, N, c=c, ideal=ideal, method="engine", cache=False, workers=1)
    assert np.array_equal(sn.phi_runs(rel), phi)
    idcg = float(M.DCG(base=base, discount=discount, gains="graded")(np.array(sorted(ideal, reverse=True)[:N])))
    assert np.allclose(sn.values * idcg, s.values, rtol=1e-12)
    assert np.array_equal(sn.phi(n(rel, ideal=np.broadcast_to(ideal, (len(rel), 4)))), phi)


def test_graded_limits_reach_the_issue_depths():
    """The engine builds G = 3 up to N = 19 and G = 4 up to N = 15 (issue 20) for every graded
    measure with a kernel; beyond its limit ``scale`` refuses with the reason (no work done)."""
    graded = [M.DCG(base=2, gains="graded"), M.DCG(base=10, gains="graded"), M.NDCG(base=2, gains="graded"),
              M.DCG(discount="log2p1", gains="graded"), M.GP(max_gain=2), M.GRBP(p=0.5, max_gain=3),
              M.GRBP(p=0.8, max_gain=3)]
    for m in graded:
        for c, need in ((2, 19), (3, 15)):
            limit, why = E.max_enumerable_depth(m, c)
            assert limit >= need, (m, c, limit, why)
            with pytest.raises(ValueError, match=f"at most N={limit}"):
                E.scale(m, limit + 1, c=c, method="engine", cache=False)
    # gRBP's 62-bit exact keys (graded RBP can tie, module doc of irscales.enumeration.counting) bind first for large b
    lim, why = E.max_enumerable_depth(M.GRBP(p=0.95, max_gain=2), 2)
    assert lim < 19 and "62 bits" in why
    assert E.max_enumerable_depth(M.ERR(max_grade=2), 2)[0] == 0  # ERR has no kernel: brute force only
    with pytest.raises(NotImplementedError, match="no enumeration kernel"):
        E.scale(M.ERR(max_grade=2), 4, c=2)


def test_err_brute_force_counts_its_ties():
    """ERR has no kernel; its reference scale at small N comes from exact Fractions (FFP19 §5:
    ERR(r) > ERR(s) for r = (1,0,2,0,1) ≺ s = (1,1,0,0,0), i.e. not even ordinal)."""
    m = M.ERR(max_grade=2)
    vals, cnt = E.brute_force_scale(m, 4, c=2)
    assert sum(cnt) == 3**4 and vals == sorted(vals) and len(set(vals)) == len(vals)
    assert vals[0] == 0 and vals[-1] == m.exact(np.array([[2, 2, 2, 2]]))[0]
    assert len(vals) < 3**4  # ERR already ties at N = 4
    r, s = np.array([[1, 0, 2, 0, 1]]), np.array([[1, 1, 0, 0, 0]])
    # by hand, R_g = (2^g − 1)/4: ERR(r) = 1/4 + 3/16 + 3/320, ERR(s) = 1/4 + 3/32
    assert m.exact(r)[0] == Fraction(1, 4) + Fraction(3, 16) + Fraction(3, 320)
    assert m.exact(s)[0] == Fraction(1, 4) + Fraction(3, 32) < m.exact(r)[0]
