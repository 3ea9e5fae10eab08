"""Runs and qrels held in memory (:mod:`irscales.data._frames`): every accepted form reads to the frames a
TREC file gives, and every bad entry is a one-line error that says where it is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscales.data import load_preset
from irscales.data._frames import qrels_frame, run_frames
from irscales.data.trec import read_qrels, read_run


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("frames")
    col = load_preset("sim-t08", depth=20, seed=5).subset(systems=[0, 1, 2], topics=list(range(6)))
    rundir, qrels = col.to_trec(d)
    return sorted(rundir.iterdir()), qrels


def _long(run_files):
    return pd.concat([read_run(f).assign(run=read_run(f).attrs["system"]) for f in run_files], ignore_index=True)


def _same(a: pd.DataFrame, b: pd.DataFrame, cols) -> None:
    for c in cols:
        assert list(a[c]) == list(b[c]), c


def test_every_form_reads_like_the_files(files):
    run_files, qrels = files
    want_q = read_qrels(qrels)
    q_frame = want_q.rename(columns={"topic": "query_id", "docno": "doc_id", "rel": "relevance"})
    q_dict = {t: dict(zip(g.docno, g.rel)) for t, g in want_q.groupby("topic", sort=False)}
    for q in (q_frame, q_dict, str(qrels)):
        _same(qrels_frame(q).sort_values(["topic", "docno"]), want_q.sort_values(["topic", "docno"]),
              ["topic", "docno", "rel"])
    want = [read_run(f) for f in run_files]
    long = _long(run_files).rename(columns={"topic": "query_id", "docno": "doc_id"})
    by_name = {w.attrs["system"]: {t: dict(zip(g.docno, g.score)) for t, g in w.groupby("topic", sort=False)}
               for w in want}
    for got in (run_frames(long), run_frames(by_name),
                run_frames({w.attrs["system"]: w for w in want})):
        assert [g.attrs["system"] for g in got] == [w.attrs["system"] for w in want]
        for g, w in zip(got, want):
            key = ["topic", "docno"]
            _same(g.sort_values(key), w.sort_values(key), ["topic", "docno", "score"])
    one = run_frames(by_name[want[0].attrs["system"]])  # a single pytrec_eval run dict
    assert len(one) == 1 and one[0].attrs["system"] == "run" and len(one[0]) == len(want[0])


@pytest.mark.parametrize("bad, msg", [
    ({"1": {"a": 1.5}}, r"<qrels dict>: topic '1', document 'a': rel 1.5 is not an integer grade"),
    ({"1": {"a b": 1}}, "holds whitespace"),
    ({"1": 3}, "topic '1' maps to int"),
    (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), "no rel column; expected one of relevance"),
    (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "relevance": [1, 0]}), "duplicate judgment"),
    (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [-1]}), "negative grade -1"),
    (pd.DataFrame({"query_id": ["1"], "doc_id": ["a\x00"], "relevance": [1]}), "NUL byte"),
    (pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}), "no judgments"),
])
def test_bad_qrels_say_where(bad, msg):
    with pytest.raises(ValueError, match=msg):
        qrels_frame(bad)


@pytest.mark.parametrize("bad, msg", [
    (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1, np.nan]}),
     r"<runs frame>: row 1 \(iloc\): score nan is not a finite number"),
    (pd.DataFrame({"query_id": ["1", "2", "2"], "doc_id": ["a", "c", "c"], "score": [1, 2, 3], "run": ["x", "x", "x"]}),
     r"<runs frame> run 'x': row 2 \(iloc\): document 'c' is retrieved twice for topic '2'"),
    (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["high"]}), "score 'high' is not a finite number"),
    (pd.DataFrame({"query_id": ["1"], "docid": ["a"]}), "no score column"),
    ({"r1": {"1": {"a": True}}}, "score True is not a finite number"),
    ({"r1": [1, 2]}, "run 'r1': expected a frame or a nested dict"),
    ({}, "an empty mapping"),
])
def test_bad_runs_say_where(bad, msg):
    with pytest.raises(ValueError, match=msg):
        run_frames(bad)


def _run(**over) -> pd.DataFrame:
    cols = {"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]}
    return pd.DataFrame({**cols, **over})


_QRELS = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "a", "c"], "relevance": [1, 0, 1, 1]})


@pytest.mark.parametrize("bad, msg", [  # issue 37 item 6: column by column, before str() makes 'nan' an id
    (_run(doc_id=["a", None, "a", "c"]), r"<runs frame>: row 1 \(iloc\): doc_id is missing \((None|nan)\); expected a "
                                         "document id"),
    (_run(doc_id=["a", "b", np.nan, "c"]), r"row 2 \(iloc\): doc_id is missing \(nan\)"),
    (_run(query_id=["1", None, "2", "2"]), r"row 1 \(iloc\): query_id is missing"),
    (_run(query_id=[1.0, 1.0, 2.0, 2.0]), r"row 0 \(iloc\): query_id 1.0 \(float\) is not a query id; expected a "
                                          "string or an integer"),
    (_run(run=["x", "x", np.nan, np.nan]), r"row 2 \(iloc\): run is missing \(nan\); expected a run name"),
    (_run(run=[1, 1, "1", "1"]), r"run column: run names 1 and '1' are both the run '1'"),
    (_run(docid=[None, "b", "a", "c"]).drop(columns="doc_id"), r"row 0 \(iloc\): docid is missing"),  # the user's name
    ([_run(), _run()], r"<runs\[0\]>: a frame in a list of runs needs its name"),
    ([_run(run="x"), "file.txt"], r"<runs\[1\]>: a list of runs holds frames or files, not both"),
    ({None: _run()}, r"runs: a key \(run name\) is missing"),
    ({"1": {np.nan: {"a": 1.0}}}, r"a key \(query id\) is missing"),
    ({"r": {"1": {None: 1.0}}}, r"<run 'r'>: topic '1': a key \(document id\) is missing"),
])
def test_bad_columns_say_which_row(bad, msg):
    with pytest.raises(ValueError, match=msg) as e:
        run_frames(bad)
    assert "\n" not in str(e.value)


def test_bad_qrels_ids_say_which_row():
    with pytest.raises(ValueError, match=r"<qrels frame>: row 1 \(iloc\): doc_id is missing"):
        qrels_frame(_QRELS.assign(doc_id=["a", None, "a", "c"]))
    with pytest.raises(ValueError, match="got a list of frames"):
        qrels_frame([_QRELS])


def test_a_list_of_frames_is_several_runs():
    from irscales.evaluation import evaluate

    other = _run(run="y", score=[1.0, 2.0, 2.0, 1.0])
    ev = evaluate(_QRELS, [_run(run="x"), other], "P@1", depth=2)
    assert ev.systems == ("x", "y") and ev.values("P@1")["y"].tolist() == [0.0, 1.0]
    a, b = _run(), _run(score=[1.0, 2.0, 2.0, 1.0])
    a.attrs["system"], b.attrs["system"] = "sa", "sb"  # as read_run names a run
    assert evaluate(_QRELS, (a, b), "P@1", depth=2).systems == ("sa", "sb")
    with pytest.raises(ValueError, match="two runs are named 'x'"):
        evaluate(_QRELS, [_run(run="x"), _run(run="x")], "P@1", depth=2)


@pytest.mark.parametrize("runs, qrels, msg", [
    (np.array([[1, 2], [3, 4]]), _QRELS, r"runs: expected a run file, .* a frame .*; got ndarray"),
    ([], _QRELS, "got an empty list"),
    (_run(), np.zeros(3), r"qrels: expected a qrels file, a frame .*; got ndarray"),
])
def test_what_is_not_runs_is_refused(runs, qrels, msg):
    from irscales.evaluation import evaluate

    with pytest.raises(ValueError, match=msg):
        evaluate(qrels, runs, "P@1", depth=2)
