"""Tests of irscales.data.trec_fast: the numpy fast path for well-formed run files agrees with the general path."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.data import trec_fast
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
