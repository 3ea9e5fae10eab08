"""Tests of irscales.data._trec_fast: the compiled reader of run files agrees with the general path and with a
plain Python reading of trec_eval's rule, converts scores exactly as float() does, and stays in bounds."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import _trec_fast as trec_fast
from irscales.data._trec_arrays import QrelsIndex
from irscales.data._trec_fast import Padded, Scratch, scan_run, trec_rows
from irscales.data._trec_order import trec_order
from irscales.data._trec_parse import TrecFormatError, parse_run_file


def write(path, text):
    path.write_text(text)
    return path


def scanned(data: bytes):
    return scan_run(Padded.of(data))


_good_scores = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.floats(0, 100, allow_nan=False).map(lambda x: f"{x:.4f}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17g}"),
    st.integers(-10**17, 10**17).map(str),
    st.sampled_from(["-0", "+0", "-0.0", ".5", "5.", "+.5", "-.25", "007.50", "1e5", "1.5E-3", "+2e+2",
                     "0.000000000000001", "123456789012345", "1234567890123456", "9007199254740993",
                     "100000.1546100", "136.90608242222712000000000000000000", "9.58617e-269", "0e999999"]))
_bad_scores = st.sampled_from(["1_0", "nan", "inf", "-", ".", "1.2.3", "--1", "x", "0x10", "1e", "1e999", "1e+"])
_field = st.text(alphabet="aZ09-_.:/é\"'", min_size=1, max_size=20)


def _general_path(path):
    """What the general (pandas + per-line) path reads: per row (topic, docno, score), and the tag."""
    df, _ = parse_run_file(path)
    return list(zip(df["topic"], df["docno"], df["score"].tolist())), str(df["tag"].iloc[0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.booleans().flatmap(lambda clean: st.lists(st.tuples(
    st.sampled_from(["1", "01", "2", "10", "q-3"]), _field,
    _good_scores if clean else st.one_of(_good_scores, _bad_scores),
    st.sampled_from(["1", "2", "+3", "2.0", "2e0", "0012"] + ([] if clean else ["1.5", "x", "1e99"]))),
    min_size=1, max_size=12, unique_by=(lambda x: x[:2]) if clean else (lambda x: x))),
    st.sampled_from(["s", "run-é", "a_very_long_run_tag_x"]), st.booleans())
def test_fast_path_reads_what_the_general_path_reads(tmp_path, rows, tag, final_newline):
    """Whatever the general path accepts, the compiled reader accepts with the same values (scores bit for
    bit, -0.0 included); what the general path refuses, the reader leaves to it (None), so errors keep
    their path:line."""
    text = "\n".join(f"{t} Q0 {d} {r} {s} {tag}" for t, d, s, r in rows) + ("\n" if final_newline else "")
    p = write(tmp_path / "run", text)
    run = scanned(p.read_bytes())
    try:
        ref_rows, ref_tag = _general_path(p)
    except TrecFormatError:
        assert run is None or trec_rows(run, "float64") is None
        return
    assert run is not None and trec_rows(run, "float64") is not None
    assert run.tag == ref_tag
    assert [(run.topics[t], run.docno(i)) for i, t in enumerate(run.t_code)] == [(a, b) for a, b, _ in ref_rows]
    assert [float(s).hex() for s in run.score] == [s.hex() for _, _, s in ref_rows]


def test_fast_path_scores_are_pythons_doubles():
    # the exact conversion (one IEEE operation on exact doubles) and the batch conversion of the others equal
    # float() bit for bit (signs of zero included), for short and long fields, exponents, 17 significant
    # digits with and without trailing zeros, and values beyond the fast range
    rng = np.random.default_rng(11)
    vals = [repr(float(x)) for x in rng.random(2000) * 10.0 ** rng.integers(-8, 9, 2000)]
    vals += [f"{s}{x:.{k}f}" for k in range(16) for s in ("", "-", "+")
             for x in rng.random(20) * 10.0 ** rng.integers(-3, 12, 20)]
    vals += [f"{x:.17g}" + ("0" * int(z) if "e" not in f"{x:.17g}" else "")
             for x, z in zip(rng.random(300) * 10.0 ** rng.integers(-30, 30, 300), rng.integers(0, 20, 300))]
    vals += [f"{m}e{e}" for m, e in zip(rng.integers(1, 10**18, 500), rng.integers(-340, 290, 500))]
    vals += [f"{m}e{e}" for m, e in zip(rng.integers(1, 2**53, 300), rng.integers(-22, 23, 300))]
    vals += [f"{x:.20g}" for x in rng.random(100)] + ["-0", "+0", "-0.0", ".5", "5.", "+.5", "-.5", "007.50",
                                                     "0.000000000000001", "123456789012345", "1234567890123456",
                                                     "9007199254740993", "9007199254740992", "-12345678.1234567",
                                                     "1e5", "1.5E-3", "0e999999", "4.9e-324", "2.2250738585072011e-308",
                                                     "1.7976931348623157e308", "0.1e-22", "1e22", "1e23"]
    data = "".join(f"1 Q0 d{i} 1 {v} s\n" for i, v in enumerate(vals)).encode()
    score = scanned(data).score
    assert [x.hex() for x in score.tolist()] == [float(v).hex() for v in vals]


@pytest.mark.parametrize("token", ["1e999", "-1e400", "1_0", "nan", "inf", "1e", "."])
def test_scores_outside_the_grammar_or_not_finite_go_to_the_general_path(tmp_path, token):
    data = f"1 Q0 a 1 2 s\n1 Q0 b 2 {token} s\n".encode()
    assert scanned(data) is None
    with pytest.raises(TrecFormatError, match=r":2: score must be"):
        parse_run_file(write(tmp_path / "r", data.decode()))


# ------------------------------------------------------------------ bounds and order (issue 27 items 4, 10)

# docno characters: ASCII, bytes below the space that are not C whitespace, and non-ASCII characters
# Python (not trec_eval) takes for blanks or line ends (NBSP, NEL, U+2028)
_DOC_CHARS = "aZ09-_./:é\x7f\xa0\x85\u2028"
_CONTROL = "\x1c\x1f"


def _docnos(alphabet: str):
    return st.integers(1, 130).flatmap(lambda n: st.text(alphabet=alphabet, min_size=n, max_size=n))


_tie_scores = st.one_of(st.sampled_from(["1", "1.0", "2", "-0", "0", "0.5", "100000.1546100", "100000.1476190"]),
                        st.floats(-1e3, 1e3, allow_nan=False).map(repr))
_blanks = st.sampled_from([" ", "  ", "\t", " \t ", "\x0b", "\x0c", " \r"])


def _reference_order(data: bytes, precision: str) -> dict[str, list[str]]:
    """trec_eval's reading in plain Python: lines end at \\n, fields split on C's isspace
    (bytes.split), then per topic score descending (at the precision) and docno descending (strcmp)."""
    cast = np.float32 if precision == "float32" else np.float64
    by_topic: dict[str, list] = {}
    for raw in data.split(b"\n"):
        f = raw.split()
        if f:
            by_topic.setdefault(f[0].decode(), []).append((float(cast(float(f[4]))), f[2]))
    return {t: [d.decode() for _, d in sorted(v, reverse=True)] for t, v in by_topic.items()}


def _as_order(p) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t, d in zip(p.t_code.tolist(), p.d_code.tolist()):
        out.setdefault(str(p.topics[t]), []).append(str(p.docnos[d]))
    return out


def _run_text(draw, clean: bool) -> bytes:
    docnos = _docnos(_DOC_CHARS if clean else _DOC_CHARS + _CONTROL)
    rows = draw(st.lists(st.tuples(st.sampled_from(["1", "2", "401", "q-10"]), docnos, _tie_scores),
                         min_size=1, max_size=25, unique_by=lambda x: x[:2]))
    if draw(st.booleans()):  # topics in no particular order: a topic's lines are not contiguous
        rows = draw(st.permutations(rows))
    tag = draw(st.sampled_from(["t", "tag", "a-run-tag-of-more-than-sixteen-bytes"]))
    lines = []
    for i, (t, d, s) in enumerate(rows):
        if clean:
            lines.append(f"{t} Q0 {d} {i + 1} {s} {tag}")
        else:
            sep = [draw(_blanks) for _ in range(5)]
            lead, trail = draw(st.sampled_from(["", " ", "\t"])), draw(st.sampled_from(["", " ", "\r", "\t\x0c"]))
            fields = [t, "Q0", d, str(i + 1), s, tag]
            lines.append(lead + "".join(f + b for f, b in zip(fields, sep + [""])) + trail)
            if draw(st.integers(0, 9)) == 0:
                lines.append(draw(st.sampled_from(["", " ", "\t \x0b"])))  # a blank line
    text = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    return text.encode("utf-8")


@st.composite
def _run_files(draw):
    return [_run_text(draw, draw(st.booleans())) for _ in range(draw(st.integers(1, 3)))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_run_files(), st.sampled_from(["float32", "float64"]))
def test_readers_agree_with_a_plain_python_reference(tmp_path, files, precision):
    """Valid run files with docnos of 1..130 characters (mixed lengths in one file, long ones on a
    short last line), spaces, tabs, CR, VT and FF between fields, blank lines, topics out of order, a last
    line with or without a line end and tied scores: the compiled reader (one scratch buffer reused from file
    to file, as the threaded reader does), the pandas path and a plain Python reading of trec_eval's rule
    give the same order. The compiled reader takes every one of these files."""
    scratch = Scratch()
    for i, data in enumerate(files):
        path = tmp_path / f"run{i}"
        path.write_bytes(data)
        want = _reference_order(data, precision)
        fast = trec_fast.parsed_run(path, precision, scratch)
        df, (t, topics, d, docnos) = parse_run_file(path)
        general = trec_order(str(df["tag"].iloc[0]), str(path), topics, t, docnos, d, df["score"].to_numpy(), precision)
        assert _as_order(fast) == _as_order(general) == want
        run = scanned(data)
        assert run is not None and trec_rows(run, precision) is not None


def test_mixed_docno_lengths_read_past_no_padding(tmp_path):
    # issue 27 item 4: a 26-byte docno then a 1-byte one read 8 bytes at offset 24 of the short one
    # (beyond the 16-byte padding when it is the last field of the file): IndexError
    for data, want in ((b"1 Q0 clueweb09-en0000-00-00000 1 2 t\n1 Q0 d 2 1 t\n", ["clueweb09-en0000-00-00000", "d"]),
                       (b"1 Q0 clueweb09-en0000-00-00000 3 1 t\n1 Q0 b 1 1 t\n1 Q0 a 2 1 t",
                        ["clueweb09-en0000-00-00000", "b", "a"]),
                       (b"1 Q0 a 2 1 t\n1 Q0 x" + b"y" * 99 + b" 1 1 t", ["x" + "y" * 99, "a"])):
        assert scanned(data) is not None
        assert _as_order(trec_fast.parsed_run(_write_bytes(tmp_path / "r", data), "float32")) == {"1": want}


def _write_bytes(path, data):
    path.write_bytes(data)
    return path


def test_what_the_reader_leaves_to_the_general_path(tmp_path):
    """Each kind of input the compiled reader does not decide goes to the general path (None), which
    words the error with its line."""
    ok = b"1 Q0 a 1 2 s\n"
    cases = {b"": "empty file", b"\xef\xbb\xbf" + ok: None, ok + b"1 Q0 b 2 1\n": ":2: expected 6",
             ok + b"1 Q0 b 2 1 s x\n": ":2: expected 6", ok + b"1 Q0 b 2 1 t\n": ":2: run tag 't' differs",
             ok + b"1 Q0 b x 1 s\n": ":2: rank must be an integer", ok + b"1 Q0 b 1.5 1 s\n": ":2: rank must be",
             ok + b"2 Q0 a 1 1 s\n1 Q0 a 3 1 s\n": ":3: duplicate document"}
    for data, error in cases.items():
        run = scanned(data)
        assert run is None or trec_rows(run, "float32") is None, data
        p = _write_bytes(tmp_path / "r", data)
        if error is None:  # a byte order mark: pandas drops it, the general path reads the file
            assert parse_run_file(p)[0]["topic"].tolist() == ["1"]
        else:
            with pytest.raises(TrecFormatError, match=error):
                io.read_trec([p], io.read_qrels(write(tmp_path / "q", "1 0 a 1\n")), 2, cache=False)


def test_many_topics_and_long_runs_of_ties(tmp_path):
    # 3,000 topics (the topic table grows many times), a topic split in two places, and ties in blocks
    # written in docno order (reversed by the reader) or shuffled (sorted by merges)
    rng = np.random.default_rng(5)
    lines = [f"t{t} Q0 d{t}-{i} 1 {1 + i % 3} r\n" for t in range(3000) for i in range(3)]
    lines += [f"t7 Q0 x{i:04d} 1 0.5 r\n" for i in rng.permutation(300)] + [f"t9 Q0 y{i:04d} 1 0.25 r\n" for i in range(200)]
    data = "".join(lines).encode()
    p = _write_bytes(tmp_path / "r", data)
    fast = trec_fast.parsed_run(p, "float64")
    df, (t, topics, d, docnos) = parse_run_file(p)
    general = trec_order("r", str(p), topics, t, docnos, d, df["score"].to_numpy(), "float64")
    assert _as_order(fast) == _as_order(general) == _reference_order(data, "float64")
    assert len(fast.topics) == 3000


# ------------------------------------------------------------------ the join with the qrels


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), st.sampled_from(["float32", "float64"]))
def test_the_compiled_join_equals_the_join_by_names(tmp_path, data, precision):
    """Per (topic, document) grades found in the judgments' hash tables equal those of the join by names
    (the general path), on random runs and qrels sharing some docnos, with topics absent on either side."""
    docs = data.draw(st.lists(_docnos("ab9é-").filter(lambda x: len(x) <= 20), min_size=1, max_size=30, unique=True))
    topics = ["1", "2", "3"]
    run_rows = data.draw(st.lists(st.tuples(st.sampled_from(topics), st.sampled_from(docs), _tie_scores), min_size=1,
                                  max_size=40, unique_by=lambda x: x[:2]))
    qrels_rows = data.draw(st.lists(st.tuples(st.sampled_from(topics + ["4"]), st.sampled_from(docs + ["zz"]),
                                              st.integers(0, 3)), min_size=1, max_size=40, unique_by=lambda x: x[:2]))
    text = "".join(f"{t} Q0 {d} 1 {s} r\n" for t, d, s in run_rows).encode()
    p = _write_bytes(tmp_path / "r", text)
    q = pd.DataFrame(qrels_rows, columns=["topic", "docno", "rel"])
    judged = QrelsIndex(q)
    run = scanned(text)
    perm, grade = trec_rows(run, precision, judged.table(), judged.topic_codes(run.topics))
    fast = judged.hits("r", str(p), run.topics, run.t_code, grade.copy(), perm.copy())
    by_names = judged.run_hits(trec_fast.parsed_run(p, precision))
    assert fast.topics.tolist() == by_names.topics.tolist()
    for a in ("lengths", "hit_topic", "hit_rank", "hit_grade", "judged"):
        assert getattr(fast, a).tolist() == getattr(by_names, a).tolist(), a


def test_qrels_frames_judging_a_document_twice_are_refused():
    q = pd.DataFrame([("1", "a", 1), ("1", "b", 0), ("1", "a", 0)], columns=["topic", "docno", "rel"])
    with pytest.raises(TrecFormatError, match=r"<qrels>: document 'a' is judged twice for topic '1' \(qrels rows 1 and 3\)"):
        QrelsIndex(q)


# ------------------------------------------------------------------ the compiled kernels stay in bounds


def test_kernels_stay_in_bounds(tmp_path):
    """The compiled kernels with numba's bounds checking on (a fresh cache, in a child process), on files that
    exercise every branch: a last line without a line end, docnos of 1..140 bytes next to each other, topics
    out of order and many of them (the topic table grows), tied scores sorted, reversed and merged, scores
    converted in Python, duplicates and each kind of line the general path decides; and the judgments'
    tables: an out-of-range index raises there instead of reading stray memory."""
    code = r"""
