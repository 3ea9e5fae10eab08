"""Tests of beyond FFF21 on real graded judgments (issue 30): irscales.papers.fff21.graded_data,
graded_scores, graded_tables, graded_figures, graded_real, and the interval layer's proven DCG depths.

Data-free tests run on a small synthetic graded collection (labelled as a test collection, not a
simulated preset). The tests on the shared data (CLEF eHealth 2018, Robust 2004) skip with a one-line
reason when it is absent; the done-when of the issue — counted graded φ equals the enumerated φ for
every run of both data sets cut at N ≤ 14, every tie strategy — shares one enumerated scale per
(measure, N) across both data sets and ranks each distinct run once."""

from __future__ import annotations

import warnings
from io import StringIO
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import irscales
from irscales import enumeration as E
from irscales import measures as M
from irscales.cli import main
from irscales.data import Collection
from irscales.enumeration import counting as C
from irscales.enumeration.routes import choose_route
from irscales.enumeration.ties import TIES
from irscales.interval import dcg_proven_depth, plan, uses_grades
from irscales.options import Settings
from irscales.papers.fff21 import graded_data as D
from irscales.papers.fff21 import graded_figures as F
from irscales.papers.fff21 import graded_real as R
from irscales.papers.fff21 import graded_scores as G
from irscales.papers.fff21 import graded_tables as GT
from irscales.paths import repo_root

# ------------------------------------------------------------------------------ data-free


@pytest.fixture(scope="module")
def small():
    """9 systems × 12 topics of graded runs (grades 0..2), judged so that every topic has relevant documents."""
    rng = np.random.default_rng(30)
    S, T, N = 9, 12, 8
    rel = rng.choice(3, size=(S, T, N), p=[0.5, 0.3, 0.2]).astype(np.int8)
    judgments = np.stack([np.full(T, 40), rng.integers(3, 9, T), rng.integers(2, 6, T)], axis=1)
    return Collection(rel=rel, judgments=judgments, run_lengths=np.full((S, T), N), topics=tuple(map(str, range(T))),
                      systems=tuple(f"s{i}" for i in range(S)), provenance="test: synthetic graded runs", max_grade=2)


def test_measures_pair_each_graded_measure_with_its_binary_counterpart():
    ms = G.measures(2)
    assert list(ms) == list(G.ORDER) and len(G.ORDER) == 10
    assert ms["gP"] == M.GP(max_gain=2) and ms["gRBP_p05"] == M.GRBP(p=0.5, max_gain=2)
    assert ms["gnDCG_b10"] == M.NDCG(base=10, gains="graded") and ms["nDCG_b02"] == M.parse("nDCG_b02")
    assert all(uses_grades(ms[g]) and not uses_grades(ms[b]) for g, b in G.COUNTERPART.items())


def test_graded_dcg_is_proven_only_as_far_as_an_enumeration_checked():
    g2, b10 = M.NDCG(base=2, gains="graded"), M.DCG(base=10, gains="graded")
    assert dcg_proven_depth(g2, 1) == 30 and dcg_proven_depth(g2, 2) == 17 and dcg_proven_depth(b10, 2) == 17
    assert dcg_proven_depth(g2, 4) == 2  # no enumeration over five grades checked: only N ≤ base is free of it
    for N, conditional in ((17, False), (18, True), (30, True)):
        p = plan([("g", g2)], N, Settings(), grades=2)[0]["g"]
        assert bool(p.caveat) is conditional and ("Schanuel" in p.caveat) is conditional
        assert p.route.grounds == ("conditional" if conditional else "enumeration")
        assert (p.route.basis == p.caveat) is conditional
    assert not plan([("b", M.parse("nDCG_b02"))], 30, Settings(), grades=2)[0]["b"].caveat  # binary: enumerated to 30


def test_each_route_names_what_its_exactness_rests_on():
    def route(m, N, c, method="auto"):
        return choose_route(m, N, c=c, method=method)
    closed = route(M.P(), 30, 1, "closed")
    assert (closed.grounds, closed.basis) == ("proof", "closed-form scale")
    assert route(M.P(), 30, 1, "count").basis == "counted; closed form"
    assert route(M.GRBP(p=0.5, max_gain=2), 6, 2, "engine").grounds == "enumeration"
    assert "carries" in route(M.GRBP(p=0.5, max_gain=2), 30, 2).basis
    assert route(M.GRBP(p=0.8, max_gain=2), 30, 2).grounds == "proof"
    assert route(M.NDCG(base=10, gains="graded"), 10, 2, "count").grounds == "proof"  # ranks 1..10 weigh 1
    assert route(M.NDCG(base=2, gains="graded"), 10, 2, "count").grounds == "enumeration"
    # log2(i + 1) weighs rank 2 below 1, so N ≤ 2 is no sum of gains: its grounds are not the JK discount's
    assert "log base" not in C.count_basis(M.parse("nDCG@2"), 2, 2)[1]


