"""Tests of irscales.data.trec: TREC runs/qrels → relevance arrays, trec_eval ordering, error messages.

Fixtures are written in code to tmp_path. Cross-checks use pytrec_eval (trec_eval's C code).
"""

from __future__ import annotations

import gzip
import re
import warnings

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import _trec_order as trec_order
from irscales.data._trec_parse import read_bytes


@pytest.fixture(autouse=True, params=["compiled reader", "general path"])
def reader(request, monkeypatch):
    """Every test reads runs both ways: with the compiled reader (what large inputs take) and with the
    general path (what small ones take, trec_cache.COMPILED_READER_BYTES)."""
    from irscales.data import _trec_cache as trec_cache

    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", 0 if request.param == "compiled reader" else 2**62)
    monkeypatch.setattr(trec_cache, "kernels_loaded", lambda: False)
    return request.param


def write(path, text, gz=False):
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n2 0 y 0\n"


# ------------------------------------------------------------------ ordering (trec_eval's rule)


def test_tie_break_hand_case(tmp_path):
    # equal scores: trec_eval puts docno 'c' before 'b' before 'a' (docno descending)
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n1 0 c 2\n")
    r = write(tmp_path / "r", "1 Q0 a 1 5 s\n1 Q0 b 2 5 s\n1 Q0 c 3 5 s\n1 Q0 z 4 7 s\n")
    d = io.read_trec([r], q, depth=5)
    # z (score 7) first, then c, b, a; the rank column is ignored as trec_eval ignores it
    assert d.rel.tolist() == [[[0, 2, 0, 1, 0]]]


def _pytrec_positions(run: dict[str, float]) -> dict[str, int]:
    """Position of every document in trec_eval's ordering: one topic per document, in which only
    that document is relevant; 1/recip_rank is its rank."""
    qrels = {f"q{i}": {d: 1} for i, d in enumerate(run)}
    runs = {f"q{i}": dict(run) for i in range(len(run))}
    res = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(runs)
    return {d: round(1 / res[f"q{i}"]["recip_rank"]) for i, d in enumerate(run)}


docnos = st.text(alphabet="aAbB019-_xyZéü", min_size=1, max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(docnos, st.sampled_from([0.0, 1.0, 1.5, 2.0, -3.25, 1e-9]), min_size=1, max_size=12))
def test_tie_break_matches_pytrec_eval(tmp_path, run):
    """Empirical check (issue 2 item 5): our ordering is trec_eval's on runs full of ties, with
    docnos mixing case, digits and prefixes of each other."""
    expected = _pytrec_positions(run)
    docs = list(run)
    qrels = "".join(f"{i} 0 {d} 1\n" for i, d in enumerate(docs))
    lines = "".join(f"{i} Q0 {d} {k + 1} {run[d]!r} s\n" for i in range(len(docs)) for k, d in enumerate(docs))
    q = write(tmp_path / "q", qrels)
    r = write(tmp_path / "r", lines)
    d = io.read_trec([r], q, depth=len(docs))
    got = {docs[i]: int(np.flatnonzero(d.rel[0, d.topics.index(str(i))])[0]) + 1 for i in range(len(docs))}
    assert got == expected


def test_tie_break_rule_is_score_then_docno_descending(tmp_path):
    # the rule we implement, checked against pytrec_eval on a fixed example
    run = {"doc10": 1.0, "doc9": 1.0, "Doc2": 1.0, "doc99": 2.0, "b": 0.5}
    pos = _pytrec_positions(run)
    assert sorted(run, key=pos.get) == ["doc99", "doc9", "doc10", "Doc2", "b"]


def _naive_arrays(run_lines, qrels, depth):
    """Reference implementation: per-line Python, trec_eval's sort."""
    grades = {(t, d): g for t, d, g in qrels}
    by_topic = {}
    for t, d, s in run_lines:
        by_topic.setdefault(t, []).append((s, d))
    out = {}
    for t, docs in by_topic.items():
        docs.sort(key=lambda x: (-x[0], [-ord(c) for c in x[1]] + [1]))  # docno descending
        out[t] = [grades.get((t, d), 0) for _, d in docs[:depth]] + [0] * max(0, depth - len(docs))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10"]), docnos, st.integers(0, 3)), min_size=1, max_size=30,
                unique_by=lambda x: (x[0], x[1])),
       st.integers(1, 8), st.data())
def test_arrays_equal_naive_reference(tmp_path, run_lines, depth, data):
    qrels = [(t, d, data.draw(st.integers(0, 2))) for t, d, _ in run_lines if data.draw(st.booleans())]
    qrels.append(("1", "zzz-rel", 1))
    qrels += [(t, "rel-" + t, 1) for t in ("2", "10")]
    q = write(tmp_path / "q", "".join(f"{t} 0 {d} {g}\n" for t, d, g in qrels))
    r = write(tmp_path / "r", "".join(f"{t} Q0 {d} 1 {s} s\n" for t, d, s in run_lines))
    d = io.read_trec([r], q, depth=depth)
    ref = _naive_arrays([(t, d_, float(s)) for t, d_, s in run_lines], qrels, depth)
    assert d.topics == sorted(ref, key=int)
    for i, t in enumerate(d.topics):
        assert d.rel[0, i].tolist() == ref[t]


# ------------------------------------------------------------------ arrays, padding, judgments


