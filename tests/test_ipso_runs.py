"""IPSO on runs (MM23 §3, Table 3 and Figs 5–8): hand-worked cases, cross-checks against per-pair
loops (ipso.compare_reference, corroboration.ipso_sign_test, scipy tests), and the properties the
paper relies on (an ni topic can never have M(A) < M(B))."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats

from irscales import corroboration, ipso, ipso_runs as IR
from irscales import data as collections
from irscales.papers import published
from irscales.data.collection import Collection
from irscales.ipso import Relation

EQ, NI, NS, NX = (int(r) for r in Relation)


def _collection(rel, rb=None, name="hand") -> Collection:
    rel = np.asarray(rel, dtype=np.int8)
    S, T, N = rel.shape
    rb = np.asarray(rb if rb is not None else [max(int(rel[:, t].sum(-1).max()), 1) for t in range(T)])
    judgments = np.stack([np.full(T, 50), rb], axis=1).astype(np.int64)
    return Collection(rel=rel, judgments=judgments, run_lengths=np.full((S, T), N, dtype=np.int64),
                      topics=tuple(str(301 + t) for t in range(T)), systems=tuple(f"s{i}" for i in range(S)),
                      provenance=f"simulated: {name}")


@pytest.fixture(scope="module")
def small():
    """12 systems x 40 topics x 20 ranks of the simulated Robust-like preset."""
    col = collections.load_preset("sim-r04", depth=20, seed=3)
    return col.subset(systems=list(range(0, 110, 9))[:12], topics=list(range(40)))


# ------------------------------------------------------------------------- hand-worked cases

HAND = np.array([
    # topic 1            topic 2
    [[1, 0, 0], [0, 0, 1]],   # s0
    [[0, 1, 1], [0, 0, 1]],   # s1
    [[1, 0, 1], [1, 0, 0]],   # s2
])


def test_hand_case_relations_at_every_depth():
    r = IR.pair_relations(HAND)
    assert list(zip(r.first.tolist(), r.second.tolist())) == [(0, 1), (0, 2), (1, 2)]
    # (s0, s1) topic 1: cumul 1, 0, -1 -> ahead at 1, behind at 3: ni at k=1,2, ** at 3
    # (s0, s1) topic 2: identical -> = ;  (s0, s2) topic 1: cumul 0, 0, -1 -> = then ns at 3
    # (s0, s2) topic 2: cumul -1, -1, 0 -> ns ; (s1, s2) topic 1: -1, 0, 0 -> ns
    # (s1, s2) topic 2: -1, -1, 0 -> ns
    assert r.at(1).tolist() == [[NI, EQ], [EQ, NS], [NS, NS]]
    assert r.at(2).tolist() == [[NI, EQ], [EQ, NS], [NS, NS]]
    assert r.at(3).tolist() == [[NX, EQ], [NS, NS], [NS, NS]]
    assert r.counts(3) == {"=": 1, "ni": 0, "ns": 4, "**": 1}
    t3 = IR.table3(r, [1, 3])
    assert t3.loc[3, "SERP pairs"] == 6
    assert t3.loc[3, "non-sep. %"] == pytest.approx(100 / 6)
    assert t3.loc[1, "equal %"] == pytest.approx(100 * 2 / 6)
    ni, ns = r.sign_counts(3)
    assert ni.tolist() == [0, 0, 0] and ns.tolist() == [0, 2, 2]


def test_pair_index_matches_triu_order():
    r = IR.pair_relations(np.zeros((7, 1, 2), dtype=np.int8))
    for row, (a, b) in enumerate(zip(r.first.tolist(), r.second.tolist())):
        assert r.pair_index(a, b) == (row, False)
        assert r.pair_index(b, a) == (row, True)
    with pytest.raises(ValueError, match="two different"):
        r.pair_index(2, 2)


@pytest.mark.parametrize("bad, err, msg", [
    (np.zeros((2, 3)), ValueError, "shape"),
    (np.zeros((1, 3, 4), dtype=np.int8), ValueError, "at least 2 systems"),
    (np.zeros((2, 3, 4)), TypeError, "integer grades"),
    (-np.ones((2, 3, 4), dtype=np.int8), ValueError, "at \\(system, topic, rank\\) = \\(0, 0, 0\\)"),
])
def test_bad_input_is_reported(bad, err, msg):
    with pytest.raises(err, match=msg):
        IR.pair_relations(bad)


def test_depth_out_of_range():
    r = IR.pair_relations(HAND)
    with pytest.raises(ValueError, match="1..3"):
        r.at(4)
    with pytest.raises(ValueError, match="1..3"):
        IR.table3(r, [5])


# ------------------------------------------------------------------- cross-checks and properties


@settings(max_examples=40, deadline=None)
@given(hs.integers(2, 5), hs.integers(1, 4), hs.integers(1, 8), hs.integers(1, 3), hs.integers(0, 2**32 - 1))
def test_vectorised_equals_per_pair_loop(S, T, N, G, seed):
    rel = np.random.default_rng(seed).integers(0, G + 1, size=(S, T, N)).astype(np.int8)
    r = IR.pair_relations(rel)
    for k in range(1, N + 1):
        assert np.array_equal(r.at(k), IR.pair_relations_reference(rel, k))
        # the relation at k is that of the runs cut at k
        assert np.array_equal(r.at(k), IR.pair_relations(rel[..., :k]).at(k))


def test_matches_ipso_compare_on_real_shaped_data(small):
    b = small.binary()
    r = IR.pair_relations(b, small.systems, small.topics)
    for k in (1, 5, 20):
        for row in (0, 7, r.n_pairs - 1):
            i, j = r.first[row], r.second[row]
            assert np.array_equal(r.at(k)[row], ipso.compare(b[i], b[j], k=k).relation)


def test_counts_sum_and_monotone_nonseparability(small):
    r = IR.pair_relations(small.binary())
    prev = None
    for k in range(1, small.depth + 1):
        c = r.counts(k)
        assert sum(c.values()) == r.n_pairs * len(small.topics)
        if prev is not None:  # MM23 Fig. 4: once non-separable, always; once separated, never equal
            assert c["**"] >= prev["**"] and c["="] <= prev["="]
        prev = c


# ------------------------------------------------------------------------------- sign tests


@pytest.mark.parametrize("x, y", [(0, 0), (3, 0), (81, 109), (5, 5), (0, 20), (117, 109), (14, 3)])
def test_sign_test_pvalues_against_binomial(x, y):
    p, sig = IR.sign_test_pvalues([x], [y], alpha=0.05)
    assert p[0] == pytest.approx(corroboration.binomial_two_sided(x, x + y), rel=1e-12)
    if x + y:
        assert p[0] == pytest.approx(stats.binomtest(x, x + y).pvalue, rel=1e-9)
    assert bool(sig[0]) == (p[0] < 0.05)


def test_sign_test_decision_is_exact_at_alpha():
    # n = 1: p = 1; choose alpha equal to an exact dyadic p to test the strict inequality
    # 0 vs 3: p = 2/8 = 0.25 exactly; p < 0.25 must be False, p < 0.2500001 True
    assert not IR.sign_test_pvalues([0], [3], alpha=0.25)[1][0]
    assert IR.sign_test_pvalues([0], [3], alpha=0.2500001)[1][0]
    with pytest.raises(ValueError, match="alpha"):
        IR.sign_test_pvalues([0], [3], alpha=1.5)
    with pytest.raises(ValueError, match=">= 0"):
        IR.sign_test_pvalues([-1], [3])


def test_ipso_sign_tests_against_corroboration_loop(small):
    b = small.binary()
    r = IR.pair_relations(b)
    for k in (5, 20):
        ip = IR.ipso_sign_tests(r, k)
        for row in range(0, r.n_pairs, 5):
            i, j = r.first[row], r.second[row]
            ref = corroboration.ipso_sign_test(b[i], b[j], k)  # B = j against A = i
            assert (ip.ni[row], ip.ns[row]) == (ref.ns, ref.ni)
            assert (ip.equal[row], ip.nonsep[row]) == (ref.equal, ref.nonseparable)
            assert ip.pvalue[row] == pytest.approx(ref.pvalue, rel=1e-12)


def test_topic_subset_of_sign_test(small):
    r = IR.pair_relations(small.binary())
    sub = small.subset(topics=list(range(10)))
    r_sub = IR.pair_relations(sub.binary())
    a = IR.ipso_sign_tests(r, 10, topics=np.arange(10))
    c = IR.ipso_sign_tests(r_sub, 10)
    assert np.array_equal(a.ni, c.ni) and np.array_equal(a.pvalue, c.pvalue)


# ---------------------------------------------------------------------- agreement / Fig. 7


def test_agreement_categories():
    cat = IR.agreement([True, False, True, False], [True, False, False, True])
    assert [IR.AGREEMENT[c] for c in cat] == ["Both: Yes", "Both: No", "Metric: Yes", "Metric: No"]
    with pytest.raises(ValueError, match="shapes"):
        IR.agreement([True], [True, False])


def test_fig7_against_per_pair_loop(small):
    col = small.subset(systems=list(range(6)))
    r = IR.pair_relations(col.binary())
    f = IR.fig7(col, depths=(5, 10), rels=r)
    assert set(f["metric"]) == {"RR", "Prec@k", "RBP(0.5)", "RBP(0.8)", "AP", "NDCG"}
    tot = f.groupby(["metric", "depth", "test"])["pairs"].sum()
    assert (tot == r.n_pairs).all()
    # recompute one bar with scipy per pair: NDCG, k = 10, t test and sign test
    m = IR.metrics_at(10)["NDCG"]
    sc = col.evaluate(m, 10)
    for test, ours in (("t", "t"), ("sign", "sign")):
        counts = np.zeros(4, int)
        for row, (i, j) in enumerate(zip(r.first, r.second)):
            p_metric = corroboration.metric_test(sc[:, i], sc[:, j], test)
            ref = corroboration.ipso_sign_test(col.binary(10)[i], col.binary(10)[j], 10)
            counts[IR.agreement([p_metric < 0.05], [ref.pvalue < 0.05])[0]] += 1
        bar = f[(f["metric"] == "NDCG") & (f["depth"] == 10) & (f["test"] == ours)]
        assert bar["pairs"].tolist() == counts.tolist()


def test_fig7_plot_runs(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    col = small.subset(systems=list(range(4)))
    f = IR.fig7(col, depths=(5,))
    fig = IR.plot_fig7(f, title="simulated")
    assert len(fig.axes) == 18
    plt.close(fig)


# --------------------------------------------------------------------------- Figs 5-6


def test_pair_topics_hand_case():
    # A vs B on four topics, k = 4: = ; ni (A ahead at 2) ; ns ; ** via ns (behind at 1, ahead at 3)
    A = [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 1, 1, 0]]
    B = [[1, 0, 1, 0], [0, 0, 0, 1], [0, 0, 1, 0], [1, 0, 0, 0]]
    col = _collection(np.array([A, B]), rb=[3, 3, 3, 3])
    df = IR.pair_topics(col, 0, 1, depth=4)
    assert df["group"].tolist() == ["** via ns", "ns", "=", "ni"]
    assert df["topic"].tolist() == ["304", "303", "301", "302"]
    row = df.iloc[0]
    assert [row[f"rel@{i}"] for i in range(1, 5)] == ["ns", "ns", "**", "**"]
    assert row["n_**"] == 2 and row["leading_="] == 0
    # = topic: every difference exactly 0; ni: none negative; ns: none positive
    sign_cols = [c for c in df.columns if c.startswith("sign ")]
    assert (df.loc[df["group"] == "=", sign_cols] == 0).all().all()
    assert (df.loc[df["group"] == "ni", sign_cols] >= 0).all().all()
    assert (df.loc[df["group"] == "ns", sign_cols] <= 0).all().all()
    # RR on the ** topic: A first relevant at 2, B at 1 -> M(A) − M(B) = 1/2 − 1 < 0
    assert row["sign RR"] == -1 and row["d RR"] == pytest.approx(-0.5)
    # Prec@4 on the ** topic: 2/4 vs 1/4
    assert row["sign Prec@k"] == 1


def test_ipso_mandates_metric_signs(small):
    """MM23 §3: on ni topics no metric can score A below B; on ns topics none above; = topics tie."""
    a, b = IR.fig5_pair(small, 10)
    df = IR.pair_topics(small, a, b, 10)
    signs = df[[c for c in df.columns if c.startswith("sign ")]]
    assert (signs[df["relation"] == "ni"] >= 0).all().all()
    assert (signs[df["relation"] == "ns"] <= 0).all().all()
    assert (signs[df["relation"] == "="] == 0).all().all()
    order = [IR.GROUPS.index(g) for g in df["group"]]
    assert order == sorted(order)


def test_fig5_pair_is_best_and_quarter(small):
    from irscales.measures import P

    a, b = IR.fig5_pair(small, 10)
    means = [sum(v, Fraction(0)) for v in small.evaluate(P(k=10), 10, exact=True).T]
    assert means[a] == max(means)
    assert sorted(means, reverse=True)[round(0.25 * (len(means) - 1))] == means[b]


def test_plot_pair_topics_runs(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, b = IR.fig5_pair(small, 10)
    df = IR.pair_topics(small, a, b, 10)
    for pieces in (1, 2):
        fig = IR.plot_pair_topics(df, title="simulated", pieces=pieces)
        assert len(fig.axes) == pieces
        plt.close(fig)


# ---------------------------------------------------------------------------------- Fig. 8


def test_triangle_consistency(small):
    r = IR.pair_relations(small.binary(), small.systems, small.topics)
    tri = IR.triangle(small, 10, "t", 0.05, rels=r)
    S = len(small.systems)
    assert len(tri) == S * (S - 1) // 2
    assert (tri["rank_a"] < tri["rank_b"]).all()
    ranks = set(tri["rank_a"]) | set(tri["rank_b"])
    assert ranks == set(range(1, S + 1))
    # per pair, the better-ranked system is A: recompute its IPSO counts directly
    b = small.binary(10)
    for _, row in tri.head(8).iterrows():
        i, j = small.systems.index(row["system_a"]), small.systems.index(row["system_b"])
        ref = corroboration.ipso_sign_test(b[i], b[j], 10)
        assert (row["ni"], row["ns"]) == (ref.ns, ref.ni)
    expect = IR.agreement(tri["metric_sig"].to_numpy(), tri["ipso_sig"].to_numpy())
    assert tri["category"].tolist() == [IR.AGREEMENT[c] for c in expect]


def test_triangle_topic_subset_and_plot(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tri = IR.triangle(small, 10, "t", 0.01, topics=small.topics[:15])
    assert tri["metric_sig"].sum() <= IR.triangle(small, 10, "t", 0.05, topics=small.topics[:15])["metric_sig"].sum()
    ax = IR.plot_triangle(tri, title="simulated")
    plt.close(ax.figure)
    other = IR.pair_relations(small.binary()[:, :5], small.systems, small.topics[:5])
    with pytest.raises(ValueError, match="different collection"):
        IR.triangle(small, 10, rels=other)


# ---------------------------------------------------------------------- TREC files by path


def test_trec_files_give_the_same_relations(small, tmp_path):
    col = small.subset(systems=list(range(4)), topics=list(range(10)))
    runs, qrels = col.to_trec(tmp_path)
    back = Collection.from_trec(runs, qrels, depth=col.depth)
    order = [back.systems.index(s) for s in col.systems]
    r1 = IR.pair_relations(col.binary())
    r2 = IR.pair_relations(back.binary()[order])
    for k in (5, col.depth):
        assert np.array_equal(r1.at(k), r2.at(k))


# ------------------------------------------------------------------ published vs reproduced


def test_worked_sign_tests_of_the_paper():
    out, notes = IR.reproduce_from_printed(published.load("mm23"))
    pub = published.load("mm23").set_index("item")
    assert published.matches(pub.loc["s3/ipso_sign_test/p_81_vs_109", "value"], out["s3/ipso_sign_test/p_81_vs_109"])
    assert out["s3/ipso_sign_test/p_81_vs_145_below_0.01"] == "yes"
    # the paper prints p ≈ 0.25 for 117 vs 109; the exact two-tailed sign test gives 0.64 (0.32 one-tailed)
    assert not published.matches(pub.loc["s3/ipso_sign_test/p_117_vs_109", "value"],
                                 out["s3/ipso_sign_test/p_117_vs_109"])
    assert out["s3/ipso_sign_test/p_117_vs_109"] == pytest.approx(stats.binomtest(117, 226).pvalue)
    assert "0.64 two-sided (0.32 one-sided)" in notes["s3/ipso_sign_test/p_117_vs_109"]


def test_sign_test_one_sided_against_scipy_and_by_hand():
    assert IR.sign_test_one_sided(3, 0) == Fraction(1, 8)      # P(X ≥ 3), X ~ B(3, 1/2)
    assert IR.sign_test_one_sided(1, 2) == Fraction(4, 8)      # P(X ≥ 2) = (3 + 1) / 8
    assert float(IR.sign_test_one_sided(117, 109)) == pytest.approx(
        stats.binomtest(117, 226, alternative="greater").pvalue)


def test_printed_product_is_evaluated_as_printed():
    assert IR.printed_product("'Across the set of 110×259=27,390 runs'") == ([110, 259], 1, 28490)
    assert IR.printed_product("'249×110×109/2=1,492,755 resulting'") == ([249, 110, 109], 2, 1492755)
    with pytest.raises(ValueError, match="no printed product"):
        IR.printed_product("no arithmetic here")


def test_printed_items_follow_the_published_inputs():
    """Derived from data/published/mm23.csv, never typed: change an input and the outputs follow."""
    pub = published.load("mm23")
    out, notes = IR.reproduce_from_printed(pub)
    cmp = published.compare("mm23", out, notes=notes, route="printed").frame.set_index("item")
    for item in ("s3/system_pairs", "table3/serp_pairs", "s3/unjudged/share_with_unjudged",
                 "fig6/topics_total", "fig6/nonsep_topics"):
        assert cmp.loc[item, "match"], item
    # the paper's own product 110×259 is not 27,390: a difference with its checkable reason
    assert not cmp.loc["s3/unjudged/system_query_runs", "match"]
    assert out["s3/unjudged/system_query_runs"] == 110 * 259
    assert "110×249 = 27,390" in notes["s3/unjudged/system_query_runs"]
    changed = pub.copy()
    changed.loc[changed["item"] == "s3/setup/systems", "value"] = "4"
    changed.loc[changed["item"] == "fig6/group2_ns", "value"] = "5"
    out2, _ = IR.reproduce_from_printed(changed)
    assert out2["s3/system_pairs"] == 6 and out2["table3/serp_pairs"] == 6 * 249
    assert out2["s3/ipso_sign_test/p_81_vs_109"] == pytest.approx(stats.binomtest(5, 114).pvalue)


def test_simulated_values_never_count_as_reproductions(small):
    r = IR.pair_relations(small.binary(), small.systems, small.topics)
    out = IR.reproduce_part_b(small, r)
    pub = published.load("mm23")
    keep, notes = IR.split_simulated(small, out, pub)
    kinds = dict(zip(pub["item"], pub["kind"]))
    assert all(kinds[i] != "trec" for i in keep)
    assert all("simulated analogue" in n for n in notes.values())
    assert "table3/k5/equal" in notes and "fig8a/both_yes" in notes
    cmp = published.compare("mm23", keep, notes=notes)
    assert set(cmp.frame.loc[cmp.frame["kind"] == "trec", "status"]) == {"not reproduced"}
    # on a non-simulated collection the same values are compared
    real = Collection(**{**small.__dict__, "provenance": "trec: test"})
    keep2, notes2 = IR.split_simulated(real, out, pub)
    assert keep2 == out and notes2 == {}
    # real runs that are not the paper's (a public collection): analogues, never reproductions
    keep3, notes3 = IR.split_simulated(real, out, pub, paper_runs=False)
    assert all(kinds[i] != "trec" for i in keep3) and "table3/k5/equal" in notes3
    assert all("trec: test analogue" in n for n in notes3.values())


def test_fig7_float_scores_decide_as_exact_scores(small):
    """The float scores' ties give the same decisions as exact Fractions (rational metrics)."""
    col = small.subset(systems=list(range(8)))
    r = IR.pair_relations(col.binary())
    rational = {k: m for k, m in IR.metrics_at(10).items() if m.rational}
    a = IR.fig7(col, depths=(10,), rels=r, metrics=rational, tests=("sign", "wilcoxon"))
    b = IR.fig7(col, depths=(10,), rels=r, metrics=rational, tests=("sign", "wilcoxon"), exact=True)
    assert a["pairs"].tolist() == b["pairs"].tolist()
