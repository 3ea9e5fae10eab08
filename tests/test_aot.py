"""The run-file reader compiled ahead of time (issue 49; ``irscales._aot``): it runs only when built from the
source as it is now, only on arguments of its signature, and gives what numba's kernels give, bit for bit."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from irscales import _aot
from irscales.data import _trec_fast as trec_fast, _trec_kernels as kernels

I8 = np.dtype(np.int64)


def _checked(specs):
    calls = []
    c = _aot.Checked(lambda *a: calls.append("compiled") or "compiled", specs,
                     lambda: lambda *a: calls.append("fallback") or "fallback")
    return c, calls


def test_only_arguments_of_the_signature_reach_the_compiled_function():
    c, calls = _checked(["int", "bool", (I8, 1, False), (I8, 2, True)])
    good = [3, True, np.zeros(4, np.int64), np.zeros((2, 2), np.int64)]
    assert c(*good) == "compiled"
    assert c(np.int64(3), np.bool_(False), *good[2:]) == "compiled"
    readonly = np.zeros((2, 2), np.int64)
    readonly.flags.writeable = False
    assert c(*good[:3], readonly) == "compiled"  # read-only is allowed where the signature says so
    out_readonly = np.zeros(4, np.int64)
    out_readonly.flags.writeable = False
    bad = [
        [True, True, *good[2:]],  # a bool is not an int64
        [2**63, True, *good[2:]],  # beyond int64
        [3, 1, *good[2:]],  # an int is not a bool
        [3, True, np.zeros(4, np.int32), good[3]],  # another dtype
        [3, True, np.zeros(8, np.int64)[::2], good[3]],  # not contiguous
        [3, True, np.zeros((4, 1), np.int64), good[3]],  # another dimension
        [3, True, out_readonly, good[3]],  # read-only where the kernel writes
        [3, True, np.zeros(4, np.int64).tolist(), good[3]],  # not an array
        [3, True, np.zeros(4, np.int64).astype(">i8"), good[3]],  # another byte order
        good[:3],  # an argument missing
    ]
    for args in bad:
        assert c(*args) == "fallback", args
    unaligned = np.frombuffer(b"\0" * 33, np.uint8)[1:].view(np.int64)
    assert not unaligned.flags.aligned and c(3, True, unaligned, good[3]) == "fallback"
    assert calls == ["compiled"] * 3 + ["fallback"] * (len(bad) + 1)


def test_the_fingerprint_is_that_of_the_source_bytes(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("x = 2\n")
    assert _aot.fingerprint(a) == _aot.fingerprint(a) != _aot.fingerprint(b)
    assert 0 <= _aot.fingerprint(a) < 2**63


def test_a_module_built_from_another_source_or_absent_is_not_used(tmp_path, monkeypatch):
    source = tmp_path / "k.py"
    source.write_text("def f(): pass\n")
    specs = {"f": ("int",)}
    for fp, used in ((_aot.fingerprint(source), True), (_aot.fingerprint(source) ^ 1, False)):
        fake = types.ModuleType("irscales_fake_aot")
        fake.fingerprint = lambda fp=fp: fp
        fake.f = lambda x: 2 * x
        monkeypatch.setitem(sys.modules, "irscales_fake_aot", fake)
        found = _aot.load("irscales_fake_aot", source, specs, lambda name: None)
        assert (found is not None) == used
        if used:
            assert found["f"](21) == 42
    assert _aot.load("irscales_no_such_module_aot", source, specs, lambda name: None) is None


def _refused(*args):
    raise AssertionError("the module compiled ahead of time refused the arguments: numba's kernel would have run")


@pytest.fixture(scope="module")
def ahead():
    """(the module's kernels, which may not hand a call to numba's, numba's kernels)"""
    built = kernels.ahead_kernels()
    if built is None:
        pytest.skip("the reader's module compiled ahead of time is not built from the current source here "
                    "(`python -m irscales.warm` builds it; tests/test_warm.py checks that it does)")
    return tuple(_aot.Checked(k.compiled, k.specs, lambda: _refused) for k in built), kernels.jit_kernels()


_docno = st.one_of(st.text(alphabet="aZ09-_.", min_size=1, max_size=24), st.integers(0, 10**6).map("FT-{}".format))
_score = st.one_of(st.sampled_from(["1", "1.0", "0.5", "-0", "2", "1e3", "0.30000000000000004", "1.5E-3"]),
                   st.floats(-1e3, 1e3, allow_nan=False).map(repr))


@st.composite
def _run_text(draw) -> tuple[bytes, list[tuple[str, str]]]:
    rows = draw(st.lists(st.tuples(st.sampled_from(["1", "2", "401", "q-10"]), _docno, _score), min_size=1,
                         max_size=60))
    tag = draw(st.sampled_from(["t", "a-run-tag-of-many-bytes"]))
    lines = [f"{t} Q0 {d} {r} {s} {tag}" for r, (t, d, s) in enumerate(rows, 1)]
    if draw(st.integers(0, 4)) == 0:  # what the kernels leave to the general path: a short line, a bad score …
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = draw(st.sampled_from(["1 Q0 d", "1 Q0 d 1 x t", "1 Q0 d 1 1 t extra", "1 Q0 d 1e999 1 t",
                                          "1 Q0 d 1 1 another-tag"]))
    keep = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    judged = list(dict.fromkeys([(t, d) for (t, d, _), k in zip(rows, keep) if k] + [("1", "unseen")]))
    return "\n".join(lines).encode() + b"\n", judged


def _tokenized(tokenize, text):
    cap = trec_fast._max_rows(text.size)
    arrays = [np.zeros(cap, dt) for dt in (np.int32, np.int64, np.int32, np.uint64, np.uint64, np.uint64, np.float64)]
    odd = [np.zeros(2 * cap, dt) for dt in (np.int64, np.int64, np.int32)]
    out = tokenize(text.buf, trec_fast._PAD, trec_fast._PAD + text.size, kernels.CLASSES, kernels.POW10, *arrays, *odd)
    return out, arrays, odd


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()  # bit for bit (a NaN or a -0.0 included)
    return a == b and type(a) is type(b)


@settings(max_examples=150, deadline=None)
@given(_run_text(), st.booleans())
def test_the_module_compiled_ahead_gives_numbas_results_bit_for_bit(ahead, case, single):
    (tok_a, order_a, table_a), (tok_j, order_j, table_j) = ahead
    data, judged = case
    text = trec_fast.Padded.of(data)
    a, j = _tokenized(tok_a, text), _tokenized(tok_j, text)
    assert _same(a, j)
    (status, n, nt, *_), arrays, _ = a
    event(f"tokenizer status {status}")
    if status != kernels.STATUS_OK or not n:
        return
    names = sorted({t for t, _ in judged})
    topic = np.array([names.index(t) for t, _ in judged], np.int64)
    buf = np.frombuffer(b"".join(d.encode() for _, d in judged) + b"\0", np.uint8)
    length = np.array([len(d) for _, d in judged], np.int64)
    table = [(topic, len(names), buf, np.cumsum(length) - length, length,
              np.arange(len(judged), dtype=np.int16) % 3) for _ in range(2)]
    t_a, t_j = table_a(*table[0]), table_j(*table[1])
    assert _same(t_a, t_j)
    t_code, doc_pos, doc_len, doc_hash, w0, w1, score = (x[:n] for x in arrays)
    run_topics = [text.token(int(p), int(k)).decode() for p, k in zip(*a[0][3:5])]
    judged_topic = np.array([names.index(t) if t in names else -1 for t in run_topics], np.int64)
    results = []
    for order, (start, size, slots, doc) in ((order_a, t_a), (order_j, t_j)):
        key, perm, grade = np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int16)
        st_ = order(text.buf, t_code, nt, doc_pos, doc_len, doc_hash, w0, w1, score, single, judged_topic, start,
                    size, slots, doc, buf, np.cumsum(length) - length, key, perm, grade)
        results.append((st_, key, perm, grade))
    assert _same(*results)
    event(f"order status {results[0][0]}, {int((results[0][3] >= 0).sum() > 0)} judged")


