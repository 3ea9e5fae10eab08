"""FFF21 Tables 2–6 (irscales.papers.fff21.ranked, irscales.papers.fff21.tables and .significance_tables): hand-worked ranked measures, brute-force cross-checks of φ,
the invariants of issue 8 item 6 on the simulated collections, and the published rows' own consistency."""

from __future__ import annotations

import itertools
from fractions import Fraction as Fr

import numpy as np
import pandas as pd
import pytest

from irscales.ranks import dense_ranks
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from irscales import measures as M
from irscales.papers import published
from irscales.papers.fff21 import ranked as RK
from irscales.papers.fff21 import significance_tables as ST
from irscales.papers.fff21 import tables as FT
from irscales.stats import _significance as SG
from irscales.data import Collection, load_preset
from irscales.correlation import system_means

NO_CACHE = {"cache": False, "progress": False}


def make_collection(rel, rb, simulated=True, name="hand") -> Collection:
    rel = np.asarray(rel, dtype=np.int8)
    S, T, N = rel.shape
    rb = np.asarray(rb, dtype=np.int64)
    judgments = np.stack([np.full(T, 50, dtype=np.int64), rb], axis=1)
    prov = f"simulated: {name} seed=0 depth={N}" if simulated else f"trec: {name}"
    return Collection(rel=rel, judgments=judgments, run_lengths=np.full((S, T), N, dtype=np.int64),
                      topics=tuple(f"q{t}" for t in range(T)), systems=tuple(f"s{s}" for s in range(S)),
                      provenance=prov)


# ------------------------------------------------------------------------------ hand-worked


def test_hand_worked_N2():
    # Runs of length 2: [0 0], [0 1], [1 0], [1 1].
    # P   values 0, 1/2, 1/2, 1 -> unq φ 1, 2, 2, 3; mid ranks among the 4 runs 1, 2.5, 2.5, 4.
    # RR  values 0, 1/2, 1, 1   -> unq φ 1, 2, 3, 3; mid 1, 2, 3.5, 3.5.
    # RBP p = .5: 0, 1/4, 1/2, 3/4 (×(1-p)) -> φ 1, 2, 3, 4 (no ties: mid = unq).
    runs = [[0, 0], [0, 1], [1, 0], [1, 1]]
    c = make_collection([[r, r] for r in runs], rb=[2, 3])  # 4 systems × 2 topics, same run on both
    rs = RK.ranked_scores(c, 2, measures=["P", "RR", "RBP_p05", "R"], **NO_CACHE)
    assert rs.ranked["unq"]["P"][0].tolist() == [1, 2, 2, 3]
    assert rs.ranked["mid"]["P"][0].tolist() == [1, 2.5, 2.5, 4]
    assert rs.ranked["unq"]["RR"][0].tolist() == [1, 2, 3, 3]
    assert rs.ranked["mid"]["RR"][0].tolist() == [1, 2, 3.5, 3.5]
    assert rs.ranked["unq"]["RBP_p05"][0].tolist() == [1, 2, 3, 4]
    assert rs.ranked["mid"]["RBP_p05"][0].tolist() == [1, 2, 3, 4]
    # FFF21 Example 13: R with RB = 2 and RB = 3 maps to the same ranked values as P
    assert rs.original["R"][0].tolist() == [0, Fr(1, 2), Fr(1, 2), 1]
    assert rs.original["R"][1].tolist() == [0, Fr(1, 3), Fr(1, 3), Fr(2, 3)]
    assert (rs.ranked["unq"]["R"] == rs.ranked["unq"]["P"]).all()
    assert rs.original["P"].dtype == object and isinstance(rs.original["P"][0, 1], Fr)


def test_hand_worked_N3_mid_ranks_and_tau():
    # Two topics, three systems. P: A = [1 1 0], B = [1 0 0], C = [0 1 1] on topic 1 and
    # A = [0 0 0], B = [1 1 1], C = [1 0 0] on topic 2 (N = 3).
    # P means: A = (2/3 + 0)/2 = 1/3, B = (1/3 + 1)/2 = 2/3, C = (2/3 + 1/3)/2 = 1/2 -> order A < C < B.
    # unq φ = 1 + #rel: A = (3 + 1)/2 = 2, B = (2 + 4)/2 = 3, C = (3 + 2)/2 = 2.5: same order, τ = 1.
    # mid ranks among the 8 runs (counts 1, 3, 3, 1): #rel 0 -> 1, 1 -> 3, 2 -> 6, 3 -> 8:
    # A = (6 + 1)/2 = 3.5, B = (3 + 8)/2 = 5.5, C = (6 + 3)/2 = 4.5: same order again, τ = 1.
    rel = [[[1, 1, 0], [0, 0, 0]], [[1, 0, 0], [1, 1, 1]], [[0, 1, 1], [1, 0, 0]]]
    c = make_collection(rel, rb=[3, 3])
    rs = RK.ranked_scores(c, 3, measures=["P"], **NO_CACHE)
    assert rs.ranked["mid"]["P"].T.tolist() == [[6, 1], [3, 8], [6, 3]]
    t2, t3 = FT.table2([rs]), FT.table3([rs])
    assert t2.loc["sim-HAND_03", "P"] == 1.0 and t3.loc["sim-HAND_03", "P"] == 1.0
    # Make B's topic-2 run [1 1 0] (P = 2/3): B = (1/3 + 2/3)/2 = 1/2 ties C in P; unq φ: B = (2 + 3)/2 = 2.5
    # ties C too, but mid: B = (3 + 6)/2 = 4.5 = C. All tie the same way: τ = 1 for unq and mid.
    rel[1][1] = [1, 1, 0]
    rs = RK.ranked_scores(make_collection(rel, rb=[3, 3]), 3, measures=["P", "RR"], **NO_CACHE)
    assert FT.table2([rs]).loc["sim-HAND_03", "P"] == 1.0
    # RR: topic 1 A = 1, B = 1, C = 1/2; topic 2 A = 0, B = 1, C = 1 -> means 1/2, 1, 3/4 (A < C < B).
    # unq φ (values 0, 1/3, 1/2, 1 -> 1..4): A = (4 + 1)/2, B = (4 + 4)/2, C = (3 + 4)/2: A < C < B, τ = 1.
    # mid (counts 1, 1, 2, 4 -> mid ranks 1, 2, 3.5, 6.5): A = 3.75, B = 6.5, C = 5: τ = 1 as well.
    assert FT.table2([rs]).loc["sim-HAND_03", "RR"] == 1.0
    assert rs.ranked["mid"]["RR"].T.tolist() == [[6.5, 1.0], [6.5, 6.5], [3.5, 6.5]]


