"""Runs and qrels held in memory (:mod:`irscales.data.frames`): every accepted form reads to the frames a
TREC file gives, and every bad entry is a one-line error that says where it is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscales.data import load_preset
from irscales.data.frames import qrels_frame, run_frames
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
