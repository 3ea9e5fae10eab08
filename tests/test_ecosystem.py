"""irscales where IR researchers already work (issue 41): interval-scaled measures inside ir_measures and
PyTerrier (:func:`irscales.interval_measure`), ranx / ir_datasets / ir_measures / PyTerrier objects into
:func:`irscales.evaluate` (equal to the file route), and an Evaluation out to ir_measures and ranx.

Runs and qrels are generated here; the Robust 2004 test reads the shared folder and skips without it."""
from __future__ import annotations

import re
import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irscales
from irscales import paths
from irscales.evaluation import evaluate
from irscales.interval import NoIntervalScaleError

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is not installed (pip install 'irscales[test]')")
from irscales.ir_measures_provider import IntervalMeasure, IrscalesProvider, interval_measure  # noqa: E402

TOPICS = [str(t) for t in range(301, 311)]


def _collection(seed: int = 7, grades: int = 2, n_runs: int = 3):
    """Qrels (query_id, doc_id, relevance) over 30 documents a topic and runs of 14 documents with
    tied scores (trec_eval's document order decides), as frames."""
    rng = np.random.default_rng(seed)
    q = [(t, f"D{d:03d}", int(rng.integers(0, grades)) if d < 18 else 0) for t in TOPICS for d in range(30)]
    for i, t in enumerate(TOPICS):  # every topic has a relevant document (evaluate skips the others by default)
        q[i * 30] = (t, "D000", grades - 1)
    qrels = pd.DataFrame(q, columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for i in range(n_runs):
        rows = [(t, f"D{d:03d}", float(rng.integers(0, 6))) for t in TOPICS for d in rng.permutation(30)[:14]]
        runs[f"sys{i}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def _write(tmp: Path, qrels: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> tuple[Path, list[Path]]:
    qpath = tmp / "qrels.txt"
    qpath.write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in qrels.itertuples()))
    files = []
    for name, run in runs.items():
        f = tmp / name
        f.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score!r} {name}\n" for r in run.itertuples()))
        files.append(f)
    return qpath, files