def test_hand_worked_tau_below_one_for_rr():
    # RR on N = 3, values 0 < 1/3 < 1/2 < 1 (φ 1..4). A = (1, 0) mean 1/2, φ mean (4 + 1)/2 = 2.5;
    # B = (1/2, 1/2) mean 1/2, φ mean 3; C = (1/3, 1/3) mean 1/3, φ mean 2.
    # RR ranks C < A = B; RR_R ranks C < A < B: pairs (A,B) tied in RR only -> P = 2, Q = 0, T = 1, U = 0:
    # τ_b = 2 / sqrt(3 · 2) = 0.8164…
    rel = [[[1, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 1, 0]], [[0, 0, 1], [0, 0, 1]]]
    rs = RK.ranked_scores(make_collection(rel, rb=[1, 1]), 3, measures=["RR"], ties=["unq"], **NO_CACHE)
    assert FT.table2([rs]).loc["sim-HAND_03", "RR"] == pytest.approx(2 / np.sqrt(6), abs=1e-15)


# ------------------------------------------------------------------------ brute-force φ checks


def _brute_phi(values: list, ties: str) -> dict:
    """φ of every distinct value among all runs: unq = dense rank, mid = average rank of the runs."""
    distinct = sorted(set(values))
    if ties == "unq":
        return {v: k + 1 for k, v in enumerate(distinct)}
    out, below = {}, 0
    for v in distinct:
        n = values.count(v)
        out[v] = below + (n + 1) / 2
        below += n
    return out


@pytest.mark.parametrize("name", ["P", "R", "AP", "RR", "RBP_p03", "RBP_p05", "RBP_p08"])
def test_phi_matches_brute_force_rational(name):
    N = 5
    allruns = np.array(list(itertools.product([0, 1], repeat=N)), dtype=np.int8)
    rng = np.random.default_rng(7)
    rel = rng.integers(0, 2, size=(6, 3, N))
    c = make_collection(rel, rb=[4, 7, 9])
    rs = RK.ranked_scores(c, N, measures=[name], **NO_CACHE)
    m = M.CLASSIC_MEASURES[name]
    for t, rb in enumerate([4, 7, 9]):
        vals = m.exact(allruns, rb=np.full(len(allruns), rb)).tolist()
        for ties in ("unq", "mid"):
            phi = _brute_phi(vals, ties)
            got = rs.ranked[ties][name][t]
            want = [phi[v] for v in m.exact(rel[:, t], rb=np.full(6, rb)).tolist()]
            assert got.tolist() == want, (name, ties, t)


@pytest.mark.parametrize("name", ["DCG_b02", "DCG_b10", "nDCG_b02", "nDCG_b10"])
def test_phi_matches_brute_force_dcg(name):
    # N = 6: distinct DCG values are > 1e-3 apart, so rounding to 9 decimals identifies them.
    N = 6
    allruns = np.array(list(itertools.product([0, 1], repeat=N)), dtype=np.int8)
    rng = np.random.default_rng(11)
    rel = rng.integers(0, 2, size=(8, 2, N))
    c = make_collection(rel, rb=[3, 8])
    rs = RK.ranked_scores(c, N, measures=[name], **NO_CACHE)
    m = M.CLASSIC_MEASURES[name]
    for t, rb in enumerate([3, 8]):
        vals = np.round(m(allruns, rb=rb), 9).tolist()
        for ties in ("unq", "mid"):
            phi = _brute_phi(vals, ties)
            want = [phi[v] for v in np.round(m(rel[:, t], rb=rb), 9).tolist()]
            assert rs.ranked[ties][name][t].tolist() == want
    # the snapped originals are the measure's values
    # b10 at N = 6 ≤ 10 is rational (Fractions), b02 snapped floats
    np.testing.assert_allclose(rs.original[name].astype(float), m(rel, rb=np.array([3, 8])).T, rtol=0, atol=1e-12)
    assert (rs.original[name].dtype == object) == name.endswith("b10")


@settings(max_examples=30, deadline=None)
@given(hs.integers(2, 6), hs.integers(2, 4), hs.integers(2, 7), hs.integers(0, 2**32 - 1))
def test_ranked_keeps_the_order_of_runs_on_every_topic(S, T, N, seed):
    rng = np.random.default_rng(seed)
    rel = rng.integers(0, 2, size=(S, T, N))
    rb = rng.integers(1, 12, size=T)
    rs = RK.ranked_scores(make_collection(rel, rb), N, **NO_CACHE)
    for m in rs.measures:
        o = rs.original[m]
        for ties in RK.TIES:
            r = rs.ranked[ties][m]
            for t in range(T):
                so = np.sign(np.subtract.outer(o[t], o[t]).astype(float))
                sr = np.sign(np.subtract.outer(r[t], r[t]).astype(float))
                assert (so == sr).all(), (m, ties, t)
    ck = FT.topic_by_topic_check([rs])
    assert ck["all_one"].all()


# ------------------------------------------------------------------------ invariants (item 6)


@pytest.fixture(scope="module", params=["sim-t08", "sim-t26", "sim-t27"])
def sim(request):
    """A simulated track cut at N = 5 and 10, 30 systems (the first 30 of the preset)."""
    c = load_preset(request.param, depth=10).subset(systems=list(range(30)))
    return [RK.ranked_scores(c, N) for N in (5, 10)]