import numpy as np
from irscales.data import _trec_fast as F
rng = np.random.default_rng(1)
docs = ["d" * int(k) for k in rng.integers(1, 140, 60)] + [f"x{i}" for i in range(40)]
lines = [f"t{rng.integers(0, 40)} Q0 {d}-{i} {i} {rng.integers(0, 3)} r" for i, d in enumerate(docs)]
lines += [f"t{t} Q0 y{i:03d} 1 0.5 r" for t in range(300) for i in range(3)] + ["t1 Q0 z 1 1.2345678901234567e-5 r"]
texts = ["\n".join(lines), "\n".join(lines) + "\n", "1 Q0 a 1 1 r\n1\tQ0 b 1 2e3 r \r\n\n", "1 Q0 a 1 1 r\n1 Q0 a 1 1 r\n",
         "1 Q0 a 1 1 r\n1 Q0 b 1 1", "1 Q0 a 1 1 r x\n", "1 Q0 a 1 x r\n", "1 Q0 a 1 1 r\n1 Q0 b 1 1 s\n", "1", " \n"]
j = F.Judgments(np.array([0, 0, 1, 2]), ["d", "x1", "y001", "d" * 139], np.array([1, 2, 3, 1]), 3)
for text in texts:
    run = F.scan_run(F.Padded.of(text.encode()))
    if run is not None:
        for precision in ("float32", "float64"):
            F.trec_rows(run, precision, j, np.arange(len(run.topics)) % 4 - 1)
