"""Tests of irscales.data.trec_fast: the numpy fast path for well-formed run files agrees with the general path."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.data import trec_cache, trec_fast
from irscales.data.trec_order import trec_order
from irscales.data.trec_parse import TrecFormatError, parse_run_file


def write(path, text):
    path.write_text(text)
    return path


_good_scores = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.floats(0, 100, allow_nan=False).map(lambda x: f"{x:.4f}"),
    st.integers(-10**17, 10**17).map(str),
    st.sampled_from(["-0", "+0", "-0.0", ".5", "5.", "+.5", "-.25", "007.50", "1e5", "1.5E-3", "+2e+2",
                     "0.000000000000001", "123456789012345", "1234567890123456", "9007199254740993",
                     "100000.1546100"]))
_bad_scores = st.sampled_from(["1_0", "nan", "inf", "-", ".", "1.2.3", "--1", "x", "0x10", "1e"])
_field = st.text(alphabet="aZ09-_.:/é\"'", min_size=1, max_size=20)


def _general_path(path):
    """What the general (pandas + per-line) path reads: per row (topic, docno, score), and the tag."""
    df, _ = parse_run_file(path)
    return list(zip(df["topic"], df["docno"], df["score"].tolist())), str(df["tag"].iloc[0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.booleans().flatmap(lambda clean: st.lists(st.tuples(
    st.sampled_from(["1", "01", "2", "10", "q-3"]), _field,
    _good_scores if clean else st.one_of(_good_scores, _bad_scores),
    st.sampled_from(["1", "2", "+3", "2.0", "2e0"] + ([] if clean else ["1.5", "x"]))),
    min_size=1, max_size=12, unique_by=(lambda x: x[:2]) if clean else (lambda x: x))),
    st.sampled_from(["s", "run-é", "a_very_long_run_tag_x"]), st.booleans())
def test_fast_path_reads_what_the_general_path_reads(tmp_path, rows, tag, final_newline):
    """Whatever the numpy fast path accepts, the general path accepts with the same values (scores
    bit for bit, -0.0 included; docnos in byte order); what the general path refuses, the fast path
    leaves to it (None), so errors keep their path:line."""
    text = "\n".join(f"{t} Q0 {d} {r} {s} {tag}" for t, d, s, r in rows) + ("\n" if final_newline else "")
    p = write(tmp_path / "run", text)
    data = p.read_bytes()
    fast = trec_fast.fast_run(data)
    try:
        ref_rows, ref_tag = _general_path(p)
    except TrecFormatError:
        assert fast is None
        return
    if fast is None:  # only inputs the general path must take: duplicates, exotic numbers, ...
        assert len({(t, d) for t, d, _, _ in rows}) < len(rows) or any(
            not trec_fast._FLOAT_TOKEN.fullmatch(s.encode()) for _, _, s, _ in rows)
        return
    got_tag, t, topics, d, docnos, score = fast
    assert got_tag == ref_tag
    assert [(topics[i], docnos[j]) for i, j in zip(t, d)] == [(a, b) for a, b, _ in ref_rows]
    assert [float(s).hex() for s in score] == [s.hex() for _, _, s in ref_rows]
    assert [x.encode() for x in docnos] == sorted(x.encode() for x in docnos)


def test_fast_path_scores_are_pythons_doubles():
    # the SWAR digit parse + one division equals float() bit for bit (signs of zero included), for
    # short and long fields, fixed and shortest-repr spellings, and those float() parses itself
    rng = np.random.default_rng(11)
    vals = [repr(float(x)) for x in rng.random(2000) * 10.0 ** rng.integers(-8, 9, 2000)]
    vals += [f"{s}{x:.{k}f}" for k in range(16) for s in ("", "-", "+")
             for x in rng.random(20) * 10.0 ** rng.integers(-3, 12, 20)]
    vals += [f"{x:.20g}" for x in rng.random(100)] + ["-0", "+0", "-0.0", ".5", "5.", "+.5", "-.5", "007.50",
                                                     "0.000000000000001", "123456789012345", "1234567890123456",
                                                     "9007199254740993", "-12345678.1234567", "1e5", "1.5E-3"]
    data = "".join(f"1 Q0 d{i} 1 {v} s\n" for i, v in enumerate(vals)).encode()
    score = trec_fast.fast_run(data)[5]
    assert [x.hex() for x in score.tolist()] == [float(v).hex() for v in vals]


# ------------------------------------------------------------------ bounds and order (issue 27 items 4, 10)

# docno characters: ASCII, bytes below the space that are not C whitespace, and non-ASCII characters
# Python (not trec_eval) takes for blanks or line ends (NBSP, NEL, U+2028)
_DOC_CHARS = "aZ09-_./:é\x7f\xa0\x85\u2028"
_CONTROL = "\x1c\x1f"  # (the fast path leaves them to the general path)


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
    short last line), spaces, tabs, CR, VT and FF between fields, blank lines, a last line with or
    without a line end and tied scores: the fast reader (one scratch buffer reused from file to file,
    as the threaded reader does), the pandas path and a plain Python reading of trec_eval's rule give
    the same order. The fast path takes every single-spaced file without control bytes."""
    scratch = trec_fast.Scratch()
    for i, data in enumerate(files):
        path = tmp_path / f"run{i}"
        path.write_bytes(data)
        want = _reference_order(data, precision)
        fast = trec_cache.parsed_run(path, precision, None, scratch)
        df, (t, topics, d, docnos) = parse_run_file(path)
        general = trec_order(str(df["tag"].iloc[0]), str(path), topics, t, docnos, d, df["score"].to_numpy(), precision)
        assert _as_order(fast) == _as_order(general) == want
        lines = (data[:-1] if data.endswith(b"\n") else data).split(b"\n")
        single_spaced = all(len(line.split(b" ")) == 6 for line in lines)
        if single_spaced and min(data.replace(b"\n", b" ")) == 32:
            assert trec_fast.fast_run(data) is not None


def test_mixed_docno_lengths_read_past_no_padding(tmp_path):
    # issue 27 item 4: a 26-byte docno then a 1-byte one read 8 bytes at offset 24 of the short one
    # (beyond the 16-byte padding when it is the last field of the file): IndexError
    for data, want in ((b"1 Q0 clueweb09-en0000-00-00000 1 2 t\n1 Q0 d 2 1 t\n", ["clueweb09-en0000-00-00000", "d"]),
                       (b"1 Q0 clueweb09-en0000-00-00000 3 1 t\n1 Q0 b 1 1 t\n1 Q0 a 2 1 t",
                        ["clueweb09-en0000-00-00000", "b", "a"]),
                       (b"1 Q0 a 2 1 t\n1 Q0 x" + b"y" * 99 + b" 1 1 t", ["x" + "y" * 99, "a"])):
        got = trec_fast.fast_run(data)
        assert got is not None
        assert _as_order(trec_cache.parsed_run(_write_bytes(tmp_path / "r", data), "float32", None)) == {"1": want}


def _write_bytes(path, data):
    path.write_bytes(data)
    return path