def test_tables_label_simulated_rows(sim):
    t2 = FT.table2(sim)
    assert list(t2.columns) == list(RK.PAPER_ORDER)
    assert all(r.startswith("sim-T") and r[-3:] in ("_05", "_10") for r in t2.index)


def test_invariant_tau_one_for_P_RBP05_and_DCG10_upto_10(sim):
    t2 = FT.table2(sim)
    assert (t2["P"] == 1.0).all() and (t2["RBP_p05"] == 1.0).all()
    assert (t2["DCG_b10"] == 1.0).all()  # N ≤ 10: DCG_b10 counts relevant documents, the scale of P
    t3 = FT.table3(sim)
    assert (t3["RBP_p05"] == 1.0).all()  # no ties: mid = unq
    assert (t3["P"] == t3["DCG_b10"]).all()  # DCG_b10 = #relevant for N ≤ 10: same runs, same mid ranks
    # RBP_p03 has no ties either, so its mid and unq rankings coincide
    assert (t3["RBP_p03"] == t2["RBP_p03"]).all()


def test_invariant_shared_ranked_versions(sim):
    for rs in sim:
        for ties in RK.TIES:
            r = rs.ranked[ties]
            assert np.array_equal(r["RBP_p03"], r["RBP_p05"])
            assert np.array_equal(r["R"], r["P"])
            assert np.array_equal(r["nDCG_b02"], r["DCG_b02"]) and np.array_equal(r["nDCG_b10"], r["DCG_b10"])
            if rs.N <= 10:
                assert np.array_equal(r["DCG_b10"], r["P"])
        t4 = FT.table4(rs)
        # τ(RBP_p03, RBP_p05) on ranked versions is 1, and Table 2's RBP_p03 equals Table 4's Msr
        assert t4.loc["RBP_p05 vs RBP_p03", "RnkMsr"] == 1.0
        assert t4.loc["RBP_p05 vs RBP_p03", "Msr"] == FT.table2([rs]).loc[rs.row, "RBP_p03"]
        assert t4.loc["R vs P", "RnkMsr"] == 1.0
        assert t4.loc["P vs RBP_p05", "RnkMsr"] == t4.loc["P vs RBP_p05", "Msr"]


def test_invariant_topic_by_topic_tau_is_one(sim):
    ck = FT.topic_by_topic_check(sim)
    assert ck["all_one"].all()
    assert (ck["defined"] > 0).all()


def test_invariant_significance(sim):
    rs = sim[1]  # N = 10
    f = ST.table56(rs)
    assert len(f) == 11 * 8
    pr = f[f.measure.isin(["P", "RBP_p05"])]
    assert (pr.s2ns == 0).all() and (pr.ns2s == 0).all() and (pr.sig > 0).all()
    # measures not depending on the recall base: ordinal tests see the same per-topic order
    # (Sign, Friedman) and the same order over the whole matrix (rank sum, Kruskal-Wallis)
    free_ord = f[f.measure.isin(RK.RECALL_BASE_FREE) & f.test.isin(["sign", "ranksum", "kruskalwallis", "friedman"])]
    assert (free_ord.s2ns == 0).all() and (free_ord.ns2s == 0).all()
    # recall-base measures: Sign and Friedman work within a topic, so they do not change either
    rb_topic = f[f.measure.isin(RK.RECALL_BASE) & f.test.isin(["sign", "friedman"])]
    assert (rb_topic.s2ns == 0).all() and (rb_topic.ns2s == 0).all()
    # DCG_b10 at N = 10 is P's scale: nothing changes in any test
    d10 = f[f.measure == "DCG_b10"]
    assert (d10.s2ns == 0).all() and (d10.ns2s == 0).all()
    # the ratios are the counts over Sig; Δ = (S2NS + NS2S)/Sig
    ok = f.sig > 0
    assert np.allclose(f.delta[ok], (f.s2ns + f.ns2s)[ok] / f.sig[ok])
    mean, sd = ST.grand_mean_delta([f])
    assert mean == pytest.approx(f.delta.dropna().mean()) and sd == pytest.approx(f.delta.dropna().std(ddof=1))


def test_significance_shared_ranked_versions_are_tested_once(sim):
    rs = sim[0]
    rs.sig_cache.clear()
    ST.table56(rs, measures=["P", "R", "RBP_p03", "RBP_p05"], tests=["sign", "ttest"])
    assert len(rs.sig_cache) == 2  # P_R = R_R and RBP_p03_R = RBP_p05_R


def test_rounding_means_to_8_decimals_option(sim):
    t = FT.table2(sim, decimals=8)
    assert (t["P"] == 1.0).all()
    assert t.shape == FT.table2(sim).shape


# ------------------------------------------------------------------------ exactness and errors


def test_snap_detects_floats_out_of_order():
    snapped, codes, floats = RK.snap_floats(np.array([0.5, 0.5 + 1e-17, 0.25]), np.array([2, 2, 1]), "x")
    assert snapped.tolist() == [0.5, 0.5, 0.25]
    RK.check_increasing(codes, floats, "x")
    with pytest.raises(ArithmeticError, match="distinct exact values"):
        RK.check_increasing(np.array([1, 2]), np.array([0.5, 0.5]), "DCG")
    with pytest.raises(ArithmeticError, match="same exact value"):
        RK.snap_floats(np.array([0.5, 0.7]), np.array([1, 1]), "DCG")


def test_dcg_ties_are_exact_after_snapping():
    # Ranks 1 and 2 both weigh 1 in DCG_b02: [1 0 1] and [0 1 1] tie exactly, and so do their snapped floats;
    # [1 0 0] on both topics vs [0 1 0]: the per-topic values must be identical floats.
    rel = [[[1, 0, 1], [1, 0, 0]], [[0, 1, 1], [0, 1, 0]], [[0, 0, 1], [0, 0, 1]]]
    rs = RK.ranked_scores(make_collection(rel, rb=[2, 2]), 3, measures=["DCG_b02"], **NO_CACHE)
    o = rs.original["DCG_b02"]
    assert o[0, 0] == o[0, 1] and o[1, 0] == o[1, 1]
    assert FT.table2([rs]).loc["sim-HAND_03", "DCG_b02"] == 1.0