def test_graded_scores_equal_the_engines_phi_for_every_measure_and_tie(small):
    N = 6
    gs = G.graded_ranked_scores(small, N, "TEST", cache=False)
    assert gs.scores.row == "TEST_06" and set(gs.scores.measures) == set(G.ORDER)
    assert set(gs.exactness["exact"]) <= set(G.EXACT_KINDS)
    for name, m in G.measures(2).items():
        c = 2 if uses_grades(m) else 1
        rel = small.rel_at(N) if c == 2 else small.binary(N)
        sc = E.scale(E.numerator(m), N, c=c, method="engine", cache=False, build=True)
        for t in TIES:
            assert np.array_equal(np.asarray(gs.scores.ranked[t][name]), np.asarray(sc.phi_runs(rel, t)).T), (name, t)


def test_tables_on_graded_scores(small):
    res = [G.graded_ranked_scores(small, N, "TEST", cache=False) for N in (4, 8)]
    t2 = GT.table2(res, "test")
    assert len(t2) == 2 * 4 * 10 and set(t2["relevance"]) == {"graded", "binary (lenient)"}
    unq = t2[t2["ties"] == "unq"].set_index(["N", "measure"])["tau"]
    # gP, P, RBP_p05 and gRBP_p05 are affine in their φ_unq (grade sums; run ids; every integer of Σ g_i 2^(N−i))
    assert all(unq[(n, m)] == 1.0 for n in (4, 8) for m in ("gP", "P", "RBP_p05", "gRBP_p05"))
    grid = GT.table2_grid(t2)
    assert list(grid.index) == list(G.ORDER) and grid.shape == (10, 8)
    t4 = GT.table4(res[1], "test")
    assert len(t4) == 45 and set(t4["exact"]) <= set(G.EXACT_KINDS)
    assert np.allclose(t4["Delta%"], (t4["RnkMsr"] - t4["Msr"]) / t4["Msr"] * 100)
    t56 = GT.table56(res[1], "test")
    assert len(t56) == 10 * 8 and set(t56["table"]) == {5, 6}
    assert (t56.loc[t56["measure"].isin(["gP", "P", "RBP_p05"]), ["s2ns", "ns2s"]] == 0).all().all()


def test_a_measure_out_of_reach_is_left_out_with_the_planners_reason(small):
    """gRBP_p08 over three grades is counted up to N = 32 and enumerated up to 24: at N = 34 it is left out
    with the planner's reason, while gRBP_p05 (ties, but p = 1/2: every key a value) is counted at any N."""
    deep = Collection(rel=np.concatenate([small.rel] * 5, axis=2), judgments=small.judgments,
                      run_lengths=np.full(small.run_lengths.shape, 40), topics=small.topics, systems=small.systems,
                      provenance="test: synthetic graded runs", max_grade=2)
    gs = G.graded_ranked_scores(deep, 34, "TEST", names=("gRBP_p05", "gRBP_p08"), ties=("unq", "mid"), cache=False)
    assert gs.scores.measures == ("gRBP_p05",)
    row = gs.exactness.set_index(["measure", "ties"]).loc[("gRBP_p08", "unq")]
    assert row["exact"] == "not computed" and "up to N = 32" in row["basis"] and row["K"] is None
    e = gs.exactness.set_index(["measure", "ties"]).loc[("gRBP_p05", "unq")]
    assert e["K"] == 2 * (2**34 - 1) + 1 and e["exact"] == "proof" and "carries" in e["basis"]  # exact ints