def test_unjudged_is_not_relevant_and_short_runs_are_padded(tmp_path):
    q = write(tmp_path / "q", QRELS)
    r = write(tmp_path / "r", "1 Q0 c 1 3 s\n1 Q0 unj 2 2 s\n1 Q0 a 3 1 s\n2 Q0 x 1 1 s\n")
    d = io.read_trec([r], q, depth=4)
    assert d.rel.dtype == np.int8
    assert d.rel.tolist() == [[[2, 0, 1, 0], [1, 0, 0, 0]]]
    assert d.run_lengths.tolist() == [[3, 1]]
    assert d.judgments.tolist() == [[1, 1, 1], [1, 1, 0]]
    assert io.lenient_binary(d.rel).tolist() == [[[1, 0, 1, 0], [1, 0, 0, 0]]]


def test_recall_bases_from_qrels(tmp_path):
    q = io.read_qrels(write(tmp_path / "q", QRELS))
    assert io.recall_bases(q).to_dict() == {"1": 2, "2": 1}


def test_gzip_runs_and_qrels(tmp_path):
    q = write(tmp_path / "q.gz", QRELS, gz=True)
    r = write(tmp_path / "input.s.gz", "1 Q0 c 1 3 s\n2 Q0 x 1 1 s\n", gz=True)
    d = io.read_trec(tmp_path / "input.s.gz", q, depth=2)
    assert d.rel.tolist() == [[[2, 0], [1, 0]]]
    assert d.systems == ["s"]


def test_directory_of_runs_and_system_names(tmp_path):
    q = write(tmp_path / "q", QRELS)
    (tmp_path / "runs").mkdir()
    write(tmp_path / "runs" / "input.b", "1 Q0 a 1 1 sysB\n2 Q0 x 1 1 sysB\n")
    write(tmp_path / "runs" / "input.a", "1 Q0 c 1 1 sysA\n2 Q0 y 1 1 sysA\n")
    d = io.read_trec(tmp_path / "runs", q, depth=1)
    assert d.systems == ["sysA", "sysB"]
    assert d.rel[:, :, 0].tolist() == [[2, 0], [1, 1]]


def test_write_then_read_run_round_trip(tmp_path):
    io.write_run(tmp_path / "r.gz", ["1", "1", "2"], ["d1", "d2", "d3"], [0.1 + 0.2, 1 / 3, 7.0], "tag")
    df = io.read_run(tmp_path / "r.gz")
    assert df["score"].tolist() == [0.1 + 0.2, 1 / 3, 7.0]  # 17 significant digits: exact doubles
    assert df["rank"].tolist() == [1, 2, 1]
    io.write_qrels(tmp_path / "q", ["1", "2"], ["d1", "d3"], [2, 0])
    assert io.read_qrels(tmp_path / "q")["rel"].tolist() == [2, 0]


# ------------------------------------------------------------------ errors: path:line: what


@pytest.mark.parametrize("text, line, what", [
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 s extra\n", 2, "expected 6 whitespace-separated columns"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2\n", 2, "expected 6 whitespace-separated columns"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 high s\n", 2, "score must be a number, got 'high'"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 nan s\n", 2, "score must be finite"),
    ("1 Q0 a one 2.5 s\n", 1, "rank must be an integer, got 'one'"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2.5 2 s\n", 2, "rank must be an integer, got '2.5'"),
    ("1 Q0 a 1 2.5 s\n\n1 Q0 b 2 2 s\n1 Q0 a 3 1 s\n", 4, "duplicate document for topic '1', document 'a' (first at line 1)"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 t\n", 2, "run tag 't' differs"),
    ("", 1, "empty file"),
    ("\n  \n", 1, "empty file"),
])
def test_run_errors(tmp_path, text, line, what):
    p = write(tmp_path / "run.txt", text)
    with pytest.raises(io.TrecFormatError) as e:
        io.read_run(p)
    assert str(e.value).startswith(f"{p}:{line}: ")
    assert what in str(e.value)
    assert e.value.line == line


@pytest.mark.parametrize("text, kwargs, line, what", [
    ("1 0 a 1\n1 0 b\n", {}, 2, "expected 4 whitespace-separated columns"),
    ("1 0 a 1\n1 0 b x\n", {}, 2, "rel must be an integer, got 'x'"),
    ("1 0 a 1\n1 0 b 1.5\n", {}, 2, "rel must be an integer"),
    ("1 0 a 1\n2 0 a 0\n1 0 a 0\n", {}, 3, "duplicate judgment for topic '1', document 'a' (first at line 1)"),
    ("1 0 a 1\n1 0 b -1\n", {}, 2, "negative grade -1"),
    ("1 0 a 1\n1 0 b 3\n", {"max_grade": 2}, 2, "grade 3 is outside the declared scale 0..2"),
    ("", {}, 1, "empty file"),
])
def test_qrels_errors(tmp_path, text, kwargs, line, what):
    p = write(tmp_path / "qrels", text)
    with pytest.raises(io.TrecFormatError) as e:
        io.read_qrels(p, **kwargs)
    assert str(e.value).startswith(f"{p}:{line}: ")
    assert what in str(e.value)


def test_negative_grades_can_be_read_as_not_relevant(tmp_path):
    q = io.read_qrels(write(tmp_path / "q", "1 0 a 1\n1 0 b -2\n"), negative="zero")
    assert q["rel"].tolist() == [1, 0]


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(io.TrecFormatError, match="file not found"):
        io.read_run(tmp_path / "nope")


def test_error_is_one_line_for_a_cli(tmp_path):
    p = write(tmp_path / "r", "1 Q0 a 1 x s\n")
    with pytest.raises(io.TrecFormatError) as e:
        io.read_run(p)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)