def test_errors_are_clear():
    c = make_collection(np.zeros((3, 2, 4)), rb=[0, 2])
    with pytest.raises(ValueError, match="topic 'q0' has no relevant documents"):
        RK.ranked_scores(c, 4, **NO_CACHE)
    RK.ranked_scores(c, 4, measures=["P", "RR"], **NO_CACHE)  # fine without recall-base measures
    with pytest.raises(ValueError, match="N must be a positive integer"):
        RK.ranked_scores(c, 0, measures=["P"])
    with pytest.raises(ValueError, match="unknown measure"):
        RK.ranked_scores(c, 4, measures=["MAP"])
    with pytest.raises(ValueError, match="ties must be among"):
        RK.ranked_scores(c, 4, measures=["P"], ties=["max"])
    with pytest.raises(TypeError, match="expected a Collection"):
        RK.ranked_scores(np.zeros((3, 2, 4)), 4)
    real = make_collection(np.zeros((3, 2, 4)), rb=[1, 2], simulated=False)
    with pytest.raises(ValueError, match="pass a name"):
        RK.track_name(real)
    assert RK.track_name(real, "T08") == "T08"
    rs = RK.ranked_scores(real, 4, measures=["P"], ties=["unq"], track="T08", **NO_CACHE)
    with pytest.raises(ValueError, match="ties='mid' were not computed"):
        FT.table3([rs])
    with pytest.raises(ValueError, match="not computed"):
        ST.table56(rs, measures=["AP"])


def test_save_table_names_simulated_files(tmp_path):
    df = pd.DataFrame({"P": [1.0]}, index=pd.Index(["sim-T08_05"], name="Track"))
    p = FT.save_table(df, "table2", "sim-T08", simulated=True, directory=tmp_path)
    assert p.name == "simulated_table2_sim-t08.csv"
    assert FT.save_table(df, "table4", "T08", simulated=False, N=30, directory=tmp_path).name == "table4_t08_N30.csv"
    assert pd.read_csv(p, index_col=0).loc["sim-T08_05", "P"] == 1.0


# ------------------------------------------------------------------------ published rows


def test_table4_pairs_cover_all_55_pairs_once():
    assert len(FT.TABLE4_PAIRS) == 55
    assert {frozenset(p) for p in FT.TABLE4_PAIRS} == {frozenset(p) for p in itertools.combinations(RK.PAPER_ORDER, 2)}


def test_published_items_map_real_tracks_only():
    pub = published.load("fff21")
    items = set(pub["item"])
    t2 = pd.DataFrame({m: [0.5, 0.5] for m in RK.PAPER_ORDER}, index=["T08_05", "sim-T08_05"])
    t4 = {"T08_30": pd.DataFrame({"Msr": [0.5] * 55, "RnkMsr": [0.5] * 55, "Delta%": [0.0] * 55},
                                 index=[f"{a} vs {b}" for a, b in FT.TABLE4_PAIRS]),
          "sim-T08_30": pd.DataFrame({"Msr": [0.5], "RnkMsr": [0.5], "Delta%": [0.0]}, index=["P vs RR"]),
          "T08_10": pd.DataFrame({"Msr": [0.5], "RnkMsr": [0.5], "Delta%": [0.0]}, index=["P vs RR"])}
    rows = [{"track": tr, "measure": m, "label": SG.TEST_LABELS[t], "sig": 10, "s2ns": 1, "ns2s": 2,
             "s2ns_ratio": 0.1, "ns2s_ratio": 0.2, "delta": 0.3}
            for tr in ("T26_30", "sim-T26_30") for m in RK.PAPER_ORDER for t in SG.TESTS]
    got = FT.published_items(t2=t2, t3=t2, t4=t4, t56=[pd.DataFrame(rows)], grand=(0.25, 0.11))
    assert set(got) <= items  # the paper prints Table 4 at N = 30 only: T08_10 is left out
    assert len(got) == 2 * 11 + 55 * 3 + 11 * 8 * 6 + 2
    cmp = published.compare("fff21", got)
    assert cmp.frame.set_index("item").loc["table2/T08_05/P", "status"] == "differs"
    assert cmp.frame.set_index("item").loc["table5/T26_30/P/Sign Test/S2NS", "status"] == "differs"
    assert cmp.frame.set_index("item").loc["s7.3/grand_mean_delta/mean", "status"] == "match"
    assert got["table6/T26_30/R/Student's t Test/Delta%"] == "30.00%"


def test_published_tables_are_consistent_with_the_invariants():
    """The paper's own Tables 2–6 obey the invariants (none shows what theory says cannot happen)."""
    pub = published.load("fff21")
    # the tables and the grand mean (the §6/§7 sentences about them are also kind trec)
    tables = pub.item.str.match(r"table[2-6]/|s7\.3/grand_mean_delta/")
    v = pub[(pub.kind == "trec") & tables].set_index("item")["value"]
    tracks = ("T08", "T26", "T27")
    assert len(v) == 12 * 11 * 2 + 55 * 9 + 11 * 8 * 18 + 2
    for tr in tracks:
        for n in ("05", "10", "20", "30"):
            assert v[f"table2/{tr}_{n}/P"] == v[f"table2/{tr}_{n}/RBP_p05"] == "1.0000"
            assert v[f"table3/{tr}_{n}/RBP_p05"] == "1.0000"
            assert v[f"table3/{tr}_{n}/RBP_p03"] == v[f"table2/{tr}_{n}/RBP_p03"]
            if n in ("05", "10"):
                assert v[f"table2/{tr}_{n}/DCG_b10"] == "1.0000"
                assert v[f"table3/{tr}_{n}/DCG_b10"] == v[f"table3/{tr}_{n}/P"]
        row = f"{tr}_30"
        assert v[f"table4/{row}/RBP_p05 vs RBP_p03/Msr"] == v[f"table2/{row}/RBP_p03"]
        assert v[f"table4/{row}/R vs P/Msr"] == v[f"table2/{row}/R"]
        for other in ("P", "RR", "RBP_p08", "DCG_b02", "DCG_b10"):  # RBP_p03_R = RBP_p05_R
            a = v.get(f"table4/{row}/RBP_p05 vs {other}/RnkMsr", v.get(f"table4/{row}/{other} vs RBP_p05/RnkMsr"))
            b = v.get(f"table4/{row}/RBP_p03 vs {other}/RnkMsr", v.get(f"table4/{row}/{other} vs RBP_p03/RnkMsr"))
            assert a is not None and a == b, (row, other)
        for t in ("Sign Test", "Wilcoxon Rank Sum Test", "Kruskal-Wallis Test", "Friedman Test"):
            for m in RK.RECALL_BASE_FREE:
                assert v[f"table5/{row}/{m}/{t}/S2NS"] == v[f"table5/{row}/{m}/{t}/NS2S"] == "0"
        for t in SG.TEST_LABELS.values():
            for m in ("P", "RBP_p05"):
                assert v[f"table5/{row}/{m}/{t}/S2NS"] == v[f"table5/{row}/{m}/{t}/NS2S"] == "0"
        for m, num in (("R", "P"), ("nDCG_b02", "DCG_b02"), ("nDCG_b10", "DCG_b10")):
            for t in ("Sign Test", "Friedman Test"):
                assert v[f"table6/{row}/{m}/{t}/Sig"] == v[f"table5/{row}/{num}/{t}/Sig"]