def test_figures_are_labelled_real_data_beyond_the_papers(small):
    res = [G.graded_ranked_scores(small, N, "TEST", cache=False) for N in (4, 6)]
    t2 = GT.table2(res, "test")
    for fig in (F.plot_tau({"test": t2}), F.plot_table4({"TEST, N = 6": GT.table4(res[1], "test")}),
                F.plot_all_values(F.value_curves((4, 6), 2), {"TEST": {gs.scores.N: F.real_points(gs, small)
                                                                        for gs in res}}, (4, 6))):
        assert fig.get_suptitle().startswith(D.LABEL)
        fig.clf()
    # the all-values panels tick only values a measure takes: none of these graded measures is negative
    fig = F.plot_all_values(F.value_curves((4, 6), 2), {"TEST": {gs.scores.N: F.real_points(gs, small) for gs in res}},
                            (4, 6))
    for ax in fig.axes:
        if ax.lines:
            assert min(ax.get_yticks()) >= 0, ax.get_title()
    fig.clf()


def test_findings_are_computed_from_the_tables(small, tmp_path):
    res = [G.graded_ranked_scores(small, N, "TEST", cache=False) for N in (4, 8)]
    judged = pd.DataFrame({"dataset": "test", "k": [4, 8], "judged@k": [0.95, 0.6], "lowest system": [0.9, 0.4],
                           "systems below": [0, 9], "systems": 9, "reliable": [True, False]})
    r = R.BeyondGraded((4, 8), {}, {"test": res}, judged, GT.exactness(res, "test"), GT.table2(res, "test"),
                       pd.concat([GT.table4(gs, "test") for gs in res]),
                       pd.concat([GT.table56(gs, "test") for gs in res]))
    lines = R.findings(r)
    assert "judged@4 = 0.950, judged@8 = 0.600" in lines[0]
    assert "at N = 8, 9 of 9 systems have fewer than 90% of their top N judged (lowest 0.400)" in lines[0]
    t2 = r.table2
    assert f"< 1 in {int((t2['tau'] < 1).sum())} of {len(t2)} cells" in lines[1]
    changed = int((r.table56["s2ns"] + r.table56["ns2s"]).sum())
    assert f"changes the decision on {changed:,} " in lines[2]
    written = R.write(r, tmp_path)
    assert [p.name for p in written] == [f"graded_{k}_N4_8_beyond_real.csv"
                                         for k in ("judged", "exactness", "table2", "table4", "table56")]



def test_csv_files_say_what_they_are(tmp_path):
    p = GT.save(pd.DataFrame({"a": [1.5]}), "x_N5", tmp_path)
    assert p.name == "graded_x_N5_beyond_real.csv"
    assert p.read_text().startswith(f"# {D.LABEL}: x_N5\n")
    assert pd.read_csv(p, comment="#")["a"].tolist() == [1.5]


# ------------------------------------------------------------------------ committed outputs

_BEYOND = repo_root() / "figures" / "beyond" if repo_root() else None


@pytest.mark.skipif(_BEYOND is None, reason="not a source checkout (no figures/)")
def test_committed_tables_and_figures_cover_both_data_sets():
    """Notebook 08's quick outputs are committed: every table for both data sets, each file labelled."""
    for key in ("judged", "exactness", "table2", "table4", "table56"):
        p = _BEYOND / f"graded_{key}_N5_10_{GT.TAG}.csv"
        assert p.exists(), f"{p.name} is missing: run notebooks/08_beyond_graded_real.ipynb"
        assert p.read_text().startswith(f"# {D.LABEL}")
        f = pd.read_csv(p, comment="#")
        assert set(f["dataset"]) == set(D.DATASETS), p.name
        if "exact" in f:
            assert set(f["exact"]) <= set(G.EXACT_KINDS) | {"not computed"}
    for stem in ("table2_tau", "table4_tau", "all_values", "significance_changes_clef2018",
                 "significance_changes_robust2004"):
        assert (_BEYOND / f"graded_{stem}_N5_10_{GT.TAG}.png").exists(), stem


# ------------------------------------------------------------------------- the shared data

needs_data = pytest.mark.skipif(not all(D.available(n) for n in D.DATASETS),
                                reason="the shared CLEF eHealth 2018 / Robust 2004 data is absent (IRSCALES_SHARED)")


@pytest.fixture(scope="module")
def real():
    return {name: D.load(name, depth=14) for name in D.DATASETS}