def _quiet_evaluate(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@N notes on generated runs
        return evaluate(*args, **kw)


def _calc(measures, qrels, run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ir_measures.calc_aggregate(measures, qrels, run)


def test_calc_aggregate_gives_evaluates_interval_means():
    qrels, runs = _collection()
    ev = _quiet_evaluate(qrels, runs, "AP@10,P@5", ranked=True)
    ap, p5 = interval_measure("AP@10"), interval_measure("P@5", depth=10)
    for name, run in runs.items():
        got = _calc([ap, p5, ir_measures.AP @ 10], qrels, run)
        assert got[ap] == pytest.approx(ev.means().loc[name, "AP@10 (interval)"], abs=1e-9)
        assert got[p5] == pytest.approx(ev.means().loc[name, "P@5 (interval)"], abs=1e-9)
        assert got[ir_measures.AP @ 10] == pytest.approx(ev.means().loc[name, "AP@10"], abs=1e-9)
    assert len({ap, p5, ir_measures.AP @ 10}) == 3  # ir_measures keys measures by name
    evaluator = ir_measures.evaluator([ap], qrels)  # one qrels, many runs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = {name: evaluator.calc_aggregate(run)[ap] for name, run in runs.items()}
    assert got == {name: pytest.approx(v, abs=1e-9) for name, v in ev.means()["AP@10 (interval)"].items()}


def test_iter_calc_per_topic_values_raw_phi_and_ties():
    qrels, runs = _collection(seed=3)
    run = runs["sys1"]
    for ties in ("unq", "mid"):
        ev = _quiet_evaluate(qrels, {"sys1": run}, "AP@10", ranked=True, ties=ties)
        for raw in (False, True):
            m = interval_measure("AP@10", ties=ties, raw=raw)
            want = ev.interval("AP@10", raw=raw)["sys1"]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
            assert got == {t: pytest.approx(float(v), abs=1e-12) for t, v in want.items()}
    assert any(float(v) != int(v) for v in ev.interval("AP@10", raw=True)["sys1"])  # mid: some halves


def test_names_say_what_the_values_are():
    assert str(interval_measure("AP@10")) == "AP@10[interval]"
    assert str(interval_measure(ir_measures.nDCG @ 10, ties="mid", raw=True)) == "nDCG@10[interval,phi,ties=mid]"
    assert str(interval_measure("RR", depth=12)) == "RR[interval,N=12]"
    assert interval_measure("AP@10") == interval_measure("AP@10", depth=10)
    assert interval_measure("AP@10").params["depth"] == 10 and interval_measure("AP").params["depth"] == 10
    assert str(interval_measure("AP") @ 12) == "AP[interval,N=12]"


def test_refusals_use_evaluates_words():
    qrels, runs = _collection()
    for name, depth in (("AP@40", 40), ("Twist", 10)):  # a build over the budget; no interval version
        with pytest.raises(ValueError) as ours:
            interval_measure(name, depth=depth)
        with pytest.raises(ValueError) as theirs:
            evaluate(qrels, runs, name, depth=depth, ranked=True)
        assert str(ours.value) == str(theirs.value) and type(ours.value) is type(theirs.value)
    with pytest.raises(ValueError, match="is computed over the whole run"):  # evaluate's rule for map at depth 10
        _calc([interval_measure("map")], qrels, runs["sys0"])
    with pytest.raises(ValueError, match="on_no_relevant is fixed inside ir_measures"):
        interval_measure("AP@10", on_no_relevant="skip")
    with pytest.raises(ValueError, match="P@5 reads no grades"):
        interval_measure("P@5", grades=3)
    with pytest.raises(ValueError, match=r"unknown measure 'nonsense'"):
        interval_measure("nonsense@10")
    # reading options are checked, names and values, before they become part of the measure's name
    with pytest.raises(ValueError, match="unknown reading option"):
        interval_measure("AP@10", bogus="x")
    with pytest.raises(ValueError, match="score_precision must be one of"):
        interval_measure("AP@10", score_precision="float16")


def test_graded_measure_and_its_grades():
    qrels, runs = _collection(seed=11, grades=3)
    ev = _quiet_evaluate(qrels, runs, "nDCG@10", ranked=True)
    m = interval_measure("nDCG@10", grades=3)
    for name, run in runs.items():
        assert _calc([m], qrels, run)[m] == pytest.approx(ev.means().loc[name, "nDCG@10 (interval)"], abs=1e-9)
    with pytest.raises(ValueError, match=r"over 4 grades \(0..3\) but the qrels hold grades 0..2"):
        _calc([interval_measure("nDCG@10", grades=4)], qrels, runs["sys0"])


def test_every_qrels_topic_counts_as_in_ir_measures():
    qrels, runs = _collection(seed=5)
    run = runs["sys2"][runs["sys2"]["query_id"] != TOPICS[-1]]  # the run lacks a topic
    m = interval_measure("AP@10")
    ev = _quiet_evaluate(qrels, {"r": run}, "AP@10", ranked=True, on_uneven_topics="pad")
    assert len(ev.topics) == len(TOPICS)
    assert _calc([m], qrels, run)[m] == pytest.approx(ev.means().loc["r", "AP@10 (interval)"], abs=1e-9)
    raw = interval_measure("AP@10", raw=True)  # the empty run's φ is 1, not ir_measures' default 0
    phi = ev.interval("AP@10", raw=True)["r"]
    assert phi[TOPICS[-1]] == 1
    assert _calc([raw], qrels, run)[raw] == pytest.approx(float(sum(phi)) / len(phi), abs=1e-9)


def test_own_provider_gives_the_same_values():
    qrels, runs = _collection()
    m = interval_measure("AP@10")
    assert ir_measures.providers.registry["irscales"].supports(m)
    assert not IrscalesProvider().supports(ir_measures.AP @ 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = IrscalesProvider().calc_aggregate([m], qrels, runs["sys0"])[m]
    assert ours == pytest.approx(_calc([m], qrels, runs["sys0"])[m], abs=1e-12)
    assert isinstance(m, IntervalMeasure) and isinstance(m, ir_measures.Measure)


def test_pyterrier_experiment():
    pt = pytest.importorskip("pyterrier", reason="PyTerrier is not installed (pip install 'irscales[ecosystem]')")
    qrels, runs = _collection()
    ev = _quiet_evaluate(qrels, runs, "AP@10", ranked=True)
    res = [r.rename(columns={"query_id": "qid", "doc_id": "docno"}) for r in runs.values()]
    topics = pd.DataFrame({"qid": TOPICS, "query": ["q"] * len(TOPICS)})
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    m = interval_measure("AP@10")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pt.Experiment(res, topics, pt_qrels, eval_metrics=[ir_measures.AP @ 10, m], names=list(runs),
                            baseline=0, correction="holm")
    got = out.set_index("name")
    assert np.allclose(got[str(m)].to_numpy(float), ev.means()["AP@10 (interval)"].to_numpy(float), atol=1e-9)
    assert f"{m} p-value corrected" in out.columns
    assert not pt.java.started()  # result frames need no index, so no JVM


# ---------------------------------------------------------------- inputs as the ecosystem holds them


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    qrels, runs = _collection(seed=21, grades=3)
    qpath, files = _write(tmp_path_factory.mktemp("eco"), qrels, runs)
    return qrels, runs, qpath, files


def _same(a, b):
    pd.testing.assert_frame_equal(a.frame, b.frame)


def test_ir_measures_and_ir_datasets_namedtuples_equal_the_files(written):
    qrels, runs, qpath, files = written
    want = _quiet_evaluate(qpath, files[:1], "AP@10,nDCG@10", ranked=True)
    qrel_tuples = list(ir_measures.read_trec_qrels(str(qpath)))
    run_iter = ir_measures.read_trec_run(str(files[0]))  # an iterator of ScoredDoc
    got = _quiet_evaluate(qrel_tuples, run_iter, "AP@10,nDCG@10", ranked=True)
    assert got.frame["value"].tolist() == want.frame["value"].tolist()
    assert got.frame["interval"].tolist() == want.frame["interval"].tolist()
    TrecQrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")  # ir_datasets' fields
    gen = (TrecQrel(q.query_id, q.doc_id, q.relevance, "0") for q in qrel_tuples)
    again = _quiet_evaluate(gen, run_iter_of(files[0]), "AP@10,nDCG@10", ranked=True)
    assert again.frame["interval"].tolist() == want.frame["interval"].tolist()


def run_iter_of(path: Path):
    return (ir_measures.ScoredDoc(d.query_id, d.doc_id, d.score) for d in ir_measures.read_trec_run(str(path)))


def test_ir_datasets_trecqrel_type():
    formats = pytest.importorskip("ir_datasets.formats", reason="ir_datasets is not installed")
    qrels = [formats.TrecQrel("1", "a", 1, "0"), formats.TrecQrel("1", "b", 0, "0")]
    run = [ir_measures.ScoredDoc("1", "b", 2.0), ir_measures.ScoredDoc("1", "a", 1.0)]
    ev = _quiet_evaluate(qrels, run, "RR@2", ranked=True, depth=2)
    assert ev.frame["value"].tolist() == [0.5]

    class Dataset:  # what ir_datasets.load(...) gives: qrels_iter() yields TrecQrel
        def qrels_iter(self):
            return iter(qrels)
    again = _quiet_evaluate(Dataset(), run, "RR@2", ranked=True, depth=2)
    pd.testing.assert_frame_equal(again.frame, ev.frame)


def test_ranx_objects_equal_the_files(written):
    ranx = pytest.importorskip("ranx", reason="ranx is not installed (pip install 'irscales[ecosystem]')")
    qrels, runs, qpath, files = written
    want = _quiet_evaluate(qpath, files, "AP@10,nDCG@10", ranked=True)
    def nested(df, col):
        return {t: dict(zip(g["doc_id"], g[col].tolist())) for t, g in df.groupby("query_id")}
    q = ranx.Qrels(nested(qrels, "relevance"))
    rs = [ranx.Run(nested(r, "score"), name=n) for n, r in runs.items()]
    got = _quiet_evaluate(q, rs, "AP@10,nDCG@10", ranked=True)
    assert list(got.systems) == list(runs)
    merged = want.frame.merge(got.frame, on=["system", "topic", "measure"], suffixes=("", "_ranx"))
    assert len(merged) == len(want.frame)
    assert (merged["value"] == merged["value_ranx"]).all() and (merged["interval"] == merged["interval_ranx"]).all()
    one = _quiet_evaluate(q, rs[1], "AP@10", ranked=True)
    assert one.systems == ("sys1",)
    named = _quiet_evaluate(q, {"a": rs[0], "b": rs[2]}, "AP@10", ranked=True)
    assert named.systems == ("a", "b")
    assert named.frame["interval"].tolist() == got.frame[got.frame["system"].isin(["sys0", "sys2"])
                                                         & (got.frame["measure"] == "AP@10")]["interval"].tolist()


def test_pyterrier_frames_equal_the_files(written):
    qrels, runs, qpath, files = written
    want = _quiet_evaluate(qpath, files, "AP@10", ranked=True)
    res = pd.concat([r.rename(columns={"query_id": "qid", "doc_id": "docno"}).assign(rank=0, query="q", run=n)
                     for n, r in runs.items()])
    label = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    _same(_quiet_evaluate(label, res, "AP@10", ranked=True), want)


def test_bad_namedtuples_name_the_fields():
    Row = namedtuple("Row", "qid docno")
    with pytest.raises(ValueError, match="expected the fields query_id, doc_id, relevance"):
        evaluate([Row("1", "a")], {"1": {"a": 1.0}}, "AP@10", ranked=True)
    with pytest.raises(ValueError, match="expected the fields query_id, doc_id, score"):
        evaluate({"1": {"a": 1}}, [Row("1", "a")], "AP@10", ranked=True)


# ---------------------------------------------------------------- out to the ecosystem


def test_evaluation_out_to_ir_measures_and_ranx():
    qrels, runs = _collection()
    ev = _quiet_evaluate(qrels, runs, "AP@10,P@5", ranked=True, depth=10)
    metrics = ev.to_ir_measures("sys0")
    assert all(isinstance(x, ir_measures.Metric) for x in metrics)
    assert len(metrics) == 2 * 2 * len(TOPICS)
    per = {(x.measure, x.query_id): x.value for x in metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        calc = ir_measures.iter_calc([interval_measure("AP@10")], qrels, runs["sys0"])
        for x in calc:  # the same name and value as the measure inside ir_measures
            assert per[(str(x.measure), x.query_id)] == pytest.approx(x.value, abs=1e-12)
    frame = ev.to_ir_measures(frame=True)
    assert list(frame.columns) == ["run", "query_id", "measure", "value"] and len(frame) == 3 * len(metrics)
    scores = ev.to_ranx_scores()
    assert set(scores) == set(runs) and set(scores["sys1"]) == {"AP@10", "AP@10[interval]", "P@5", "P@5[interval]"}
    mean = np.mean(list(scores["sys1"]["AP@10[interval]"].values()))
    assert mean == pytest.approx(ev.means().loc["sys1", "AP@10 (interval)"], abs=1e-12)
    with pytest.raises(ValueError, match="name the run: this evaluation holds 3"):
        ev.to_ir_measures()


# ---------------------------------------------------------------- Robust 2004 (shared folder)

_R04 = (paths.shared_dir() / "trec" / "R04-partial") if paths.shared_dir() else None


@pytest.mark.data
@pytest.mark.skipif(_R04 is None or not (_R04 / "runs").is_dir(),
                    reason="Robust 2004 runs absent (IRSCALES_SHARED/trec/R04-partial)")
def test_robust2004_calc_aggregate_equals_evaluate():
    files = sorted((_R04 / "runs").iterdir())[:3]
    qpath = _R04 / "qrels.robust2004.txt.gz"
    ev = _quiet_evaluate(qpath, files, "AP@10", ranked=True)
    qrels = list(ir_measures.read_trec_qrels(str(qpath)))
    m = interval_measure("AP@10")
    for f, name in zip(files, ev.systems):
        got = _calc([m, ir_measures.AP @ 10], qrels, ir_measures.read_trec_run(str(f)))
        assert got[m] == pytest.approx(ev.means().loc[name, "AP@10 (interval)"], abs=1e-9)
        assert got[ir_measures.AP @ 10] == pytest.approx(ev.means().loc[name, "AP@10"], abs=1e-9)
    # the README's table of these three runs is these means, at its four decimals
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    rows = {m[0]: m[1:] for m in re.findall(r"^\| (\S+) +\| (\d\.\d{4}) \| +(\d\.\d{4}) \|$", readme, flags=re.M)}
    means = ev.means()
    for name in ev.systems:
        assert rows[name] == (f"{means.loc[name, 'AP@10']:.4f}", f"{means.loc[name, 'AP@10 (interval)']:.4f}"), name


@pytest.mark.data
def test_readme_section_runs_and_agrees(cranfield_demo, monkeypatch):
    pytest.importorskip("pyterrier", reason="PyTerrier is not installed (pip install 'irscales[ecosystem]')")
    pytest.importorskip("ranx", reason="ranx is not installed (pip install 'irscales[ecosystem]')")
    text = (paths.repo_root() / "README.md").read_text()
    start = text.index("## In ir_measures, PyTerrier and ranx")
    section = text[start:text.index("\n## ", start + 3)]
    blocks = re.findall(r"^```python\n(.*?)^```", section, flags=re.M | re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(cranfield_demo)
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(blocks[0], "README.md In ir_measures block", "exec"), ns)  # noqa: S102
    ev, files = ns["ev"], ns["files"]
    means = ev.means()
    assert ns["bm25"][ns["ap10i"]] == pytest.approx(means.iloc[0]["AP@10 (interval)"], abs=1e-9)
    exp = ns["experiment"].set_index("name")
    assert np.allclose(exp["AP@10[interval]"].to_numpy(float), means["AP@10 (interval)"].to_numpy(float), atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        files_route = evaluate("demo/qrels.txt", [str(f) for f in files], "AP@10", ranked=True)
    pd.testing.assert_frame_equal(files_route.frame, ev.frame)
    assert set(ns["scores"]) == set(ev.systems) and len(ns["per_topic"]) == 2 * len(ev.frame)


def test_a_judged_warning_comes_once_per_call_and_names_the_run():
    """Issue 48: inside ir_measures (and PyTerrier, which calls it per run) the judged@N warning came once per
    run and per measure and named the system "run"; now once per call, naming what the run is."""
    qrels, runs = _collection()
    qrels = qrels[qrels["doc_id"] < "D004"]  # four judged documents a topic: judged@10 below 0.9
    ms = [interval_measure("AP@10"), interval_measure("nDCG@10"), interval_measure("RR@10"), ir_measures.P @ 10]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        ir_measures.calc_aggregate(ms, qrels, runs["sys0"])
    judged = [str(w.message) for w in said if "judged@10" in str(w.message)]
    assert len(judged) == 1 and "(the run given to ir_measures " in judged[0], judged
    with warnings.catch_warnings(record=True) as said:  # the next call warns again: it is another run
        warnings.simplefilter("always")
        ir_measures.calc_aggregate(ms, qrels, runs["sys1"])
    assert sum("judged@10" in str(w.message) for w in said) == 1


def test_a_cut_off_in_the_name_is_the_run_length_whatever_depth_says():
    assert interval_measure("AP@10", depth=20) == interval_measure("AP@10")  # issue 48: one rule for N
    assert interval_measure("AP@10", depth=20).params["depth"] == 10
    with pytest.raises(ValueError, match=r"^depth must be a positive integer"):
        interval_measure("AP", depth=0)
    with pytest.raises(ValueError, match=r"^grades must be an integer of at least 2"):
        interval_measure("gnDCG_b02@5", grades=1)
    with pytest.raises(ValueError, match=r"^raw must be True or False"):
        interval_measure("AP@10", raw="yes")