def test_reading_runs_through_either_gives_the_same(ahead, tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    path = tmp_path / "run"
    path.write_text("".join(f"{t} Q0 d{rng.integers(0, 900)}-{i} {i + 1} {rng.integers(0, 40) / 8} tag\n"
                            for t in (401, 402, 403) for i in range(400)))
    for k in kernels.ahead_kernels():  # the reader's own calls reach the module, never numba's kernels behind it
        monkeypatch.setattr(k, "fallback", lambda: _refused)
    got = []
    for use in (True, False):
        monkeypatch.setattr(kernels, "USE_AHEAD", use)
        p = trec_fast.parsed_run(path, "float32")
        got.append((p.topics.tolist(), p.docnos.tolist(), p.t_code.tobytes(), p.d_code.tobytes()))
    assert got[0] == got[1]
    assert "numba" in sys.modules  # numba's kernels were used for the second


def test_irscales_ahead_0_reads_through_numba():
    code = ("from irscales.data import _trec_kernels as k\n"
            "print(k.USE_AHEAD, k.kernels()[0] is k.jit_kernels()[0])")
    for value, want in (("0", "False True"), ("1", f"True {kernels.ahead_kernels() is None}")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "IRSCALES_AHEAD": value})
        assert out.returncode == 0 and out.stdout.strip() == want, out.stderr[-2000:]