@pytest.mark.data
@needs_data
def test_clef_runs_stay_24_systems_named_by_file(real):
    d = real["clef2018"]
    col = d.collection
    assert col.shape[:2] == (24, 50) and len(set(col.systems)) == 24 and col.max_grade == 2
    indri = [i for i, s in enumerate(col.systems) if s.startswith("baselines__indri_")]
    assert len(indri) == 6  # one run tag ('indri'), six systems, never merged: their rankings differ
    assert all(not np.array_equal(col.rel[a], col.rel[b]) for a, b in combinations(indri, 2))
    assert any("named by its file" in n for n in d.notes)
    assert int(d.repeats["repeats_dropped"].sum()) == 8325 and int((d.repeats["repeats_dropped"] > 0).sum()) == 9
    uevora = col.systems.index("UEvora__UEvoraIRtask1run1.res")
    assert int((col.run_lengths[uevora] == 0).sum()) == 1  # its missing topic, an empty run (trec_eval -c)
    r04 = real["robust2004"].collection
    assert r04.shape[:2] == (10, 249) and r04.max_grade == 2


@pytest.mark.data
@needs_data
def test_judged_at_k_reads_the_pool(real):
    j = D.judged_at(real["clef2018"], (5, 10, 14))
    assert (j["judged@k"] > 0.95).all() and j["judged@k"].is_monotonic_decreasing
    assert j["reliable"].all() and (j["lowest system"] > 0.9).all()


@pytest.mark.data
@needs_data
def test_counted_graded_phi_equals_enumerated_phi_on_every_real_run(real):
    """The issue's done-when: every run of both data sets cut at N ≤ 14 (three grades), every tie strategy."""
    for N in (2, 5, 10, 14):
        runs = np.unique(np.concatenate([d.collection.rel_at(N).reshape(-1, N) for d in real.values()]), axis=0)
        for name in G.GRADED:
            m = E.numerator(G.measures(2)[name])
            assert C.countable(m, N, 2)
            sc = E.scale(m, N, c=2, method="engine", cache=False, build=True)
            counted = C.phi_runs_ties(m, runs, c=2)
            for t in TIES:
                assert np.array_equal(counted[t], sc.phi_runs(runs, t)), (name, N, t)


@pytest.mark.data
@needs_data
def test_graded_scores_are_what_evaluate_returns(real):
    """φ of graded_ranked_scores is the one call's raw φ (irscales.evaluate, ranked=True, phi=True)."""
    d = real["clef2018"]
    gs = G.graded_ranked_scores(d.collection, 10, d.track, names=("gRBP_p08", "gnDCG_b02", "nDCG_b10"),
                                ties=("unq", "mid"))
    files = list(d.repeats["read_from"])
    measures = {k: G.measures(2)[k] for k in gs.scores.measures}
    for t in ("unq", "mid"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = irscales.evaluate(D.sources("clef2018")[1], files, list(measures.values()), depth=10, ranked=True,
                                   ties=t, phi=True, on_uneven_topics="pad")
        assert ev.systems == d.collection.systems
        for (label, _), name in zip(irscales.evaluation.measure_specs(list(measures.values())), measures):
            phi = ev.interval(label, raw=True).to_numpy()
            assert np.array_equal(np.vectorize(float)(phi), gs.scores.ranked[t][name]), (name, t)


@pytest.mark.data
def test_clef_ehealth_2018_reads_from_the_command_line():
    """Issue 36: 9 of the 24 runs repeat lines exactly; each error names the flag that reads them."""
    src = D.sources("clef2018")
    if src is None:
        pytest.skip(D.missing_reason("clef2018"))
    runs, qrels = src

    def run(args):
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)

    def one_line_error(r, *needles):
        assert r.exit_code == 1 and r.stdout == "", r.output
        assert r.stderr.strip().splitlines()[-1].startswith("irscales: error:") and "Traceback" not in r.output
        assert all(n in r.stderr.strip().splitlines()[-1] for n in needles), r.stderr

    base = ["scores", runs, "--qrels", qrels, "--measures", "AP,nDCG@10,ERR", "--means-only", "--format", "csv"]
    one_line_error(run(base), "duplicate document", "with the same score", "pass --on-repeated-lines drop")
    r = run(base + ["--on-repeated-lines", "drop"])  # one flag, the one the error named
    assert r.exit_code == 0, r.output
    # UEvora's run lacks topic 167001: an empty run there, said in one warning
    lacking = [ln for ln in r.stderr.splitlines() if "lack topic(s) that other runs have" in ln]
    assert len(lacking) == 1 and "167001" in lacking[0], r.stderr
    dropped = [ln for ln in r.stderr.splitlines() if "repeated line(s)" in ln]
    assert len(dropped) == 9 and all(ln.startswith("irscales: warning: ") for ln in dropped)
    f = pd.read_csv(StringIO(r.stdout))
    assert f["system"].nunique() == 24 and f["value"].between(0, 1).all()
