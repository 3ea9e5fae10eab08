"""Topic and document ids read one way on every input route (issue 47 item 2, :mod:`irscales.data._ids`): integer,
string, numpy and categorical ids are the same topic in files, frames, dicts, ranx, ir_datasets and ir_measures
objects, PyTerrier frames and inside ir_measures; ids that cannot be matched ('01' against 1) are an error, never
a second topic."""

from __future__ import annotations

import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irscales.data._ids import check_spellings, id_representatives, id_strings, id_text, odd_spelling
from irscales.data.trec import TrecFormatError
from irscales.evaluation import evaluate

ir_measures = pytest.importorskip("ir_measures")
from irscales.ir_measures_provider import IrscalesProvider, interval_measure  # noqa: E402

TOPICS = (101, 102, 103, 104)


def _qrels_runs(seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels and one run with integer query ids (np.int64 columns, as pandas reads a CSV); every topic has a
    relevant document."""
    rng = np.random.default_rng(seed)
    q = [(t, f"d{d}", int(d == 0 or rng.random() < 0.3)) for t in TOPICS for d in range(25)]
    r = [(t, f"d{d}", float(rng.integers(0, 5))) for t in TOPICS for d in rng.permutation(25)[:12]]
    return (pd.DataFrame(q, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(r, columns=["query_id", "doc_id", "score"]))


def _as(col: pd.Series, kind: str) -> pd.Series:
    """Integer query ids given as another kind of id."""
    return {"int64": lambda c: c.astype(np.int64),
            "python int": lambda c: pd.Series([int(x) for x in c], dtype=object),
            "str": lambda c: c.astype(str),
            "numpy str": lambda c: pd.Series([np.str_(x) for x in c], dtype=object),
            "categorical int": lambda c: c.astype("category"),
            "categorical str": lambda c: c.astype(str).astype("category")}[kind](col)


KINDS = ("int64", "python int", "str", "numpy str", "categorical int", "categorical str")


def _quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **kw)


def test_the_reading():
    assert [id_text(x) for x in ("101", 101, np.int64(101), np.uint8(7), np.str_("a"), 2**70)] == \
        ["101", "101", "101", "7", "a", str(2**70)]
    assert [odd_spelling(s) for s in ("01", "+1", "-0", "1", "-1", "a1", "1.0", "١")] == \
        [True, True, True, False, False, False, False, False]
    texts, kind = id_strings(np.array([1, "1", np.int64(2)], dtype=object))
    assert list(texts) == ["1", "1", "2"] and kind == "mixed"
    assert id_strings(np.array(["a", "b"], dtype=object))[1] == "string"
    assert id_strings(np.array([3, np.int32(4)], dtype=object))[1] == "integer"
    assert id_representatives([np.int64(5), 5, 6], "q") == {"5": np.int64(5), "6": 6}
    with pytest.raises(ValueError, match="'5' and 5 are one topic here"):
        id_representatives(["5", 5], "q")


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_id_is_the_same_topic_in_evaluate(kind):
    qrels, run = _qrels_runs()
    want = _quiet(evaluate, qrels.assign(query_id=qrels.query_id.astype(str)),
                  run.assign(query_id=run.query_id.astype(str)), "AP,P@5", depth=12)
    for q_kind in (kind, "str"):  # the qrels and the run of one kind, and the run's kind against string qrels
        q = qrels.assign(query_id=_as(qrels.query_id, q_kind))
        r = run.assign(query_id=_as(run.query_id, kind))
        got = _quiet(evaluate, q, r, "AP,P@5", depth=12)
        assert got.topics == want.topics == tuple(str(t) for t in TOPICS)
        assert got.frame.equals(want.frame)


def test_dicts_namedtuples_ranx_and_pyterrier_frames_read_integer_ids_alike(tmp_path: Path):
    qrels, run = _qrels_runs(seed=2)
    want = _quiet(evaluate, qrels.assign(query_id=qrels.query_id.astype(str)),
                  {"run": run.assign(query_id=run.query_id.astype(str))}, "AP,nDCG@10", depth=12).frame
    q_dict = {int(t): dict(zip(g.doc_id, g.relevance)) for t, g in qrels.groupby("query_id")}
    r_dict = {np.int64(t): dict(zip(g.doc_id, g.score)) for t, g in run.groupby("query_id")}
    Qrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")  # ir_datasets' fields
    routes = {
        "dicts": (q_dict, {"run": r_dict}),
        "namedtuples": ([Qrel(int(t), d, int(g), "0") for t, d, g in qrels.itertuples(index=False)],
                        {"run": [ir_measures.ScoredDoc(int(t), d, s) for t, d, s in run.itertuples(index=False)]}),
        "pyterrier": (qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}),
                      {"run": run.rename(columns={"query_id": "qid", "doc_id": "docno"})}),
    }
    for name, (q, r) in routes.items():
        got = _quiet(evaluate, q, r, "AP,nDCG@10", depth=12).frame
        assert got.equals(want), name


def test_a_dict_of_named_scoreddoc_lists_is_several_runs():
    qrels, run = _qrels_runs(seed=3)
    other = run.assign(score=-run.score)
    docs = {name: [ir_measures.ScoredDoc(str(t), d, s) for t, d, s in r.itertuples(index=False)]
            for name, r in (("a", run), ("b", other))}
    ev = _quiet(evaluate, qrels, docs, "AP", depth=12)
    assert ev.systems == ("a", "b")
    want = _quiet(evaluate, qrels, {"a": run, "b": other}, "AP", depth=12)
    assert ev.frame.equals(want.frame)
    it = {"a": iter(docs["a"])}  # an iterator (ir_measures.read_trec_run) too
    assert _quiet(evaluate, qrels, it, "AP", depth=12).frame.equals(want.frame[want.frame.system == "a"])


@pytest.mark.parametrize("kind", KINDS)
def test_no_topic_twice_inside_ir_measures(kind):
    """Issue 47: with integer ids in the qrels and the run, iter_calc gave every topic twice ('101' with its value,
    np.int64(101) with 0) and calc_aggregate half the mean."""
    qrels, run = _qrels_runs()
    q = qrels.assign(query_id=_as(qrels.query_id, kind))
    r = run.assign(query_id=_as(run.query_id, kind))
    m = interval_measure("AP@10")
    want = _quiet(evaluate, qrels, {"run": run}, "AP@10", ranked=True).interval("AP@10")["run"]
    for calc in (ir_measures.iter_calc, IrscalesProvider().iter_calc):
        got = _quiet(lambda: list(calc([m], q, r)))
        ids = [x.query_id for x in got]
        assert len(ids) == len(set(ids)) == len(TOPICS), (calc, ids)
        assert {id_text(x.query_id): x.value for x in got} == {t: pytest.approx(float(v)) for t, v in want.items()}
        assert all(x.query_id in set(q.query_id) for x in got)  # named as the qrels name them
    mean = float(sum(want)) / len(want)
    assert _quiet(ir_measures.calc_aggregate, [m], q, r)[m] == pytest.approx(mean, abs=1e-12)
    assert _quiet(IrscalesProvider().calc_aggregate, [m], q, r)[m] == pytest.approx(mean, abs=1e-12)


def test_a_topic_under_two_types_in_one_qrels_is_refused_inside_ir_measures():
    qrels, run = _qrels_runs()
    q = qrels.assign(query_id=pd.Series([t if i % 2 else str(t) for i, t in enumerate(qrels.query_id)],
                                        dtype=object))
    with pytest.raises(ValueError, match="are one topic here .* but two for ir_measures"):
        _quiet(lambda: list(ir_measures.iter_calc([interval_measure("AP@10")], q, run)))


def _write(path: Path, frame: pd.DataFrame, kind: str) -> Path:
    if kind == "qrels":
        path.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in frame.itertuples(index=False)))
    else:
        path.write_text("".join(f"{t} Q0 {d} 0 {s!r} r\n" for t, d, s in frame.itertuples(index=False)))
    return path


def test_ids_that_cannot_be_matched_are_an_error(tmp_path: Path):
    qrels, run = _qrels_runs()
    padded = lambda c: c.map(lambda t: f"0{t}")  # noqa: E731  '0101': which integer is it, if any?
    q_str, r_str = qrels.assign(query_id=padded(qrels.query_id)), run.assign(query_id=padded(run.query_id))
    msg = r"query id '0101' spells the integer 101 otherwise, and .* gives its query ids as integers"
    with pytest.raises(ValueError, match=msg):  # integer qrels, string run
        _quiet(evaluate, qrels, {"r": r_str}, "AP", depth=12)
    with pytest.raises(ValueError, match=msg):  # string qrels, integer run
        _quiet(evaluate, q_str, {"r": run}, "AP", depth=12)
    with pytest.raises(ValueError, match=msg):  # the qrels file against an integer run
        _quiet(evaluate, _write(tmp_path / "q.txt", q_str, "qrels"), {"r": run}, "AP", depth=12)
    with pytest.raises((ValueError, TrecFormatError), match=msg):  # integer qrels against a run file
        _quiet(evaluate, qrels, [_write(tmp_path / "r.txt", r_str, "run")], "AP", depth=12)
    mixed = run.assign(query_id=pd.Series([t if i else f"0{t}" for i, t in enumerate(run.query_id)], dtype=object))
    with pytest.raises(ValueError, match=r"row 0 \(iloc\): '0101' is a string that spells the integer 101 otherwise, "
                                         "beside integer ids"):
        _quiet(evaluate, qrels, mixed, "AP", depth=12)
    docs = qrels.assign(doc_id=qrels.index.to_numpy())  # integer document ids against '007' in the run
    with pytest.raises(ValueError, match="document id '00' spells the integer 0 otherwise"):
        _quiet(evaluate, docs, run.assign(doc_id=["00"] + [str(i + 1) for i in range(len(run) - 1)]), "AP", depth=12)
    padded_docs = run.assign(doc_id=["00"] + [str(i + 1) for i in range(len(run) - 1)])
    for n in (1, 2):  # the same against run files (unread before: every file's docnos are seen by name)
        files = [_write(tmp_path / f"docs{n}_{i}.txt", padded_docs, "run") for i in range(n)]
        with pytest.raises(ValueError, match=r"docs\d_0.txt: document id '00' spells the integer 0 otherwise"):
            _quiet(evaluate, docs, files, "AP", depth=12)
    plain = run.assign(doc_id=[str(i) for i in range(len(run))])  # the integers as written: matched, as strings
    got = _quiet(evaluate, docs, [_write(tmp_path / "plain.txt", plain, "run")], "AP", depth=12).means()
    want = _quiet(evaluate, docs.assign(doc_id=docs.doc_id.astype(str)), {"plain": plain}, "AP", depth=12).means()
    assert got.to_numpy().tolist() == want.to_numpy().tolist() and got.to_numpy().sum() > 0
    # strings on both sides are ids as written, as trec_eval compares them: '0101' is not '101' (and no error)
    ev = _quiet(evaluate, q_str, {"r": r_str}, "AP", depth=12)
    assert ev.topics == tuple(f"0{t}" for t in TOPICS)
    check_spellings([q_str, r_str])  # frames without recorded kinds hold strings