def test_plot_significance_changes_says_simulated(sim, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    f = ST.table56(sim[0], measures=["P", "RR", "AP"], tests=["sign", "ttest"])
    fig = ST.plot_significance_changes([f, f], simulated=True)
    assert "simulated" in fig._suptitle.get_text().lower()
    heat = [ax for ax in fig.axes if ax.get_images()]
    assert len(heat) == 4  # S2NS and NS2S for each of the two tracks
    assert heat[0].get_images()[0].get_array().shape == (2, 3)
    with pytest.raises(ValueError, match="no table56 frames"):
        ST.plot_significance_changes([], simulated=True)
    import matplotlib.pyplot as plt
    plt.close(fig)


def _changes_frame(track="T", measures=("P", "RR", "AP"), sig=1000):
    """A table56-shaped frame by hand: every test × measure, S2NS = NS2S = 50 (5 % of Sig), except
    one NS2S of 3,500 (350 %), one no-change cell and one measure with Sig = 0 on the sign test."""
    rows = []
    for m in measures:
        for t in SG.TESTS:
            s = 0 if (m, t) == (measures[0], "sign") else sig
            ns2s = 3500 if (m, t) == (measures[-1], "anova1") else (0 if t == "friedman" else 50)
            rows.append({"track": track, "measure": m, "test": t, "label": SG.TEST_LABELS[t],
                         "ordinal": t in SG.ORDINAL_TESTS, "sig": s, "s2ns": 50 if s else 0, "ns2s": ns2s if s else 0,
                         "s2ns_ratio": 50 / s if s else np.nan, "ns2s_ratio": ns2s / s if s else np.nan})
    return pd.DataFrame(rows)


def test_plot_significance_changes_is_readable_despite_an_outlier():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = ST.plot_significance_changes([_changes_frame("A"), _changes_frame("B")], simulated=False)
    heat = [ax for ax in fig.axes if ax.get_images()]
    assert len(heat) == 4  # (S2NS, NS2S) per track
    norm = heat[1].get_images()[0].norm
    # the 350 % cell sets the top of the scale but 5 % still sits well off the palest colour: the
    # scale is logarithmic (1 %..350 %), where a linear 0..350 % scale would put 5 % at 0.014
    assert norm.vmax == pytest.approx(350) and norm(5.0) > 0.25 and norm(350.0) == pytest.approx(1.0)
    assert heat[0].get_images()[0].norm is norm  # one colour scale for every panel
    for ax in heat:
        assert all(t.get_fontsize() >= 8 for t in ax.texts)  # cell numbers ≥ 8 pt
        assert len(ax.texts) == 3 * len(SG.TESTS)
    img = np.ma.asarray(heat[1].get_images()[0].get_array())
    assert img.mask[SG.TESTS.index("friedman")].all()  # no change: no colour (white)
    grey = {t.get_text() for t in heat[0].get_yticklabels() if t.get_color() != "black"}
    assert grey == {SG.TEST_LABELS[t] for t in SG.ORDINAL_TESTS}  # grey rows = ordinal tests ...
    caption = fig.get_supxlabel()
    assert "grey" in caption and "ordinal scale" in caption  # ... and the caption says so
    assert "Sig = 0" in caption and "simulated" not in caption.lower()
    bar = [ax for ax in fig.axes if ax.get_ylabel().startswith("changed pairs as % of Sig")]
    assert len(bar) == 1 and "log" in bar[0].get_ylabel()
    plt.close(fig)
    sim = ST.plot_significance_changes([_changes_frame()], simulated=True)
    assert "simulated" in sim._suptitle.get_text().lower() and "simulated" in sim.get_supxlabel().lower()
    plt.close(sim)


def test_mean_guard_refuses_ties_decided_by_rounding():
    # 0.1 + 0.2 != 0.3 in floats: the means of these two systems differ only by rounding
    s = np.array([[0.1, 0.3], [0.2, 0.0]])
    with pytest.raises(ArithmeticError, match="too little to tell a tie from rounding"):
        RK.checked_means(s, None, "x")
    assert RK.checked_means(s, 8, "x").tolist() == [0.15, 0.15]  # FFF21's rounding makes it a tie
    # the same multiset of values: an exact tie, accepted
    m = RK.checked_means(np.array([[0.1, 0.2], [0.2, 0.1]]), None, "x")
    assert m[0] == m[1]
    # Fractions are exact: 1/10 + 2/10 = 3/10
    f = np.array([[Fr(1, 10), Fr(3, 10)], [Fr(2, 10), Fr(0)]], dtype=object)
    assert RK.checked_means(f, None, "x").tolist() == [Fr(3, 20), Fr(3, 20)]


def test_ndcg_b10_is_exact_for_short_runs():
    # N = 3 ≤ 10: nDCG_b10 = #rel / min(RB, 3), topic RBs 3 and 2. Systems (topic 1, topic 2):
    # A = (1/3, 2/2) mean 2/3; B = (2/3, 2/2) 5/6; C = (3/3, 1/2) 3/4; D = (2/3, 1/2) 7/12;
    # E = (3/3, 0/2) mean 1/2... and F = (0/3, 2/2) mean 1/2: an exact tie between different multisets.
    rel = [[[1, 0, 0], [1, 1, 0]], [[1, 1, 0], [1, 1, 0]], [[1, 1, 1], [1, 0, 0]], [[0, 1, 1], [0, 1, 0]],
           [[1, 1, 1], [0, 0, 0]], [[0, 0, 0], [1, 1, 0]]]
    rs = RK.ranked_scores(make_collection(rel, rb=[3, 2]), 3, measures=["nDCG_b10", "DCG_b10"], **NO_CACHE)
    o = rs.original["nDCG_b10"]
    assert o.dtype == object and o[:, 0].tolist() == [Fr(1, 3), 1]
    means = RK.checked_means(o, None, "x")
    assert means[0] == Fr(2, 3) and means[4] == means[5] == Fr(1, 2)
    assert rs.original["DCG_b10"][:, 2].tolist() == [3, 1]


# ------------------------------------------------------- exact ties of DCG / nDCG system means (issue 15)

# System A: topic 1 empty, topic 2 relevant at ranks 3-5; system B: ranks 4-5, then rank 3. Both sum
# to 2·w3 + w4 + w5 exactly (different multisets of per-topic values), yet the float means differ
# by one ulp: the case that crashed T08_05 DCG_b02 ("differ by 0, too little to tell a tie").
_TIE_RUNS = [[[0, 0, 0, 0, 0], [0, 0, 1, 1, 1]], [[0, 0, 0, 1, 1], [0, 0, 1, 0, 0]],
             [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]]


def test_dcg_means_tied_exactly_while_floats_differ():
    rs = RK.ranked_scores(make_collection(_TIE_RUNS, rb=[3, 3], simulated=False), 5, measures=["DCG_b02", "nDCG_b02"],
                          track="T", **NO_CACHE)
    o = rs.original["DCG_b02"]
    floats = system_means(o)
    assert floats[0] != floats[1] and abs(floats[0] - floats[1]) < 1e-15  # one ulp apart
    with pytest.raises(ArithmeticError, match="too little to tell a tie from rounding"):
        RK.checked_means(o, None, "x")  # floats alone cannot decide it
    codes = rs.exact["DCG_b02"].mean_codes()
    assert codes[0] == codes[1] and codes[2] != codes[0]
    t2 = FT.table2([rs])  # no error with the defaults
    assert t2.loc["T_05", "DCG_b02"] == FT.table2([rs], decimals=8).loc["T_05", "DCG_b02"]
    # nDCG with one normaliser IDCG(3) = 2 + w3 on both topics: A and B still tie exactly ...
    n = rs.exact["nDCG_b02"].mean_codes()
    assert n[0] == n[1]
    # ... but not with IDCG(2) = 2 on topic 1: A = (w3 + w4 + w5)/(2 + w3) < B = (w4 + w5)/2 + w3/(2 + w3)
    rs2 = RK.ranked_scores(make_collection(_TIE_RUNS, rb=[2, 3]), 5, measures=["nDCG_b02"], **NO_CACHE)
    n2 = rs2.exact["nDCG_b02"].mean_codes()
    assert n2[0] < n2[1]


def _decimal_mean_order(rel, rb, name):
    """Independent reference: means in 60-digit Decimal straight from the JK discount formula."""
    from decimal import Decimal, localcontext

    m = M.CLASSIC_MEASURES[name]
    S, T, N = np.asarray(rel).shape
    with localcontext() as ctx:
        ctx.prec = 60
        B = Decimal(int(m.base))
        w = [Decimal(1) if i <= m.base else B.ln() / Decimal(i).ln() for i in range(1, N + 1)]
        means = []
        for s in range(S):
            tot = Decimal(0)
            for t in range(T):
                v = sum((w[i] for i in range(N) if rel[s][t][i]), Decimal(0))
                if isinstance(m, M.NDCG):
                    v /= sum(w[: min(rb[t], N)], Decimal(0))
                tot += v
            means.append(tot)
    order = sorted(set(means), key=lambda x: x)
    codes, prev, k = {}, None, -1
    for x in order:  # merge values within 1e-40: a true tie up to the reference's rounding
        if prev is None or x - prev > Decimal("1e-40"):
            k += 1
        codes[x], prev = k, x
    return np.array([codes[x] for x in means])


@settings(max_examples=40, deadline=None)
@given(hs.integers(3, 7), hs.integers(1, 3), hs.integers(3, 12), hs.integers(0, 2**32 - 1),
       hs.sampled_from(["DCG_b02", "nDCG_b02", "DCG_b10", "nDCG_b10"]))
@example(3, 3, 5, 203, "nDCG_b02")  # rational parts from topics with different normalisers tie
def test_exact_dcg_mean_order_matches_a_decimal_reference(S, T, N, seed, name):
    rng = np.random.default_rng(seed)
    # few distinct runs, so that exact ties between system means are common
    pool = rng.integers(0, 2, size=(4, N))
    rel = pool[rng.integers(0, 4, size=(S, T))]
    rb = rng.integers(1, N + 2, size=T)
    rs = RK.ranked_scores(make_collection(rel, rb=rb), N, measures=[name], **NO_CACHE)
    if name in rs.exact:
        codes = rs.exact[name].mean_codes()
    else:  # N ≤ base: rational, exact Fractions
        codes = dense_ranks(RK.checked_means(rs.original[name], None, "x"))
    assert np.array_equal(codes, _decimal_mean_order(rel.tolist(), rb.tolist(), name))


# ------------------------------------------------- Tukey critical value convention of Tables 5–6 (issue 15)


def test_matlab_critical_value_decides_a_pair_between_the_two_critical_values():
    from irscales.stats._anova import studentized_range_critical

    rng = np.random.default_rng(3)
    T, S = 61, 3  # one-way error df = S(T − 1) = 180 > 120: MATLAB uses the df = ∞ quantile
    y = rng.normal(size=(T, S))
    y -= y.mean(axis=0)
    mse = ((y - y.mean(axis=0)) ** 2).sum() / (S * (T - 1))
    lo, hi = studentized_range_critical(0.05, S, S * (T - 1), "matlab"), studentized_range_critical(0.05, S, S * (T - 1))
    assert lo < hi
    y[:, 1] += (lo + hi) / 2 * np.sqrt(mse / T)  # pair (0, 1): q halfway between the two critical values
    y[:, 2] += 10 * np.sqrt(mse / T)
    res = SG.significance_tests(y, tests=["anova1", "ttest"], pvalues=False)
    exact, matlab = res["anova1"], ST.with_critical(res, "matlab")["anova1"]
    assert exact.significant.tolist() == [False, True, True]
    assert matlab.significant.tolist() == [True, True, True]
    assert matlab.omnibus["q_critical"] == lo and exact.omnibus["q_critical"] == pytest.approx(hi)
    assert ST.with_critical(res, "matlab")["ttest"] is res["ttest"]  # only Tukey-type procedures change


def test_table56_critical_option(sim):
    rs = sim[0]
    a = ST.table56(rs, measures=["RR"], tests=["anova1", "friedman"])
    b = ST.table56(rs, measures=["RR"], tests=["anova1", "friedman"], critical="matlab")
    assert (b.sig >= a.sig).all()  # a smaller critical value only adds significant pairs
    with pytest.raises(ValueError, match="critical must be one of"):
        ST.table56(rs, critical="spss")


def test_published_items_of_simulated_tracks_only_on_request(sim):
    t2 = FT.table2(sim)
    assert FT.published_items(t2) == {}
    items = FT.published_items(t2, simulated=True)
    assert items and all("/sim-" not in k and k.startswith("table2/T") for k in items)


# --------------------------------------------------------- real TREC-8 runs (IRSCALES_TREC, issue 15)


def _t08():
    from irscales.paths import trec_track

    t = trec_track("T08")
    if t is None:
        pytest.skip("TREC-8 runs not found: set IRSCALES_TREC to a folder with T08/runs and T08/qrels*")
    return Collection.from_trec(t.runs, t.qrels, depth=10)


@pytest.mark.data
def test_real_t08_table2_and_table3_rows_at_N10():
    c = _t08()
    rs = RK.ranked_scores(c, 10, track="T08", progress=False)  # no decimals=8 needed
    items = FT.published_items(FT.table2([rs]), FT.table3([rs]))
    cmp = published.compare("fff21", items, route="real").frame.set_index("item").loc[list(items)]
    assert len(cmp) == 22
    # everything agrees but ranked AP, whose scale in the paper is not the exact one (see 01b, issue 15) ...
    assert sorted(cmp.index[~cmp.match]) == ["table2/T08_10/AP", "table3/T08_10/AP"]
    # ... and with the paper's double-precision scale of SP everything agrees
    fl = RK.ranked_scores(c, 10, measures=["AP"], track="T08", ap="fff21-float", progress=False)
    items = FT.published_items(FT.table2([fl]), FT.table3([fl]))
    assert len(items) == 2 and published.compare("fff21", items).frame.set_index("item").loc[list(items)].match.all()


def test_difference_notes_name_the_known_groups():
    items = ["table2/T08_10/AP", "table2/T08_10/RR", "table4/T08_30/AP vs P/RnkMsr", "table4/T08_30/AP vs P/Msr",
             "table6/T08_30/AP/Sign Test/Sig", "table5/T08_30/RR/One-way ANOVA/Sig", "table5/T08_30/RR/Sign Test/Sig"]
    exact = FT.difference_notes(items)
    assert set(exact) == {"table2/T08_10/AP", "table4/T08_30/AP vs P/RnkMsr", "table6/T08_30/AP/Sign Test/Sig",
                          "table5/T08_30/RR/One-way ANOVA/Sig"}
    assert "critical='matlab'" in exact["table5/T08_30/RR/One-way ANOVA/Sig"]
    assert "table5/T08_30/RR/One-way ANOVA/Sig" not in FT.difference_notes(items, critical="matlab")


def test_critical_value_flips_are_the_pairs_between_the_two_critical_values(sim):
    rs = sim[1]
    flips = ST.critical_value_flips(rs)
    assert ((flips.q > flips.q_matlab) & (flips.q <= flips.q_exact)).all()
    # they are exactly the extra significant pairs of critical="matlab" (original versions)
    a = ST.table56(rs, tests=["anova1", "anova2"])
    b = ST.table56(rs, tests=["anova1", "anova2"], critical="matlab")
    orig = flips[flips.version == "original"].groupby(["measure", "test"]).size()
    extra = (b.set_index(["measure", "test"]).sig - a.set_index(["measure", "test"]).sig)
    assert len(orig) > 0 and extra[extra > 0].to_dict() == orig.to_dict()


def test_float_ap_taus_exact_row_is_table2_and_table3():
    rng = np.random.default_rng(5)
    rel = rng.integers(0, 2, size=(8, 4, 6))
    c = make_collection(rel, rb=[3, 4, 6, 9])
    rs = RK.ranked_scores(c, 6, measures=["AP"], **NO_CACHE)
    f = FT.float_ap_taus(c, 6)
    assert list(f.index[1:-1]) == [f"double, {o}" for o in FT.AP_FLOAT_ORDERS] and "fff21-float" in f.index[-1]
    assert f.iloc[0]["unq"] == FT.table2([rs]).iloc[0]["AP"] and f.iloc[0]["mid"] == FT.table3([rs]).iloc[0]["AP"]
    assert f["unq"].between(-1, 1).all()
    with pytest.raises(ValueError, match="N ≤ 20"):
        FT.float_ap_taus(make_collection(np.zeros((2, 1, 21)), rb=[1]), 21)


# ------------------------------------------------------- FFF21's float convention for ranked AP (issue 15)


@pytest.mark.parametrize("N", [3, 6, 9, 10])
def test_float_sp_phi_matches_brute_force(N):
    rng = np.random.default_rng(N)
    rel = rng.integers(0, 2, size=(5, 3, N))
    runs = ((np.arange(2**N)[:, None] >> (N - 1 - np.arange(N))) & 1)
    allv = RK.float_sp(runs)
    u, s = np.unique(allv), np.sort(allv)
    q = RK.float_sp(rel).T
    unq, mid = RK.float_sp_phi(rel)
    assert np.array_equal(unq, np.searchsorted(u, q, "right"))
    assert np.array_equal(mid, (np.searchsorted(s, q, "left") + 1 + np.searchsorted(s, q, "right")) / 2)
    if N == 10:  # double sums split exact ties: 866 distinct floats for 810 exact SP values
        assert len(u) == 866 and RK.ranked_scores(make_collection(rel, rb=[3, 3, 3]), 10, measures=["AP"],
                                                  **NO_CACHE).ranked["unq"]["AP"].max() <= 810


def test_ap_fff21_float_convention():
    rel = np.array([[[1, 1, 0, 1], [0, 1, 1, 0]], [[1, 0, 1, 1], [1, 1, 1, 0]], [[0, 0, 1, 1], [0, 1, 0, 1]]])
    c = make_collection(rel, rb=[3, 4])
    ex = RK.ranked_scores(c, 4, measures=["AP"], **NO_CACHE)
    fl = RK.ranked_scores(c, 4, measures=["AP"], ap="fff21-float", **NO_CACHE)
    assert fl.float_measures == {"AP"} and fl.original["AP"].dtype == float
    assert np.allclose(fl.original["AP"], ex.original["AP"].astype(float), atol=1e-15)
    assert FT.topic_by_topic_check([fl])["all_one"].all()
    with pytest.raises(ValueError, match="ap must be one of"):
        RK.ranked_scores(c, 4, measures=["AP"], ap="matlab", **NO_CACHE)


# ------------------------------------------------------------------- the notebook's reproduction


def test_run_lengths_defaults():
    assert FT.run_lengths(False) == ([5, 10], 10, 30)
    assert FT.run_lengths(True) == ([5, 10, 20, 30], 30, None)
    assert FT.run_lengths(False, [4], 6, 3) == ([4], 6, 3)


def test_reproduce_tables_is_the_tables_of_its_parts(tmp_path, monkeypatch):
    """reproduce_tables gives table2/3/4/56 of ranked_scores; save_rows, table56_layout, the summary
    lines and compare_published read them (the notebook 01b's steps)."""
    monkeypatch.setenv("IRSCALES_FIGURES", str(tmp_path))
    tracks = FT.load_tracks(["sim-t08"], None, full=False, depth=10, max_systems=6)
    assert list(tracks) == ["sim-T08"] and len(tracks["sim-T08"].systems) == 6
    assert FT.describe_track("sim-T08", tracks["sim-T08"]).startswith("sim-T08: 6 systems x ")
    rep = FT.reproduce_tables(tracks, [5], 6)
    rs5, rs6 = rep.results["sim-T08", 5], rep.results["sim-T08", 6]
    pd.testing.assert_frame_equal(rep.t2, FT.table2([rs5]))
    pd.testing.assert_frame_equal(rep.t3, FT.table3([rs5]))
    pd.testing.assert_frame_equal(rep.t4["sim-T08_06"], FT.table4(rs6))
    pd.testing.assert_frame_equal(rep.t56["sim-T08"], ST.table56(rs6))
    paths = FT.save_rows(rep.t2, "table2", tracks, [5])
    assert [p.name for p in paths] == ["simulated_table2_sim-t08.csv"]
    lay = ST.table56_layout(rep.t56, RK.RECALL_BASE_FREE)
    assert ("sim-T08_06", "Sig") in lay.columns and set(lay.index.get_level_values(0)) == set(RK.RECALL_BASE_FREE)
    lines = list(ST.significance_summary(rep.t56))
    assert lines[0].startswith("grand mean Δ% over tracks, measures and tests:") and len(lines) == 7
    out = list(FT.compare_published(rep, tracks, "exact", "exact", tmp_path))
    assert out[-1].startswith("§7.3 grand mean not compared")
    taus = FT.ap_scale_taus(tracks["sim-T08"], "sim-T08", [5], rep.results, "exact", None)
    assert taus.loc["sim-T08_05", ("exact", "unq")] == rep.t2.loc["sim-T08_05", "AP"]


# ------------------------------------------------------- the adapter over the API's engine (issue 40)


@pytest.mark.data
@pytest.mark.filterwarnings("ignore:judged@10")  # the demo's shallow qrels: scores are lower bounds
def test_ranked_scores_are_what_evaluate_returns(cranfield_demo):
    """φ of ranked_scores is evaluate's raw φ for every FFF21 measure and both tie strategies: FFF21's
    tables and the API have one engine (irscales.interval), so a fix in one reaches the other."""
    import irscales

    demo = cranfield_demo / "demo"
    N = 10
    c = Collection.from_trec(demo / "runs", demo / "qrels.txt", depth=N, cache=False)
    rs = RK.ranked_scores(c, N, track="demo", **NO_CACHE)
    for t in RK.TIES:
        ev = irscales.evaluate(demo / "qrels.txt", demo / "runs", list(RK.PAPER_ORDER), depth=N, ranked=True,
                               ties=t, phi=True, cache=False)
        for name in RK.PAPER_ORDER:
            phi = ev.interval(name, raw=True).reindex(index=list(rs.topics), columns=list(rs.systems))
            assert phi.notna().all().all(), (name, t)
            assert np.array_equal(np.vectorize(float)(phi.to_numpy()), rs.ranked[t][name]), (name, t)