def test_run_topic_absent_from_qrels_error_or_skip(tmp_path):
    q = write(tmp_path / "q", QRELS)
    r = write(tmp_path / "r", "1 Q0 a 1 1 s\n99 Q0 a 1 1 s\n")
    with pytest.raises(io.TrecFormatError, match=r"1 run topic\(s\) have no judgments in the qrels \(99\); pass "
                       r"on_missing_topic='skip'"):
        io.read_trec([r], q, depth=2, on_missing_topic="error")
    with pytest.warns(UserWarning, match=r"1 run topic\(s\) have no judgments in the qrels \(99\); skipped$"):
        d = io.read_trec([r], q, depth=2)  # the default, as trec_eval
    assert d.topics == ["1"]


def test_skipped_topics_are_counted_and_the_first_ten_named(tmp_path):
    q = write(tmp_path / "q", QRELS)
    r = write(tmp_path / "r", "1 Q0 a 1 1 s\n" + "".join(f"{t} Q0 a 1 1 s\n" for t in range(100, 112)))
    with pytest.warns(UserWarning) as rec:
        d = io.read_trec([r], q, depth=2)
    msgs = [str(w.message) for w in rec if "no judgments" in str(w.message)]
    assert msgs == ["12 run topic(s) have no judgments in the qrels (100, 101, 102, 103, 104, 105, 106, 107, 108, "
                    "109, …); skipped"]
    assert d.topics == ["1"]


def test_no_run_topic_in_the_qrels_is_an_error_either_way(tmp_path):
    q = write(tmp_path / "q", QRELS)
    r = write(tmp_path / "r", "98 Q0 a 1 1 s\n99 Q0 a 1 1 s\n")
    for policy in ("skip", "error"):
        with pytest.raises(io.TrecFormatError, match=r"none of the 2 run topic\(s\) is in the qrels \(98, 99\)"):
            io.read_trec([r], q, depth=2, on_missing_topic=policy)


def test_topics_without_relevant_documents(tmp_path):
    q = write(tmp_path / "q", "1 0 a 1\n2 0 x 0\n")
    r = write(tmp_path / "r", "1 Q0 a 1 1 s\n2 Q0 x 1 1 s\n")
    with pytest.warns(UserWarning, match=r"1 topic\(s\) have no relevant document \(2\)"):
        assert io.read_trec([r], q, depth=1).topics == ["1"]  # default: skip
    with pytest.raises(io.TrecFormatError, match="no relevant document"):
        io.read_trec([r], q, depth=1, on_no_relevant="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = io.read_trec([r], q, depth=1, on_no_relevant="keep")
    assert d.topics == ["1", "2"] and d.judgments[:, 1].tolist() == [1, 0]


def test_systems_with_different_topic_sets(tmp_path):
    q = write(tmp_path / "q", QRELS)
    a = write(tmp_path / "a", "1 Q0 a 1 1 A\n2 Q0 x 1 1 A\n")
    b = write(tmp_path / "b", "1 Q0 c 1 1 B\n")
    with pytest.raises(io.TrecFormatError) as e:
        io.read_trec([a, b], q, depth=2, on_uneven_topics="error")
    assert str(e.value).startswith(f"{b}: system 'B' has no results for 1 topic(s)")
    assert "on_uneven_topics='empty'" in str(e.value)
    # the default: B's missing topic 2 is an empty run, and the warning names B and the topic
    with pytest.warns(UserWarning, match=r"1 system\(s\) lack topic\(s\) that other runs have.*: B \(2\)"):
        d = io.read_trec([a, b], q, depth=2)
    assert d.rel.tolist() == [[[1, 0], [1, 0]], [[2, 0], [0, 0]]]
    assert d.run_lengths.tolist() == [[1, 1], [1, 0]]
    assert io.read_trec([a, b], q, depth=2, on_uneven_topics="pad").rel.tolist() == d.rel.tolist()


def test_files_sharing_a_run_tag_are_named_by_file_never_merged(tmp_path):
    q = write(tmp_path / "q", QRELS)
    a = write(tmp_path / "a.run", "1 Q0 a 1 1 same\n")
    b = write(tmp_path / "b.run.gz", "1 Q0 c 1 1 same\n", gz=True)
    with pytest.warns(UserWarning, match=r"2 run files share run tags \('same' ×2\)"):
        d = io.read_trec([a, b], q, depth=1)
    assert d.systems == ["a.run", "b.run"] and d.rel.tolist() == [[[1]], [[2]]]


def test_declared_scale_checked_when_building_arrays(tmp_path):
    q = write(tmp_path / "q", "1 0 a 3\n")
    r = write(tmp_path / "r", "1 Q0 a 1 1 s\n")
    with pytest.raises(io.TrecFormatError, match="outside the declared scale 0..1"):
        io.read_trec([r], q, depth=1, max_grade=1)
    assert io.read_trec([r], q, depth=1, max_grade=3).judgments.shape == (1, 4)


def test_bad_policy_names_are_rejected(tmp_path):
    q = io.read_qrels(write(tmp_path / "q", QRELS))
    r = io.read_run(write(tmp_path / "r", "1 Q0 a 1 1 s\n"))
    with pytest.raises(ValueError, match="on_missing_topic must be one of"):
        io.relevance_arrays([r], q, 1, on_missing_topic="ignore")
    with pytest.raises(ValueError, match="depth must be >= 1"):
        io.relevance_arrays([r], q, 0)


# ------------------------------------------------------------------ ir_datasets qrels (optional)


class _FakeDataset:
    """Duck-typed stand-in for an ir_datasets dataset (no network, no package needed)."""

    def __init__(self, recs):
        self.recs = recs

    def dataset_id(self):
        return "fake/test"

    def qrels_iter(self):
        from collections import namedtuple
        Q = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
        return (Q(*r, "0") for r in self.recs)


def test_qrels_from_ir_datasets_object(tmp_path):
    q = io.qrels_from_ir_datasets(_FakeDataset([("1", "a", 1), ("1", "b", 0), ("1", "c", 2), ("2", "x", 1)]))
    assert q[["topic", "docno", "rel"]].values.tolist() == [["1", "a", 1], ["1", "b", 0], ["1", "c", 2], ["2", "x", 1]]
    r = write(tmp_path / "r", "1 Q0 c 1 3 s\n2 Q0 x 1 1 s\n")
    d = io.read_trec([r], q, depth=2)
    assert d.rel.tolist() == [[[2, 0], [1, 0]]]


@pytest.mark.parametrize("recs, what", [
    ([("1", "a", 1), ("1", "a", 0)], "ir_datasets:fake/test:2: duplicate judgment for topic '1', document 'a' (first at record 1)"),
    ([("1", "a", 1), ("1", "b", -1)], "ir_datasets:fake/test:2: negative grade -1"),
    ([("1", "a", "high")], "ir_datasets:fake/test:1: relevance must be an integer, got 'high'"),
    ([], "ir_datasets:fake/test: no qrels records"),
    ([("1", "a", 1), ("1", "b\x00", 1)], "ir_datasets:fake/test:2: doc_id 'b\\x00' is empty or holds whitespace"),
    ([("1 2", "a", 1)], "ir_datasets:fake/test:1: query_id '1 2' is empty or holds whitespace"),
])
def test_qrels_from_ir_datasets_errors(recs, what):
    with pytest.raises(io.TrecFormatError) as e:
        io.qrels_from_ir_datasets(_FakeDataset(recs))
    assert str(e.value).startswith(what)


def test_ir_datasets_missing_package_message():
    try:
        import ir_datasets  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"pip install ir_datasets"):
            io.qrels_from_ir_datasets("trec-robust04")
    else:
        pytest.skip("ir_datasets is installed; the missing-package message cannot be triggered")


