"""Tests of irscales.data.collection: Collection, TREC round trip, cross-checks with pytrec_eval and
ir_measures on the exported files, slicing, save/load, validation."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import Collection, load_preset
from irscales.measures import AP, NDCG, RBP, RR, P, R

DEPTH = 20


@pytest.fixture(scope="module")
def graded():
    return load_preset("sim-t26", depth=DEPTH, seed=11).subset(systems=range(0, 75, 5))


@pytest.fixture(scope="module")
def exported(graded, tmp_path_factory):
    d = tmp_path_factory.mktemp("trec")
    rundir, qrels = graded.to_trec(d, gz=True)
    return rundir, qrels


def small(rel, judgments, run_lengths=None, **kw):
    rel = np.asarray(rel, dtype=np.int8)
    S, T, _ = rel.shape
    return Collection(rel=rel, judgments=np.asarray(judgments, dtype=np.int64),
                      run_lengths=np.asarray(run_lengths if run_lengths is not None else np.full((S, T), 1000)),
                      topics=tuple(f"t{i}" for i in range(T)), systems=tuple(f"s{i}" for i in range(S)),
                      provenance=kw.pop("provenance", "trec: hand-made"), max_grade=np.asarray(judgments).shape[1] - 1,
                      **kw)


# ------------------------------------------------------------------ round trip (issue 7 "done when")


def test_round_trip_simulated_to_trec_to_collection(graded, exported):
    rundir, qrels = exported
    back = Collection.from_trec(rundir, qrels, depth=DEPTH)
    assert not back.is_simulated and back.provenance.startswith("trec: ")
    # runs are read in file-name order and topics in numeric order: align by name, then compare
    back = back.subset(topics=list(graded.topics), systems=list(graded.systems))
    assert back.topics == graded.topics and back.systems == graded.systems
    np.testing.assert_array_equal(back.rel, graded.rel)
    np.testing.assert_array_equal(back.judgments, graded.judgments)
    np.testing.assert_array_equal(back.run_lengths, np.minimum(graded.run_lengths, DEPTH))
    assert back.max_grade == graded.max_grade == 2


def test_round_trip_binary_preset_with_short_runs(tmp_path):
    c = load_preset("sim-r04", depth=10, seed=2).subset(topics=range(40))
    short = c.run_lengths < 10
    assert short.any(), "the fixture should contain runs shorter than the depth"
    rundir, qrels = c.to_trec(tmp_path)
    back = Collection.from_trec(rundir, qrels, depth=10).subset(topics=list(c.topics), systems=list(c.systems))
    np.testing.assert_array_equal(back.rel, c.rel)
    assert (back.rel[short.nonzero()[0], short.nonzero()[1], -1] == 0).all()


def test_round_trip_of_a_trec_collection(tmp_path):
    # TREC → Collection → TREC → Collection keeps the arrays (docnos become synthetic)
    (tmp_path / "a").mkdir()
    io.write_qrels(tmp_path / "a/q", ["1"] * 4 + ["2"] * 2, list("abcdxy"), [1, 0, 2, 1, 1, 0])
    io.write_run(tmp_path / "a/input.r1", ["1", "1", "1", "2"], ["c", "z", "a", "x"], [3, 2, 1, 5], "r1")
    io.write_run(tmp_path / "a/input.r2", ["1", "2", "2"], ["b", "y", "x"], [1, 2, 1], "r2")
    c1 = Collection.from_trec([tmp_path / "a/input.r1", tmp_path / "a/input.r2"], tmp_path / "a/q", depth=3)
    assert c1.rel.tolist() == [[[2, 0, 1], [1, 0, 0]], [[0, 0, 0], [0, 1, 0]]]
    rundir, q = c1.to_trec(tmp_path / "b")
    c2 = Collection.from_trec(rundir, q, depth=3)
    np.testing.assert_array_equal(c2.rel, c1.rel)
    np.testing.assert_array_equal(c2.judgments, c1.judgments)


# ------------------------------------------------------------------ measures vs pytrec_eval


def _pytrec(rundir, qrels, measures):
    q = io.read_qrels(qrels)
    qd: dict = {}
    for t, d, r in q[["topic", "docno", "rel"]].itertuples(index=False):
        qd.setdefault(t, {})[d] = int(r)
    out = {}
    for f in io.find_runs(rundir):
        run = io.read_run(f)
        rd: dict = {}
        for t, d, s in run[["topic", "docno", "score"]].itertuples(index=False):
            rd.setdefault(t, {})[d] = float(s)
        out[run.attrs["system"]] = pytrec_eval.RelevanceEvaluator(qd, measures).evaluate(rd)
    return out


@pytest.mark.parametrize("k", [5, 10, 20])
def test_measures_equal_pytrec_eval_on_exported_files(graded, exported, k):
    rundir, qrels = exported
    # the fixture must exercise the edge cases: short runs, tiny recall bases, grade 2, no hits
    assert (graded.run_lengths < DEPTH).any() and (graded.rb < 5).any()
    assert (graded.rel == 2).any() and (graded.rel.sum(-1) == 0).any()
    names = {f"P_{k}", f"recall_{k}", f"map_cut_{k}", f"ndcg_cut_{k}", "recip_rank"}
    ref = _pytrec(rundir, qrels, names)
    ours = {
        f"P_{k}": graded.evaluate(P(k=k), depth=k),
        f"recall_{k}": graded.evaluate(R(), depth=k),
        f"map_cut_{k}": graded.evaluate(AP(), depth=k),
        f"ndcg_cut_{k}": graded.evaluate(NDCG(discount="log2p1", gains="graded"), depth=k),
        # the exported runs stop at DEPTH, so trec_eval's recip_rank is RR at cut-off DEPTH
        "recip_rank": graded.evaluate(RR(), depth=DEPTH),
    }
    n = 0
    for si, s in enumerate(graded.systems):
        for ti, t in enumerate(graded.topics):
            for name, vals in ours.items():
                assert abs(vals[ti, si] - ref[s][t][name]) <= 1e-12, (s, t, name)
                n += 1
    assert n == len(graded.systems) * len(graded.topics) * 5


def test_binary_ndcg_from_rb_equals_pytrec_on_lenient_qrels(tmp_path):
    c = load_preset("sim-t08", depth=10, seed=4).subset(systems=range(10))
    rundir, qrels = c.to_trec(tmp_path)
    ref = _pytrec(rundir, qrels, {"ndcg_cut_10"})
    ours = c.evaluate(NDCG(discount="log2p1"))
    for si, s in enumerate(c.systems):
        for ti, t in enumerate(c.topics):
            assert abs(ours[ti, si] - ref[s][t]["ndcg_cut_10"]) <= 1e-12


@pytest.mark.parametrize("p", [0.3, 0.5, 0.8])
def test_rbp_equals_ir_measures(graded, exported, p):
    ir_measures = pytest.importorskip("ir_measures")
    provider = ir_measures.providers.registry.get("cwl_eval")
    if provider is None or not provider.is_available():
        pytest.skip("ir_measures has no RBP provider available offline (cwl_eval missing)")
    rundir, qrels = exported
    q = io.read_qrels(qrels)
    qrels_list = [ir_measures.Qrel(t, d, int(r)) for t, d, r in q[["topic", "docno", "rel"]].itertuples(index=False)]
    ours = graded.evaluate(RBP(p=p))
    for f in io.find_runs(rundir)[:5]:
        run = io.read_run(f)
        si = graded.systems.index(run.attrs["system"])
        docs = [ir_measures.ScoredDoc(t, d, float(s)) for t, d, s in run[["topic", "docno", "score"]].itertuples(index=False)]
        got = {m.query_id: m.value for m in provider.iter_calc([ir_measures.RBP(p=p, rel=1)], qrels_list, docs)}
        for ti, t in enumerate(graded.topics):
            assert abs(ours[ti, si] - got[t]) <= 1e-12


# ------------------------------------------------------------------ views, slicing, labels


def test_recall_base_ideal_and_binary():
    c = small([[[2, 0, 1, 0]]], [[5, 2, 1]])
    assert c.rb.tolist() == [3]
    assert c.ideal(5).tolist() == [[2, 1, 1, 0, 0]]
    assert c.binary().tolist() == [[[1, 0, 1, 0]]]
    # graded nDCG uses the ideal run: DCG = 2 + 1/log2(4); IDCG = 2 + 1/log2(3) + 1/log2(4)
    v = c.evaluate(NDCG(discount="log2p1", gains="graded"))[0, 0]
    assert v == pytest.approx((2 + 0.5) / (2 + 1 / np.log2(3) + 0.5), abs=1e-15)


def test_rel_at_shallower_and_deeper():
    c = small([[[1, 1, 0]]], [[1, 3]], run_lengths=[[2]])
    assert c.rel_at(2).tolist() == [[[1, 1]]]
    assert c.rel_at(5).tolist() == [[[1, 1, 0, 0, 0]]]  # every run is short: padding is exact
    c_long = small([[[1, 1, 0]]], [[1, 3]], run_lengths=[[1000]])
    with pytest.raises(ValueError, match="holds ranks 1..3 only"):
        c_long.rel_at(5)


def test_subset_by_names_positions_masks_and_labels():
    c = load_preset("sim-gop", depth=5, seed=0)
    assert c.shape == (1326, 349, 5)
    t131415 = c.where(track=["T13", "T14", "T15"])
    assert len(t131415.topics) == 149
    bm25 = t131415.where(model="bm25")
    assert len(bm25.systems) == 6 * 13 and set(bm25.system_labels["model"]) == {"bm25"}
    assert "[subset:" in bm25.provenance and bm25.is_simulated
    sub = c.subset(topics=["402", "401"], systems=[3, 0])
    assert sub.topics == ("402", "401") and sub.systems == (c.systems[3], c.systems[0])
    np.testing.assert_array_equal(sub.rel[1, 1], c.rel[0, c.topics.index("401")])
    mask = np.zeros(len(c.systems), bool)
    mask[[5, 7]] = True
    assert c.subset(systems=mask).systems == (c.systems[5], c.systems[7])
    with pytest.raises(KeyError, match="unknown topic"):
        c.subset(topics=["nope"])
    with pytest.raises(KeyError, match="no label 'colour'"):
        c.where(colour="red")


def test_simulated_labelling():
    c = load_preset("sim-t08", depth=5, seed=0)
    assert c.is_simulated and c.provenance == "simulated: sim-t08 seed=0 depth=5"
    assert c.label("fff21_table2.png") == "simulated_fff21_table2.png"
    assert small([[[1]]], [[0, 1]]).label("x") == "x"


def test_data_label_names_the_data():
    from dataclasses import replace

    from irscales.data.collection import data_label

    sim = load_preset("sim-t08", depth=5, seed=0)
    pub = replace(small([[[1]]], [[0, 1]]), provenance="public: gop-combined (binary qrels; parts=2 seed=0) depth=5")
    trec = replace(pub, provenance="trec: runs + qrels.txt depth=5")
    assert (sim.data_label, pub.data_label, trec.data_label) == ("simulated", "gop-combined", "trec")
    assert pub.subset(topics=[0]).data_label == "gop-combined"  # a subset keeps its data's name
    assert data_label([pub, pub.subset(topics=[0])]) == "gop-combined"
    assert data_label([pub, sim]) == "simulated" and data_label([pub, trec]) == "gop-combined+trec"


def test_save_load_round_trip(tmp_path):
    c = load_preset("sim-gop", depth=5, seed=1).where(track="T08")
    base = c.save(tmp_path / "gop_t08")
    d = Collection.load(base.with_suffix(".npz"))
    np.testing.assert_array_equal(d.rel, c.rel)
    np.testing.assert_array_equal(d.judgments, c.judgments)
    np.testing.assert_array_equal(d.run_lengths, c.run_lengths)
    assert (d.topics, d.systems, d.provenance, d.max_grade) == (c.topics, c.systems, c.provenance, c.max_grade)
    assert d.system_labels == c.system_labels and d.topic_labels == c.topic_labels
    with pytest.raises(FileNotFoundError, match="no saved collection"):
        Collection.load(tmp_path / "missing")


def test_constructor_validation():
    with pytest.raises(ValueError, match="rel has shape \\(1, 2, 3\\), expected \\(1, 1, depth\\)"):
        Collection(rel=np.zeros((1, 2, 3), np.int8), judgments=np.ones((1, 2), np.int64),
                   run_lengths=np.ones((1, 1), np.int64), topics=("t",), systems=("s",), provenance="x")
    with pytest.raises(ValueError, match="judgments has shape \\(1, 2\\), expected \\(2, 2\\)"):
        small(np.zeros((1, 2, 3)), [[1, 1]])
    with pytest.raises(ValueError, match="grades in rel must lie in 0..1"):
        small([[[2]]], [[1, 1]])
    with pytest.raises(ValueError, match="system label 'model' has 2 values"):
        small([[[1]]], [[1, 1]], system_labels={"model": ("a", "b")})


def test_export_refuses_impossible_runs(tmp_path):
    # a run with 2 relevant documents for a topic with RB = 1 has no TREC representation
    c = small([[[1, 1]]], [[0, 1]])
    with pytest.raises(ValueError, match="more documents of some grade than topic 't0' has judged"):
        c.to_trec(tmp_path)


def test_from_trec_error_surfaces_path_and_line(tmp_path):
    io.write_qrels(tmp_path / "q", ["1"], ["a"], [1])
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "input.x").write_text("1 Q0 a 1 1 x\n1 Q0 b 2 oops x\n")
    with pytest.raises(io.TrecFormatError, match=r"input\.x:2: score must be a number"):
        Collection.from_trec(tmp_path / "runs", tmp_path / "q", depth=5)


def test_repr_is_short_and_says_simulated():
    r = repr(load_preset("sim-t27", depth=5, seed=0))
    assert r == ("Collection(72 systems x 50 topics, depth 5, grades 0..2, labels ['corpus', 'track']; "
                 "simulated: sim-t27 seed=0 depth=5)")


def test_from_trec_with_a_qrels_frame(tmp_path):
    io.write_run(tmp_path / "input.r", ["1", "1"], ["a", "b"], [2, 1], "r")
    io.write_qrels(tmp_path / "q", ["1", "1"], ["a", "b"], [0, 2])
    q = io.read_qrels(tmp_path / "q")
    c = Collection.from_trec([tmp_path / "input.r"], q, depth=3)
    assert c.rel_at().tolist() == [[[0, 2, 0]]] and str(tmp_path / "q") in c.provenance
    with pytest.raises(io.TrecFormatError, match="outside the declared scale 0..1"):
        Collection.from_trec([tmp_path / "input.r"], q, depth=3, max_grade=1)


@st.composite
def collections_(draw):
    S, T, N = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 6))
    G = draw(st.integers(1, 3))
    judg = np.array([[draw(st.integers(0, 5)) for _ in range(G + 1)] for _ in range(T)], dtype=np.int64)
    rel = np.zeros((S, T, N), np.int8)
    lengths = np.zeros((S, T), np.int64)
    for s in range(S):
        for t in range(T):
            left = judg[t].copy()
            L = draw(st.sampled_from([0, 1, N, N + 2, draw(st.integers(0, N + 2))]))
            lengths[s, t] = L
            for i in range(min(L, N)):
                g = draw(st.integers(0, G))
                if g > 0 and left[g] == 0:
                    g = 0
                left[g] -= g > 0
                rel[s, t, i] = g
    return Collection(rel=rel, judgments=judg, run_lengths=lengths, topics=tuple(str(10 - t) for t in range(T)),
                      systems=tuple(f"s{s}" for s in range(S)), provenance="trec: generated", max_grade=G)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections_())
def test_round_trip_property(tmp_path_factory, c):
    """Any consistent collection (incl. empty runs, topics without relevant or without any judged
    documents) survives to_trec → from_trec; runs with no line for a topic need 'pad'."""
    assume((c.run_lengths > 0).any(1).all())  # an all-empty run has no TREC file (tested below)
    d = tmp_path_factory.mktemp("rt")
    rundir, q = c.to_trec(d)
    judged = c.judgments.sum(1) > 0
    retrieved = (c.run_lengths > 0).any(0)
    if not (judged & retrieved).any():
        return
    keep_t = judged  # with 'pad', every topic of the qrels, as trec_eval -c (issue 27 item 9)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = Collection.from_trec(rundir, q, depth=c.depth, on_no_relevant="keep", on_uneven_topics="pad",
                                    on_missing_topic="skip", max_grade=c.max_grade)
    ref = c.subset(topics=np.flatnonzero(keep_t))
    assert sorted(back.topics) == sorted(ref.topics)
    back = back.subset(topics=list(ref.topics), systems=list(ref.systems))
    assert back.depth == ref.depth
    np.testing.assert_array_equal(back.rel_at(), ref.rel_at())
    np.testing.assert_array_equal(back.judgments, ref.judgments)
    np.testing.assert_array_equal(back.run_lengths, np.minimum(ref.run_lengths, c.depth))


def test_export_refuses_systems_without_any_document(tmp_path):
    c = small([[[0, 0]], [[1, 0]]], [[1, 1]], run_lengths=[[0], [1]])
    with pytest.raises(ValueError, match="system\\(s\\) 's0' retrieve no document for any topic"):
        c.to_trec(tmp_path)


def test_evaluate_exact_and_generalised_recall():
    from fractions import Fraction

    from irscales.measures import GR, SP

    c = small([[[2, 0, 1, 0]], [[0, 0, 0, 1]]], [[5, 2, 1]])
    assert c.total_gain.tolist() == [4]
    # gR divides the run's gain by the topic's total gain: (2 + 1) / 4
    assert c.evaluate(GR())[0].tolist() == [0.75, 0.25]  # (T, S): topic 0, both systems
    assert c.evaluate(AP(), exact=True)[0].tolist() == [(Fraction(1) + Fraction(2, 3)) / 3, Fraction(1, 4) / 3]
    assert c.evaluate(SP(), exact=True)[0, 1] == Fraction(1, 4)
    got = c.evaluate(AP(), exact=True).astype(float)
    # the float kernel is within an ulp or two of the exact value (not always the rounded Fraction)
    np.testing.assert_allclose(c.evaluate(AP()), got, rtol=4e-16, atol=0)


# ------------------------------------------------------------------ grades and score precision (issues 18, 15)


def test_ideal_run_with_large_grades_and_its_dtype():
    from irscales.data import trec as trec_io

    G = 300
    judgments = np.zeros((2, G + 1), dtype=np.int64)
    judgments[0, [0, 1, 2, G]] = [5, 2, 1, 1]
    judgments[1, [0, 129]] = [1, 3]
    rel = np.zeros((1, 2, 6), dtype=trec_io.grade_dtype(G))
    c = Collection(rel=rel, judgments=judgments, run_lengths=np.ones((1, 2), np.int64), topics=("1", "2"),
                   systems=("s",), provenance="hand-made", max_grade=G)
    assert c.ideal().dtype == np.int16
    assert c.ideal().tolist() == [[G, 2, 1, 1, 0, 0], [129, 129, 129, 0, 0, 0]]
    assert c.ideal(2).tolist() == [[G, 2], [129, 129]]
    assert c.total_gain.tolist() == [G + 2 + 2, 3 * 129]


def test_constructor_refuses_non_integer_or_unstorable_grades():
    base = dict(judgments=np.array([[1, 1]]), run_lengths=np.ones((1, 1), np.int64), topics=("1",),
                systems=("s",), provenance="hand-made", max_grade=1)
    with pytest.raises(ValueError, match="integer grades"):
        Collection(rel=np.zeros((1, 1, 2), float), **base)
    with pytest.raises(ValueError, match=r"grades in rel must lie in 0..1, found 0..2"):
        Collection(rel=np.array([[[2, 0]]], np.int16), **base)
    with pytest.raises(ValueError, match="max_grade must lie in 0..32767"):
        Collection(rel=np.zeros((1, 1, 2), np.int16), **{**base, "max_grade": 40000,
                                                         "judgments": np.zeros((1, 40001), np.int64)})


def test_grade_256_through_the_command_line(tmp_path):
    # the case of issue 18: one relevant document of grade 256 at rank 4; pytrec_eval gives AP 0.25
    import pytrec_eval
    from click.testing import CliRunner

    from irscales.cli import main

    (tmp_path / "q").write_text("1 0 a 256\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 w 1 4 s\n1 Q0 x 2 3 s\n1 Q0 b 3 2 s\n1 Q0 a 4 1 s\n")
    ref = pytrec_eval.RelevanceEvaluator({"1": {"a": 256, "b": 0}}, {"map"}).evaluate(
        {"1": {"w": 4, "x": 3, "b": 2, "a": 1}})["1"]["map"]
    assert ref == 0.25
    res = CliRunner().invoke(main, ["scores", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"),
                                    "--depth", "4", "--measures", "AP", "--format", "csv", "--means-only"])
    assert res.exit_code == 0, res.output
    row = res.stdout.strip().splitlines()[-1].split(",")
    assert row[:3] == ["s", "all", "AP@4"] and float(row[3]) == ref


def test_score_precision_is_a_setting_of_from_trec(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 100000.1546100 s\n1 Q0 b 2 100000.1530000 s\n")
    f32 = Collection.from_trec([tmp_path / "r"], tmp_path / "q", depth=2)
    f64 = Collection.from_trec([tmp_path / "r"], tmp_path / "q", depth=2, score_precision="float64")
    assert f32.rel.tolist() == [[[0, 1]]] and f64.rel.tolist() == [[[1, 0]]]
    assert "scores=float64" in f64.provenance and "scores=" not in f32.provenance


def test_score_precision_on_the_command_line(tmp_path):
    from click.testing import CliRunner

    from irscales.cli import main

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 100000.1546100 s\n1 Q0 b 2 100000.1530000 s\n")
    rr = {}
    for prec in ("float32", "float64"):
        res = CliRunner().invoke(main, ["scores", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"),
                                        "--score-precision", prec, "--depth", "2", "--measures", "RR",
                                        "--format", "csv", "--means-only"])
        assert res.exit_code == 0, res.output
        rr[prec] = float(res.stdout.strip().splitlines()[-1].split(",")[3])
    assert rr == {"float32": 0.5, "float64": 1.0}
    bad = CliRunner().invoke(main, ["scores", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"),
                                    "--score-precision", "double"])
    assert bad.exit_code != 0 and "float32" in bad.output


@pytest.mark.parametrize("grade, what", [("1000000000", "grade 1000000000 is above 32767"),
                                         ("1.5", "rel must be an integer, got '1.5'")])
def test_bad_grades_on_the_command_line_are_one_line_errors(tmp_path, grade, what):
    from click.testing import CliRunner

    from irscales.cli import main

    (tmp_path / "q").write_text(f"1 0 a 1\n1 0 b {grade}\n")
    (tmp_path / "r").write_text("1 Q0 a 1 4 s\n")
    res = CliRunner().invoke(main, ["scores", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"),
                                    "--depth", "2", "--measures", "AP"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and f"{tmp_path / 'q'}:2: " in lines[0] and what in lines[0]


# ------------------------------------------------------------------ memory follows the runs' real length (issue 27 item 7)


def _all_measures(G: int):
    """Every measure class of the registry (parameters a collection with grades 0..G accepts), cut-offs
    below and above the stored ranks, graded gains and both discounts."""
    from irscales import measures as M

    out = []
    for name, cls in M.REGISTRY.items():
        kw = {"max_gain": G} if name in ("GP", "GRBP") else {"max_grade": G} if name == "ERR" else \
            {"c": G} if name in ("SBTO", "RBTO") else {}
        out.append(cls(**kw))
    out += [M.P(k=3), M.P(k=45), M.Succ(k=2), M.DCG(gains="graded"), M.NDCG(gains="graded"),
            M.NDCG(discount="log2p1", gains="graded"), M.NDCG(base=10), M.Cut(M.AP(), 3), M.Cut(M.NDCG(), 50)]
    return out


@st.composite
def _short_runs(draw):
    S, T, W, G = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 8)), draw(st.integers(1, 2))
    rel = np.array(draw(st.lists(st.integers(0, G), min_size=S * T * W, max_size=S * T * W)), np.int8)
    judg = np.array(draw(st.lists(st.integers(0, 70), min_size=T * (G + 1), max_size=T * (G + 1))), np.int64)
    lengths = np.array(draw(st.lists(st.integers(0, W), min_size=S * T, max_size=S * T)), np.int64)
    D = draw(st.sampled_from(sorted({W, W + 1, 39, 40, 41, 43, 55}))) if W <= 39 else W
    return rel.reshape(S, T, W), judg.reshape(T, G + 1), lengths.reshape(S, T), max(D, W), G


@settings(max_examples=40, deadline=None)
@given(_short_runs(), st.booleans())
def test_measures_on_the_stored_ranks_equal_the_padded_runs_bit_for_bit(runs, blocks):
    """Every measure of the registry: a collection holding only the first W ranks, padded virtually
    to N, evaluates (at N and below) to the same floats as the same runs padded for real; also when
    computed in blocks (the path of large N)."""
    import irscales.data.collection as C

    rel, judg, lengths, N, G = runs
    kw = dict(judgments=judg, run_lengths=lengths, topics=tuple(f"t{i}" for i in range(rel.shape[1])),
              systems=tuple(f"s{i}" for i in range(rel.shape[0])), provenance="trec: generated", max_grade=G)
    virtual = Collection(rel=rel, padded_to=N, **kw)
    real = Collection(rel=np.concatenate([rel, np.zeros(rel.shape[:2] + (N - rel.shape[2],), np.int8)], -1), **kw)
    assert virtual.depth == real.depth == N and virtual.shape == real.shape
    np.testing.assert_array_equal(virtual.rel_at(), real.rel)
    for d in (1, N, N + 5):  # deeper than N too: every run is shorter than the stored ranks
        np.testing.assert_array_equal(virtual.binary(d), real.binary(d))
        assert virtual.binary(d).dtype == real.binary(d).dtype == np.int8
    old = C._BLOCK_CELLS
    try:
        C._BLOCK_CELLS = 7 if blocks else old
        for m in _all_measures(G):
            for depth in {N, max(1, N - 3), rel.shape[2]}:
                a, b = virtual.evaluate(m, depth), real.evaluate(m, depth)
                assert a.shape == b.shape == (rel.shape[1], rel.shape[0])
                assert a.tobytes() == b.tobytes(), (m, depth)
    finally:
        C._BLOCK_CELLS = old


def test_exact_evaluation_on_the_stored_ranks():
    from fractions import Fraction

    c = small([[[0, 1]]], [[3, 2]], run_lengths=[[2]], padded_to=5)
    assert c.evaluate(P(), exact=True).tolist() == [[Fraction(1, 5)]]
    assert c.evaluate(AP(), exact=True).tolist() == [[Fraction(1, 4)]]


def test_reading_at_a_huge_depth_costs_the_runs_real_length(tmp_path):
    # issue 27 item 7: --depth 1000000 allocated [systems, topics, 10^6] (8.1 GB for 5 T08 runs)
    import tracemalloc

    rng = np.random.default_rng(3)
    T = 20
    (tmp_path / "q").write_text("".join(f"{t} 0 d{i} {rng.integers(0, 2)}\n" for t in range(T) for i in range(60)))
    for s in range(2):
        (tmp_path / f"r{s}").write_text("".join(f"{t} Q0 d{i} {i} {100 - i} s{s}\n" for t in range(T)
                                                for i in rng.permutation(60)[:50]))
    small_depth = Collection.from_trec([tmp_path / "r0", tmp_path / "r1"], tmp_path / "q", depth=50)
    tracemalloc.start()
    c = Collection.from_trec([tmp_path / "r0", tmp_path / "r1"], tmp_path / "q", depth=10**6)
    values = {m: c.evaluate(m) for m in (AP(), NDCG(), RR(), P(), P(k=10), RBP(), R())}
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10e6, peak  # before: 40 MB of rel and gigabytes of floats in the measures
    assert c.depth == 10**6 and c.shape == (2, T, 10**6) and c.rel.shape == (2, T, 50)
    for m, v in values.items():
        want = small_depth.evaluate(m)
        if isinstance(m, P) and m.k is None:
            want = want * 50 / 10**6  # the same documents over 10^6 ranks
        np.testing.assert_allclose(v, want, rtol=1e-15, err_msg=str(m))


def test_many_topics_with_one_document_each(tmp_path):
    # issue 27 item 7: 100,000 topics x 1 document took 3.3 GB (here 20,000: the same shape)
    import tracemalloc

    T = 20_000
    (tmp_path / "q").write_text("".join(f"{t} 0 d{t} 1\n" for t in range(T)))
    (tmp_path / "r").write_text("".join(f"{t} Q0 d{t if t % 2 else 'x'} 1 1 s\n" for t in range(T)))
    tracemalloc.start()
    c = Collection.from_trec([tmp_path / "r"], tmp_path / "q", depth=1000, cache=False)
    v = {m: c.evaluate(m).mean() for m in (AP(), NDCG(), RR())}
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert c.rel.shape == (1, T, 1) and v == {m: 0.5 for m in v}
    assert peak < 60e6, peak  # before: [1, T, 1000] grades and its float copies (over 1 GB at T = 20,000)


def test_padded_to_is_checked_and_saved(tmp_path):
    with pytest.raises(ValueError, match="padded_to must be an integer >= the 2 ranks"):
        small([[[1, 0]]], [[1, 1]], run_lengths=[[2]], padded_to=1)
    with pytest.raises(ValueError, match="cannot be padded to 10"):
        small([[[1, 0]]], [[1, 1]], run_lengths=[[7]], padded_to=10)  # ranks 3..7 unknown
    c = small([[[0, 1]]], [[1, 1]], run_lengths=[[2]], padded_to=10)
    assert repr(c).startswith("Collection(1 systems x 1 topics, depth 10,")
    back = Collection.load(c.save(tmp_path / "c"))
    assert back.depth == 10 and back.rel.shape == (1, 1, 2)
    assert back.evaluate(P())[0, 0] == 0.1
    with pytest.raises(ValueError, match="holds ranks 1..2 only"):
        small([[[0, 1]]], [[1, 1]], run_lengths=[[3]]).evaluate(P(), depth=3)


def test_a_changed_byte_of_a_saved_collection_is_an_error(tmp_path):
    # issue 27 item 5 (the collection cache: gop grids are saved collections): a flipped byte of the
    # arrays or an edited field of the metadata is refused, never read as another collection
    import json

    c = load_preset("sim-t08", depth=5, seed=0).subset(systems=range(3), topics=range(4))
    base = c.save(tmp_path / "c")
    npz, meta = base.with_suffix(".npz"), base.with_suffix(".json")
    good_npz, good_meta = npz.read_bytes(), meta.read_text()
    for pos in (40, len(good_npz) // 2, len(good_npz) - 30):
        bad = bytearray(good_npz)
        bad[pos] ^= 0x10
        npz.write_bytes(bad)
        with pytest.raises(ValueError, match="saved collection is damaged"):
            Collection.load(base)
    npz.write_bytes(good_npz)
    for key, value in (("max_grade", 2), ("topics", ["x", "y", "z", "w"]), ("padded_to", 50),
                       ("provenance", "trec: real"),
                       ("system_labels", {"stop": ["a", "b", "c"]})):
        edited = json.loads(good_meta)
        assert edited[key] != value
        edited[key] = value
        meta.write_text(json.dumps(edited))
        with pytest.raises(ValueError, match="saved collection is damaged"):
            Collection.load(base)
    meta.write_text(good_meta)
    back = Collection.load(base)
    np.testing.assert_array_equal(back.rel, c.rel)
    old = json.loads(good_meta)  # the first format, without a checksum, still reads
    old["format"] = "irscales.Collection/1"
    del old["sha256"], old["padded_to"]
    meta.write_text(json.dumps(old))
    np.testing.assert_array_equal(Collection.load(base).rel, c.rel)


@pytest.mark.data
def test_five_real_t08_runs_at_depth_one_million():
    # issue 27 item 7, the reproduction on real runs: 5 T08 runs at --depth 1000000 took 8.1 GB
    import tracemalloc

    from irscales.paths import trec_track

    t = trec_track("T08")
    if t is None:
        pytest.skip("real TREC-8 runs not found under <IRSCALES_SHARED>/trec/T08 (not redistributable)")
    files = io.find_runs(t.runs)[:5]
    at_1000 = Collection.from_trec(files, t.qrels, depth=1000)
    tracemalloc.start()
    c = Collection.from_trec(files, t.qrels, depth=10**6)
    values = {m: c.evaluate(m) for m in (AP(), NDCG(), RR(), R(), P(k=10))}
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100e6, peak
    assert c.depth == 10**6 and c.rel.shape == (5, 50, 1000)
    for m, v in values.items():  # every run holds at most 1,000 documents: the same values, bit for bit
        assert v.tobytes() == at_1000.evaluate(m).tobytes(), m
    assert c.evaluate(P()).tobytes() == (at_1000.binary().sum(-1).T / 10**6).tobytes()  # retrieved relevant / N
