"""MM23 Part B (irscales.papers.mm23): Figs 5–8 on runs, the paper's printed arithmetic, and
simulated values never counted as reproductions; the paper's property that an ni topic can never
have M(A) < M(B)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from irscales import ipso
from irscales import data as collections
from irscales.data.collection import Collection
from irscales.ipso import Relation
from irscales.papers import mm23, printing, published

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


def test_fig7_against_per_pair_loop(small):
    col = small.subset(systems=list(range(6)))
    r = ipso.pair_relations(col.binary())
    f = mm23.fig7(col, depths=(5, 10), rels=r)
    assert set(mm23.fig7_display(f)["metric"]) == {"RR", "Prec@k", "RBP(0.5)", "RBP(0.8)", "AP", "NDCG"}
    assert set(mm23.fig7_display(f)["test"]) == {"sign", "wilcoxon", "t"}
    assert set(f["test"]) == {"sign", "signrank", "ttest"}
    tot = f.groupby(["measure", "depth", "test"])["pairs"].sum()
    assert (tot == r.n_pairs).all()
    # recompute one bar with scipy per pair: NDCG, k = 10, t test and sign test
    m = mm23.metrics_at(10)["nDCG_log2p1"]
    sc = col.evaluate(m, 10)
    for test, ours in (("ttest", "ttest"), ("sign", "sign")):
        counts = np.zeros(4, int)
        for row, (i, j) in enumerate(zip(r.first, r.second)):
            p_metric = ipso.metric_test(sc[:, i], sc[:, j], test)
            ref = ipso.ipso_sign_test(col.binary(10)[i], col.binary(10)[j], 10)
            counts[ipso.agreement([p_metric < 0.05], [ref.pvalue < 0.05])[0]] += 1
        bar = f[(f["measure"] == "nDCG_log2p1") & (f["depth"] == 10) & (f["test"] == ours)]
        assert bar["pairs"].tolist() == counts.tolist()


def test_fig7_plot_runs(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    col = small.subset(systems=list(range(4)))
    f = mm23.fig7(col, depths=(5,))
    fig = mm23.plot_fig7(f, title="simulated")
    assert len(fig.axes) == 18
    plt.close(fig)


def test_pair_topics_hand_case():
    # A vs B on four topics, k = 4: = ; ni (A ahead at 2) ; ns ; ** via ns (behind at 1, ahead at 3)
    A = [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 1, 1, 0]]
    B = [[1, 0, 1, 0], [0, 0, 0, 1], [0, 0, 1, 0], [1, 0, 0, 0]]
    col = _collection(np.array([A, B]), rb=[3, 3, 3, 3])
    df = mm23.pair_topics(col, 0, 1, depth=4)
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
    a, b = mm23.fig5_pair(small, 10)
    df = mm23.pair_topics(small, a, b, 10)
    signs = df[[c for c in df.columns if c.startswith("sign ")]]
    assert (signs[df["relation"] == "ni"] >= 0).all().all()
    assert (signs[df["relation"] == "ns"] <= 0).all().all()
    assert (signs[df["relation"] == "="] == 0).all().all()
    assert mm23.mandated_signs(df) == {"ni >= 0": True, "ns <= 0": True, "= == 0": True}
    order = [mm23.GROUPS.index(g) for g in df["group"]]
    assert order == sorted(order)


def test_fig5_pair_is_best_and_quarter(small):
    from irscales.measures import P

    a, b = mm23.fig5_pair(small, 10)
    means = [sum(v, Fraction(0)) for v in small.evaluate(P(k=10), 10, exact=True).T]
    assert means[a] == max(means)
    assert sorted(means, reverse=True)[round(0.25 * (len(means) - 1))] == means[b]


def test_plot_pair_topics_runs(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, b = mm23.fig5_pair(small, 10)
    df = mm23.pair_topics(small, a, b, 10)
    for pieces in (1, 2):
        fig = mm23.plot_pair_topics(df, title="simulated", pieces=pieces)
        assert len(fig.axes) == pieces
        plt.close(fig)


def test_triangle_consistency(small):
    r = ipso.pair_relations(small.binary(), small.systems, small.topics)
    tri = mm23.triangle(small, 10, "ttest", 0.05, rels=r)
    S = len(small.systems)
    assert len(tri) == S * (S - 1) // 2
    assert (tri["rank_a"] < tri["rank_b"]).all()
    ranks = set(tri["rank_a"]) | set(tri["rank_b"])
    assert ranks == set(range(1, S + 1))
    # per pair, the better-ranked system is A: recompute its IPSO counts directly
    b = small.binary(10)
    for _, row in tri.head(8).iterrows():
        i, j = small.systems.index(row["system_a"]), small.systems.index(row["system_b"])
        ref = ipso.ipso_sign_test(b[i], b[j], 10)
        assert (row["ni"], row["ns"]) == (ref.ns, ref.ni)
    expect = ipso.agreement(tri["metric_sig"].to_numpy(), tri["ipso_sig"].to_numpy())
    assert tri["category"].tolist() == [ipso.AGREEMENT[c] for c in expect]


def test_triangle_topic_subset_and_plot(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tri = mm23.triangle(small, 10, "ttest", 0.01, topics=small.topics[:15])
    assert tri["metric_sig"].sum() <= mm23.triangle(small, 10, "ttest", 0.05, topics=small.topics[:15])["metric_sig"].sum()
    ax = mm23.plot_triangle(tri, title="simulated")
    plt.close(ax.figure)
    other = ipso.pair_relations(small.binary()[:, :5], small.systems, small.topics[:5])
    with pytest.raises(ValueError, match="different collection"):
        mm23.triangle(small, 10, rels=other)


def test_worked_sign_tests_of_the_paper():
    out, notes = mm23.reproduce_from_printed(published.load("mm23"))
    pub = published.load("mm23").set_index("item")
    assert printing.agreement(pub.loc["s3/ipso_sign_test/p_81_vs_109", "value"],
                              out["s3/ipso_sign_test/p_81_vs_109"]).reproduced
    assert out["s3/ipso_sign_test/p_81_vs_145_below_0.01"] == "yes"
    # the paper prints p ≈ 0.25 for 117 vs 109; the exact two-tailed sign test gives 0.64 (0.32 one-tailed),
    # far beyond what "≈" allows
    assert printing.agreement(pub.loc["s3/ipso_sign_test/p_117_vs_109", "value"], out["s3/ipso_sign_test/p_117_vs_109"],
                              word="≈").kind == "differs"
    assert out["s3/ipso_sign_test/p_117_vs_109"] == pytest.approx(stats.binomtest(117, 226).pvalue)
    assert "0.64 two-sided (0.32 one-sided)" in notes["s3/ipso_sign_test/p_117_vs_109"]


def test_printed_product_is_evaluated_as_printed():
    assert mm23.printed_product("'Across the set of 110×259=27,390 runs'") == ([110, 259], 1, 28490)
    assert mm23.printed_product("'249×110×109/2=1,492,755 resulting'") == ([249, 110, 109], 2, 1492755)
    with pytest.raises(ValueError, match="no printed product"):
        mm23.printed_product("no arithmetic here")


def test_printed_items_follow_the_published_inputs():
    """Derived from data/published/mm23.csv, never typed: change an input and the outputs follow."""
    pub = published.load("mm23")
    out, notes = mm23.reproduce_from_printed(pub)
    cmp = published.compare("mm23", out, notes=notes, route="printed").frame.set_index("item")
    for item in ("s3/system_pairs", "table3/serp_pairs", "s3/unjudged/share_with_unjudged",
                 "fig6/topics_total", "fig6/nonsep_topics"):
        assert cmp.loc[item, "match"], item
    # the count is systems × topics; the printed product beside it has a misprinted factor
    assert cmp.loc["s3/unjudged/system_query_runs", "match"]
    assert "110×259, is 28,490" in notes["s3/unjudged/system_query_runs"]
    changed = pub.copy()
    changed.loc[changed["item"] == "s3/setup/systems", "value"] = "4"
    changed.loc[changed["item"] == "fig6/group2_ns", "value"] = "5"
    out2, _ = mm23.reproduce_from_printed(changed)
    assert out2["s3/system_pairs"] == 6 and out2["table3/serp_pairs"] == 6 * 249
    assert out2["s3/ipso_sign_test/p_81_vs_109"] == pytest.approx(stats.binomtest(5, 114).pvalue)


def test_simulated_values_never_count_as_reproductions(small):
    r = ipso.pair_relations(small.binary(), small.systems, small.topics)
    out = mm23.reproduce_part_b(small, r)
    pub = published.load("mm23")
    keep, notes = mm23.split_simulated(small, out, pub)
    kinds = dict(zip(pub["item"], pub["kind"]))
    assert all(kinds[i] != "trec" for i in keep)
    assert all("simulated analogue" in n for n in notes.values())
    assert "table3/k5/equal" in notes and "fig8a/both_yes" in notes
    cmp = published.compare("mm23", keep, notes=notes)
    assert set(cmp.frame.loc[cmp.frame["kind"] == "trec", "status"]) == {"not reproduced"}
    # on a non-simulated collection the same values are compared
    real = Collection(**{**small.__dict__, "provenance": "trec: test"})
    keep2, notes2 = mm23.split_simulated(real, out, pub)
    assert keep2 == out and notes2 == {}
    # real runs that are not the paper's (a public collection): analogues, never reproductions
    keep3, notes3 = mm23.split_simulated(real, out, pub, paper_runs=False)
    assert all(kinds[i] != "trec" for i in keep3) and "table3/k5/equal" in notes3
    assert all("trec: test analogue" in n for n in notes3.values())


def test_fig7_float_scores_decide_as_exact_scores(small):
    """The float scores' ties give the same decisions as exact Fractions (rational metrics)."""
    col = small.subset(systems=list(range(8)))
    r = ipso.pair_relations(col.binary())
    rational = {k: m for k, m in mm23.metrics_at(10).items() if m.rational}
    a = mm23.fig7(col, depths=(10,), rels=r, metrics=rational, tests=("sign", "signrank"))
    b = mm23.fig7(col, depths=(10,), rels=r, metrics=rational, tests=("sign", "signrank"), exact=True)
    assert a["pairs"].tolist() == b["pairs"].tolist()


def test_system_query_runs_reproduce_and_only_the_printed_factor_differs():
    """§3 prints '110×259=27,390': the count is 110 systems × 249 topics (as printed), and 27,390 / 110 =
    249 is §3's topic count, so only the factor 259 is a misprint."""
    pub = published.load("mm23")
    out, notes = mm23.reproduce_from_printed(pub)
    f = published.compare("mm23", out, notes=notes, route="printed").frame.set_index("item")
    assert out["s3/unjudged/system_query_runs"] == 110 * 249 and f.loc["s3/unjudged/system_query_runs", "match"]
    assert out["s3/unjudged/topics_factor"] == 249 == int(pub.set_index("item").loc["s3/setup/topics", "value"])
    assert f.loc["s3/unjudged/topics_factor", "status"] == "differs"
    assert "28,490" in notes["s3/unjudged/topics_factor"] and "misprint" in notes["s3/unjudged/system_query_runs"]
    assert f.loc["s3/unjudged/share_with_unjudged", "match"]  # 18,817 / 27,390 = 68.7 % as printed