def test_uneven_only_on_topics_that_are_kept(tmp_path):
    # topic 99 has no judgments and is skipped: that system B lacks it is not an inconsistency
    q = write(tmp_path / "q", QRELS)
    a = write(tmp_path / "a", "1 Q0 a 1 1 A\n2 Q0 x 1 1 A\n99 Q0 z 1 1 A\n")
    b = write(tmp_path / "b", "1 Q0 c 1 1 B\n2 Q0 x 1 1 B\n")
    with pytest.warns(UserWarning, match="no judgments"):
        d = io.read_trec([a, b], q, depth=1, on_missing_topic="skip")
    assert d.topics == ["1", "2"] and d.systems == ["A", "B"]


@pytest.mark.parametrize("text", [
    "1 Q0 a 1 2.5 s\r\n1 Q0 b 2 2 s\r\n",          # Windows line ends
    "  1 Q0 a 1 2.5 s\n\t1 Q0 b 2 2 s   \n",      # leading/trailing blanks and tabs
])
def test_whitespace_variants(tmp_path, text):
    df = io.read_run(write(tmp_path / "r", text))
    assert df[["topic", "docno", "rank", "score", "tag"]].values.tolist() == [
        ["1", "a", 1, 2.5, "s"], ["1", "b", 2, 2.0, "s"]]


def test_quotes_are_part_of_docnos(tmp_path):
    df = io.read_run(write(tmp_path / "r", '1 Q0 "a 1 2.5 s\n1 Q0 b" 2 2 s\n'))
    assert df["docno"].tolist() == ['"a', 'b"']


def test_runs_may_be_an_iterator(tmp_path):
    q = io.read_qrels(write(tmp_path / "q", QRELS))
    frames = (io.read_run(write(tmp_path / f"r{i}", f"1 Q0 c 1 1 s{i}\n2 Q0 x 1 1 s{i}\n")) for i in range(3))
    d = io.relevance_arrays(frames, q, 1)
    assert d.systems == ["s0", "s1", "s2"] and d.rel[:, :, 0].tolist() == [[2, 1]] * 3
    with pytest.raises(ValueError, match="no runs given"):
        io.relevance_arrays(iter([]), q, 1)


def test_integral_floats_are_integers_on_both_paths(tmp_path):
    # '2.0' is accepted as rank 2 by the fast path; the per-line scan (used when another line is
    # bad) must agree and report the real error
    ok = io.read_run(write(tmp_path / "a", "1 Q0 a 1 2.5 s\n1 Q0 b 2.0 2 s\n"))
    assert ok["rank"].tolist() == [1, 2]
    with pytest.raises(io.TrecFormatError, match=r":3: score must be a number, got 'x'"):
        io.read_run(write(tmp_path / "b", "1 Q0 a 1 2.5 s\n1 Q0 b 2.0 2 s\n1 Q0 c 3 x s\n"))