print("in bounds")
"""
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and "in bounds" in out.stdout, out.stderr[-2000:]


def test_a_pipe_is_read_whole(tmp_path):
    # a run given as a named pipe (e.g. a shell's <(zcat run.gz)) has no size: it is read to its end
    import threading

    fifo = tmp_path / "run"
    os.mkfifo(fifo)
    text = "".join(f"1 Q0 d{i} {i + 1} {100 - i} r\n" for i in range(5000)).encode()

    def writer():
        with open(fifo, "wb") as fh:
            fh.write(text)

    t = threading.Thread(target=writer)
    t.start()
    raw, padded = trec_fast.read_file(fifo, Scratch())
    t.join()
    assert bytes(raw) == text and padded is not None and padded.array.tobytes() == text


@pytest.mark.parametrize("docnos", [["d1", "FT-2", "x"], ["é", "d", "ü1", "\u2603x"], [], [7, "a"]])
def test_judgments_hold_each_docnos_utf8_bytes(docnos):
    """ASCII names are joined as they are; others encoded one by one: the same bytes, lengths and positions."""
    j = trec_fast.Judgments(np.zeros(len(docnos), np.int64), docnos, np.ones(len(docnos), np.int16), 1)
    encoded = [str(d).encode("utf-8") for d in docnos]
    assert j.buf.tobytes() == b"".join(encoded) + b"\0"
    assert j.len.tolist() == [len(e) for e in encoded]
    assert j.pos.tolist() == [sum(map(len, encoded[:k])) for k in range(len(encoded))]
