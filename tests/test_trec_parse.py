"""Tests of irscales.data._trec_parse: the general parser (pandas' C reader, the line-by-line scan naming bad lines)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import _trec_parse as trec_parse


def test_large_input_uses_the_fast_path(tmp_path, monkeypatch):
    # 200 topics x 500 documents: valid input must never reach the per-line Python scan
    rng = np.random.default_rng(0)
    t = np.repeat(np.arange(200), 500).astype(str)
    d = np.char.add("d", rng.integers(0, 10**9, t.size).astype(str))
    _, keep = np.unique(np.char.add(np.char.add(t, "/"), d), return_index=True)
    keep.sort()
    io.write_run(tmp_path / "r", t[keep], d[keep], rng.random(keep.size), "big")
    io.write_qrels(tmp_path / "q", t[keep][::7], d[keep][::7], rng.integers(0, 3, keep[::7].size))

    def forbidden(*a, **k):
        raise AssertionError("slow per-line scan used on valid input")

    monkeypatch.setattr(trec_parse, "_slow_scan", forbidden)
    monkeypatch.setattr(trec_parse, "line_numbers", forbidden)
    out = io.read_trec([tmp_path / "r"], tmp_path / "q", depth=100, on_no_relevant="keep")
    assert out.rel.shape == (1, 200, 100)
    assert out.run_lengths.sum() == keep.size


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 30)), max_size=60), st.booleans())
def test_first_duplicate_matches_a_plain_scan(pairs, wide):
    """The counting shortcut and the sort give the first repeated (topic, docno) in file order."""
    nd = 31 if not wide else 10**7  # wide: keys beyond the counting bound take the sorting path
    t = np.array([p[0] for p in pairs], dtype=np.int64)
    d = np.array([p[1] for p in pairs], dtype=np.int64)
    seen, want = {}, None
    for row, p in enumerate(pairs):
        if p in seen:
            want = (row, seen[p])
            break
        seen[p] = row
    assert trec_parse.first_duplicate(t, d, nd) == want


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_lines_named_by_pandas_checks_count_line_feeds_only(tmp_path, char):
    # issue 27 item 10: duplicates and mixed tags are found on pandas' frame and named through
    # line_numbers, which counted str.splitlines' line ends (VT, FF, \x1c-\x1e, NEL, U+2028/9)
    first = f"1 Q0 a{char}x 1 2 s\n" if char not in "\x0b\x0c" else f"1 Q0 a 1{char}2 s\n"
    p = tmp_path / "r"
    p.write_text(first + "\n1 Q0 b 2 1 s\n1 Q0 b 3 1 s\n", encoding="utf-8")
    with pytest.raises(io.TrecFormatError, match=re.escape(f"{p}:4: duplicate document for topic '1', document 'b' "
                                                           "(first at line 3)")):
        io.read_run(p)
    p.write_text(first + "1 Q0 b 2 1 t\n", encoding="utf-8")
    with pytest.raises(io.TrecFormatError, match=re.escape(f"{p}:2: run tag 't' differs")):
        io.read_trec([p], io.write_qrels(tmp_path / "q", ["1"], ["b"], [1]) or tmp_path / "q", depth=2, cache=False)
    assert trec_parse.line_numbers(f"a{char}b\n\n \t\x0b\nc".encode()).tolist() == [1, 4]
    assert trec_parse.line_numbers(f"a{char}b\n\n \t\x0b\nc").tolist() == [1, 4]


# ------------------------------------------------------------------ qrels without pandas (issue 49)

_FIELD = st.sampled_from(["401", "402", "0401", "1", "0", "d1", "d2", "doc-3", "é", "D\u00a0x", "a\x1cb", '"q"', "NA",
                          "2", "-1", "+3", "2.0", "1e3", "1_0", "\ufeff7", "99999999999999999999",
                          "00000000000000000001"])
_BLANKS = st.sampled_from([" ", "  ", "\t", " \r", "\x0b", "\x0c "])


@st.composite
def _qrels_text(draw) -> bytes:
    lines = []
    clean = draw(st.booleans())  # four fields a line and plain grades: what the reader without pandas takes
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(["", " ", "\t\r"])))  # blank
            continue
        n = 4 if kind > 2 or clean else draw(st.integers(1, 6))
        fields = [draw(_FIELD) for _ in range(n)]
        if kind > 2 or clean:
            plain = ["0", "1", "2", "-1", "+2", "007", "3"]
            fields[3] = draw(st.sampled_from(plain if clean else [*plain, "2.0", "1e3"]))
        line = draw(_BLANKS).join(fields) if draw(st.booleans()) else " ".join(fields)
        lines.append(draw(st.sampled_from(["", " ", "\t"])) + line + draw(st.sampled_from(["", " ", "\r"])))
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    return ((draw(st.sampled_from(["", "\ufeff"])) if not clean else "") + text).encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(_qrels_text(), st.sampled_from(["error", "zero"]), st.sampled_from([None, 1, 3]))
def test_qrels_read_without_pandas_are_those_read_with_it(tmp_path_factory, data, negative, max_grade):
    """Wherever :func:`trec_parse.qrels_columns` reads qrels, it reads what pandas' reader reads (topics, docnos and
    grades, in order), and the index made from them is the one made from read_qrels' frame (same codes, same digest:
    the caches' keys); anything else goes to read_qrels, which refuses it with the same error."""
    from irscales.data._trec_arrays import QrelsIndex

    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_bytes(data)
    columns = trec_parse.qrels_columns(data)
    try:
        frame = trec_parse.read_table(path, 4, "qrels", {3: "grade"}, data)
    except io.TrecFormatError:
        assert columns is None
        frame = None
    if columns is not None:
        topics, docnos, grades = columns
        assert topics == frame["topic"].tolist() and docnos == frame["docno"].tolist()
        assert grades.tolist() == trec_parse.int_column(frame["rel"]).tolist()
    try:
        want = QrelsIndex(io.read_qrels(path, max_grade=max_grade, negative=negative), max_grade)
    except (io.TrecFormatError, ValueError) as e:
        with pytest.raises(type(e), match=re.escape(str(e))):
            io._qrels_file(path, None, max_grade, negative)
        return
    got = io._qrels_file(path, None, max_grade, negative)
    a, b = got.codes(), want.codes()
    assert got.topics == want.topics and got.path == want.path and got.topic_kind == want.topic_kind
    assert got.dtype == want.dtype and np.array_equal(got.judgments, want.judgments)
    assert {k: np.asarray(v).tolist() for k, v in a.items()} == {k: np.asarray(v).tolist() for k, v in b.items()}


def test_well_formed_qrels_are_read_without_pandas(tmp_path, monkeypatch):
    """The TREC layout (single spaces, integer grades) never reaches pandas' reader."""
    path = tmp_path / "qrels"
    path.write_text("".join(f"{t} 0 d{i} {i % 3}\n" for t in (401, 402, 450) for i in range(50)))

    def forbidden(*a, **k):
        raise AssertionError("pandas' reader used on well-formed qrels")

    monkeypatch.setattr(io, "read_qrels", forbidden)
    idx = io._qrels_file(path, None, None, "error")
    assert idx.topics == ["401", "402", "450"] and idx.judgments.tolist() == [[17, 17, 16]] * 3