def test_scores_equal_in_single_precision_tie_like_trec_eval(tmp_path):
    """trec_eval stores scores as C floats: 1 + 1e-12 and 1.0 tie, and the docno decides."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    (tmp_path / "run").write_text("1 Q0 a 1 1.000000000001 r\n1 Q0 b 2 1.0 r\n")
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    out = io.read_trec([tmp_path / "run"], tmp_path / "qrels", depth=2)
    assert out.rel[0, 0].tolist() == [0, 1]  # b before a: tie on score, docno descending
    rr = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0}}, {"recip_rank"}).evaluate(
        {"1": {"a": 1.000000000001, "b": 1.0}})
    assert rr["1"]["recip_rank"] == 0.5


# ------------------------------------------------------------------ grades (issue 18): never wrap around


def _pytrec(qrels: dict, run: dict, measures=("map", "P_5", "recip_rank", "ndcg_cut_5")) -> dict:
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


@pytest.mark.parametrize("grade", [1, 127, 128, 255, 256, 1000, io.MAX_GRADE])
def test_large_grades_are_kept_and_match_pytrec_eval(tmp_path, grade):
    # grades above 127 used to wrap around in int8 (256 -> 0: AP 0 instead of pytrec_eval's 0.25)
    from irscales.data.collection import Collection
    from irscales.measures import AP, NDCG, RR, P

    q = write(tmp_path / "q", f"1 0 a {grade}\n1 0 b 0\n1 0 c 1\n2 0 x {grade}\n")
    r = write(tmp_path / "r", "1 Q0 z 1 9 s\n1 Q0 b 2 8 s\n1 Q0 y 3 7 s\n1 Q0 a 4 6 s\n"
                              "2 Q0 x 1 5 s\n2 Q0 w 2 4 s\n")
    c = Collection.from_trec([r], q, depth=5, cache=False)
    assert c.rel.dtype == io.grade_dtype(grade) and c.rel[0, 0, 3] == grade and c.max_grade == grade
    ref = _pytrec({"1": {"a": grade, "b": 0, "c": 1}, "2": {"x": grade}},
                  {"1": {"z": 9, "b": 8, "y": 7, "a": 6}, "2": {"x": 5, "w": 4}})
    ours = {"map": c.evaluate(AP()), "P_5": c.evaluate(P(k=5)), "recip_rank": c.evaluate(RR()),
            "ndcg_cut_5": c.evaluate(NDCG(discount="log2p1", gains="graded"))}
    for name, v in ours.items():
        for t, topic in enumerate(c.topics):
            assert v[t, 0] == pytest.approx(ref[topic][name], abs=1e-15), (name, topic)
    assert ours["map"][0, 0] == pytest.approx(0.125)  # a at rank 4: (1/4) / 2 relevant


@pytest.mark.parametrize("token, what", [
    ("1000000000", f"grade 1000000000 is above {io.MAX_GRADE}"),
    (str(io.MAX_GRADE + 1), f"grade {io.MAX_GRADE + 1} is above {io.MAX_GRADE}"),
    ("99999999999999999999999", "grade beyond 2^62 is above"),
    ("1.5", "rel must be an integer, got '1.5'"),
    ("1e3", "rel must be an integer, got '1e3'"),  # trec_eval's atol would read 1: refuse, never guess
    ("0x10", "rel must be an integer, got '0x10'"),
])
def test_out_of_range_and_non_integer_grades_are_one_line_errors(tmp_path, token, what):
    import time

    p = write(tmp_path / "q", f"1 0 a 1\n1 0 b {token}\n")
    t0 = time.process_time()
    with pytest.raises(io.TrecFormatError) as e:
        io.read_trec([write(tmp_path / "r", "1 Q0 a 1 1 s\n")], p, depth=1, cache=False)
    assert time.process_time() - t0 < 5  # refused up front, not after allocating per-grade counts
    assert str(e.value).startswith(f"{p}:2: ") and what in str(e.value) and "\n" not in str(e.value)


def test_integral_grade_tokens(tmp_path):
    q = io.read_qrels(write(tmp_path / "q", "1 0 a 2.0\n1 0 b +3\n1 0 c 007\n"))
    assert q["rel"].tolist() == [2, 3, 7]


def test_negative_grades_match_pytrec_eval(tmp_path):
    # trec_eval counts a negative grade as judged not relevant; negative='zero' does the same
    from irscales.data.collection import Collection
    from irscales.measures import AP, NDCG

    q = write(tmp_path / "q", "1 0 a 2\n1 0 b -2\n1 0 c 1\n1 0 d -1\n")
    r = write(tmp_path / "r", "1 Q0 b 1 9 s\n1 Q0 c 2 8 s\n1 Q0 d 3 7 s\n1 Q0 a 4 6 s\n")
    with pytest.raises(io.TrecFormatError, match=r":2: negative grade -2 \(pass negative='zero'"):
        Collection.from_trec([r], q, depth=4, cache=False)
    c = Collection.from_trec([r], q, depth=4, negative="zero", cache=False)
    assert c.judgments.tolist() == [[2, 1, 1]]
    # the reference with b at -1: trec_eval reads every negative grade alike, and pytrec_eval 0.5 can crash the
    # process on grades below -1 (seen on generated qrels), which would take the test run down with it
    ref = _pytrec({"1": {"a": 2, "b": -1, "c": 1, "d": -1}}, {"1": {"b": 9, "c": 8, "d": 7, "a": 6}})["1"]
    assert c.evaluate(AP())[0, 0] == pytest.approx(ref["map"], abs=1e-15)
    assert c.evaluate(NDCG(discount="log2p1", gains="graded"), depth=4)[0, 0] == pytest.approx(
        ref["ndcg_cut_5"], abs=1e-15)


def test_qrels_frames_with_bad_grades_are_refused(tmp_path):
    import pandas as pd

    r = io.read_run(write(tmp_path / "r", "1 Q0 a 1 1 s\n"))
    for g, what in ((-1, "negative grade -1 in qrels row 2"), (40000, "grade 40000 (qrels row 2)")):
        q = pd.DataFrame({"topic": ["1", "1"], "docno": ["a", "b"], "rel": [1, g]})
        with pytest.raises(io.TrecFormatError, match=re.escape(what)):
            io.relevance_arrays([r], q, 1)


# ------------------------------------------------------------------ score precision (issue 15 item 3)

# Scores shaped like TREC-8 input.uwmt8a0's: 100000.1546100 and 100000.1530000 are distinct doubles
# but the same float32 (100000.15625; float32 steps are 2^-7 near 10^5). 100000.1476190 is a float32
# step below them (100000.1484375).
_HI, _LO, _BELOW = "100000.1546100", "100000.1530000", "100000.1476190"


def test_scores_that_collide_in_float32(tmp_path):
    assert np.float32(float(_HI)) == np.float32(float(_LO)) and float(_HI) != float(_LO)
    assert np.float32(float(_BELOW)) < np.float32(float(_LO))
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n")
    r = write(tmp_path / "r", f"1 Q0 a 1 {_HI} s\n1 Q0 b 2 {_LO} s\n")
    # float32: tied, docno descending puts b first; float64: a's higher score puts it first
    assert io.read_trec([r], q, depth=2, cache=False).rel.tolist() == [[[0, 1]]]
    assert io.read_trec([r], q, depth=2, cache=False, score_precision="float32").rel.tolist() == [[[0, 1]]]
    assert io.read_trec([r], q, depth=2, cache=False, score_precision="float64").rel.tolist() == [[[1, 0]]]
    # pytrec_eval (trec_eval 9 code: float sim) agrees with float32
    rr = _pytrec({"1": {"a": 1, "b": 0}}, {"1": {"a": float(_HI), "b": float(_LO)}}, ["recip_rank"])
    assert rr["1"]["recip_rank"] == 0.5
    with pytest.raises(ValueError, match="score_precision must be 'float32'"):
        io.read_trec([r], q, depth=2, score_precision="double")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.booleans()), min_size=1, max_size=9, unique_by=lambda x: x[0:2]))
def test_float32_convention_matches_pytrec_eval_on_near_ties(tmp_path, docs):
    """Runs whose scores differ only beyond float32: our float32 order is pytrec_eval's, and the
    float64 order is the exact sort by (double score desc, docno desc)."""
    base = [_HI, _LO, _BELOW]
    run = {f"d{a}{b}": float(base[b]) + (1e-9 if c else 0.0) for a, b, c in docs}
    lines = "".join(f"1 Q0 {d} 1 {s!r} s\n" for d, s in run.items())
    p = write(tmp_path / "r", lines)
    pos = _pytrec_positions(run)
    frame = io.read_run(p)
    for precision in ("float32", "float64"):
        order = _order_of(trec_order.parsed_frame(frame, 0, precision))
        if precision == "float32":
            assert [pos[d] for d in order] == list(range(1, len(run) + 1))
        else:
            assert order == sorted(run, key=lambda d: (run[d], d.encode()), reverse=True)


def _order_of(p) -> list[str]:
    return [str(p.docnos[i]) for i in p.d_code]


def test_parsed_scores_are_pythons_doubles(tmp_path):
    # the C reader's decimal -> double conversion is the correctly rounded one (as C's strtod)
    rng = np.random.default_rng(7)
    vals = [repr(float(x)) for x in rng.random(300) * 10.0 ** rng.integers(-8, 9, 300)]
    vals += [f"{x:.20g}" for x in rng.random(300)] + [_HI, _LO]
    p = write(tmp_path / "r", "".join(f"1 Q0 d{i} 1 {v} s\n" for i, v in enumerate(vals)))
    assert io.read_run(p)["score"].tolist() == [float(v) for v in vals]


# ------------------------------------------------------------------ fast path for well-formed runs (issue 18)


@pytest.mark.parametrize("text, line, what", [
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 s extra\n", 2, "expected 6 whitespace-separated columns"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2\n", 2, "expected 6 whitespace-separated columns"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 high s\n", 2, "score must be a number, got 'high'"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 nan s\n", 2, "score must be finite"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 1_0 s\n", 2, "score must be a number, got '1_0'"),
    ("1 Q0 a one 2.5 s\n", 1, "rank must be an integer, got 'one'"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2.5 2 s\n", 2, "rank must be an integer, got '2.5'"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 s\n1 Q0 a 3 1 s\n", 3, "duplicate document for topic '1', document 'a' (first at line 1)"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 t\n", 2, "run tag 't' differs"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 s\x00\n", 2, "NUL byte (\\x00) at byte 13 of the line"),  # issue 27 item 8
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 2 s\n\x00", 3, "NUL byte (\\x00) at byte 1 of the line"),
    ("1 Q0 a 1 2.5 s\n1 Q0 b 2 \u0663 s\n", 2, "score must be a number, got '\u0663'"),
    ("1 Q0 a \u0663 2.5 s\n", 1, "rank must be an integer, got '\u0663'"),
])
def test_bad_lines_are_named_when_reading_runs_for_arrays(tmp_path, text, line, what):
    # read_trec (the fast path's caller) names the same line as read_run
    q = write(tmp_path / "q", "1 0 a 1\n")
    p = write(tmp_path / "run", text)
    with pytest.raises(io.TrecFormatError) as e:
        io.read_trec([p], q, depth=5, cache=False)
    assert str(e.value).startswith(f"{p}:{line}: ") and what in str(e.value)




# ------------------------------------------------------------------ issue 27: never silently wrong


def _t08():
    from irscales.paths import trec_track

    t = trec_track("T08")
    if t is None:
        pytest.skip("real TREC-8 runs not found under <IRSCALES_SHARED>/trec/T08 (not redistributable)")
    return t


def _trec_eval_c_map(qrels: dict, run: dict, topics_with_relevant: list[str]) -> float:
    """trec_eval -c's mean AP: pytrec_eval's per-topic AP of the retrieved topics, summed over every
    topic of the qrels (0 for a topic no run retrieved) and divided by their number."""
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return sum(per[t]["map"] for t in topics_with_relevant if t in per) / len(topics_with_relevant)


def test_pad_evaluates_every_qrels_topic_like_trec_eval_c(tmp_path):
    # issue 27 item 9: qrels over topics 401-450, one run that retrieved only 401; trec_eval -c averages
    # over the 50 topics, we averaged over the one topic retrieved
    from irscales.data import Collection
    from irscales.measures import AP

    topics = [str(t) for t in range(401, 451)]
    q = write(tmp_path / "q", "".join(f"{t} 0 {t}-r0 1\n{t} 0 {t}-r1 1\n{t} 0 {t}-n 0\n" for t in topics)
              + "451 0 451-n 0\n")  # a topic without a relevant document
    run = {"401": {"401-x": 3.0, "401-r1": 2.0, "401-n": 1.5, "401-r0": 1.0}}
    r = write(tmp_path / "r", "".join(f"401 Q0 {d} {i + 1} {s} s\n" for i, (d, s) in enumerate(run["401"].items())))
    qd = io.read_qrels(q)
    qrels = {t: dict(zip(g["docno"], g["rel"].astype(int))) for t, g in qd.groupby("topic")}
    want = _trec_eval_c_map(qrels, run, topics)
    with pytest.warns(UserWarning, match="1 topic.* no relevant document.*451"):
        c = Collection.from_trec([r], q, depth=1000, on_uneven_topics="pad")
    assert list(c.topics) == topics and c.run_lengths.sum() == 4
    assert c.evaluate(AP()).mean() == pytest.approx(want, abs=1e-15)
    assert want == pytest.approx((1 / 2 + 2 / 4) / 2 / 50)
    only = Collection.from_trec([r], q, depth=1000)  # no padding: the topics the runs retrieved
    assert list(only.topics) == ["401"] and only.evaluate(AP()).mean() == pytest.approx(want * 50)
    kept = Collection.from_trec([r], q, depth=1000, on_uneven_topics="pad", on_no_relevant="keep")
    assert list(kept.topics) == topics + ["451"]
    with pytest.raises(io.TrecFormatError, match=r"none of the 1 run topic\(s\) is in the qrels \(999\)"):
        Collection.from_trec([write(tmp_path / "other", "999 Q0 a 1 1 s\n")], q, depth=5,
                             on_uneven_topics="pad", on_missing_topic="skip", on_no_relevant="keep")


@pytest.mark.data
def test_pad_on_real_t08_runs_matches_trec_eval_c(tmp_path):
    from irscales.data import Collection
    from irscales.measures import AP

    t = _t08()
    full = next(f for f in io.find_runs(t.runs) if f.name.startswith("input.CL99XT"))
    lines = [ln for ln in read_bytes(full).decode().split("\n") if ln.split()[:1] == ["401"]]
    r = write(tmp_path / "input.CL99XT-401", "\n".join(lines) + "\n")
    qd = io.read_qrels(t.qrels)
    qrels = {tp: dict(zip(g["docno"], g["rel"].astype(int))) for tp, g in qd.groupby("topic")}
    run = {"401": {ln.split()[2]: float(ln.split()[4]) for ln in lines}}
    with_relevant = sorted({tp for tp, g in qd.groupby("topic") if (g["rel"] > 0).any()})
    want = _trec_eval_c_map(qrels, run, with_relevant)
    c = Collection.from_trec([r], t.qrels, depth=1000, on_uneven_topics="pad")
    assert len(c.topics) == 50 and c.evaluate(AP()).mean() == pytest.approx(want, abs=1e-12)


def test_dangling_links_in_a_run_folder_are_errors(tmp_path):
    # issue 27 item 8: a dangling link was skipped without a word (a run the user meant to be read)
    import os

    q = write(tmp_path / "q", "1 0 a 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    write(runs / "input.a", "1 Q0 a 1 1 a\n")
    os.symlink(tmp_path / "gone", runs / "input.b")
    with pytest.raises(io.TrecFormatError, match=re.escape(f"{runs / 'input.b'}: symbolic link to a missing file "
                                                           f"({tmp_path / 'gone'}): expected a run file")):
        io.read_trec(runs, q, depth=1)
    with pytest.raises(io.TrecFormatError, match=re.escape(f"{runs / 'input.b'}: symbolic link to a missing file")):
        io.read_trec([runs / "input.a", runs / "input.b"], q, depth=1)
    (runs / "input.b").unlink()
    os.symlink(runs / "input.a", runs / "input.c")  # a link to a file is a file
    (runs / "old").mkdir()
    (runs / ".hidden").write_text("not a run")
    with pytest.warns(UserWarning, match=re.escape(f"{runs}: skipped 1 entry that is not a file (old)")):
        assert io.find_runs(runs) == [runs / "input.a", runs / "input.c"]


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\r", "\xa0", "\x85", "\u2028", "\u2029", "\x1c", "\x1e"])
def test_line_numbers_count_line_feeds_only(tmp_path, char):
    # issue 27 item 10: str.splitlines splits on VT, FF, NBSP-free U+0085, U+2028, \x1c.. so errors named
    # the wrong line; trec_eval ends lines at \n only. Inside a line, C's isspace characters (VT, FF,
    # CR) separate fields and the others are part of a field, on the fast and the general path alike.
    sep = char in "\x0b\x0c\r"
    q = write(tmp_path / "q", "1 0 a 1\n1 0 c 1\n" if sep else f"1 0 a{char}b 1\n1 0 c 1\n")
    good = f"1 Q0 a{char}b 1 2 s\n1 Q0 c{char} 2 1 s\n" if not sep else f"1 Q0 a{char}1 2 s\n1 Q0 c 2{char}1 s\n"
    r = write(tmp_path / "r", good + "1 Q0 d 3 1\n")
    for read in (lambda: io.read_run(r), lambda: io.read_trec([r], q, depth=3, cache=False)):
        with pytest.raises(io.TrecFormatError, match=re.escape(f"{r}:3: expected 6 whitespace-separated columns")):
            read()
    write(r, good)
    df = io.read_run(r)
    assert df["docno"].tolist() == (["a", "c"] if sep else [f"a{char}b", f"c{char}"])
    rel = io.read_trec([r], q, depth=2, cache=False).rel.tolist()
    assert rel == ([[[1, 1]]] if sep else [[[1, 0]]])  # c{char} is not c when char is part of it


def test_the_fast_reader_crash_of_the_issue_through_the_command_line(tmp_path):
    # issue 27 item 4: mixed docno lengths -> "internal error (IndexError)"
    from click.testing import CliRunner

    from irscales.cli import main

    r = tmp_path / "r"
    r.write_bytes(b"1 Q0 clueweb09-en0000-00-00000 1 2 t\n1 Q0 d 2 1 t\n")
    write(tmp_path / "q", "1 0 d 1\n")
    res = CliRunner().invoke(main, ["scores", str(r), "--qrels", str(tmp_path / "q"), "--depth", "10",
                                    "--measures", "RR", "--format", "csv", "--means-only"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines()[-1] == "t,all,RR@10,0.5"


def test_nul_in_a_relevant_docno_is_a_one_line_error_on_the_command_line(tmp_path):
    # issue 27 item 8: a NUL inside a relevant docno (qrels or run) was accepted
    from click.testing import CliRunner

    from irscales.cli import main

    r, q = tmp_path / "r", tmp_path / "q"
    for run, qrels, bad, line, byte in ((b"1 Q0 d 1 2 t\n", b"1 0 x 0\n1 0 d\0 1\n", q, 2, 6),
                                        (b"1 Q0 a 1 2 t\n1 Q0 d\0 2 1 t\n", b"1 0 d 1\n", r, 2, 7)):
        r.write_bytes(run)
        q.write_bytes(qrels)
        res = CliRunner().invoke(main, ["scores", str(r), "--qrels", str(q), "--depth", "2", "--measures", "RR"])
        assert res.exit_code == 1
        assert res.output.strip() == (f"irscales: error: {bad}:{line}: NUL byte (\\x00) at byte {byte} of the line: "
                                      "expected text (trec_eval would cut the field there, so no reading of it is safe)")


def test_writers_refuse_fields_that_would_not_read_back(tmp_path):
    # a docno with a blank, an empty one or a NUL would be written silently and read back as another
    # document (or a bad line)
    for docno, row in ((["a", "b c"], 2), (["", "b"], 1), (["a\x00", "b"], 1), (["a", "b\tc"], 2)):
        with pytest.raises(ValueError, match=re.escape(f"docno {docno[row - 1]!r} (row {row}) is empty or holds")):
            io.write_run(tmp_path / "r", ["1", "1"], docno, [2.0, 1.0], "s")
        with pytest.raises(ValueError, match=re.escape(f"docno {docno[row - 1]!r} (row {row}) is empty or holds")):
            io.write_qrels(tmp_path / "q", ["1", "1"], docno, [1, 0])
    with pytest.raises(ValueError, match="tag 'my run'"):
        io.write_run(tmp_path / "r", ["1"], ["a"], [1.0], "my run")
    io.write_run(tmp_path / "r", ["1", "1"], ["a\xa0b", "c\u2028"], [2.0, 1.0], "s")  # not blanks for trec_eval
    assert io.read_run(tmp_path / "r")["docno"].tolist() == ["a\xa0b", "c\u2028"]
