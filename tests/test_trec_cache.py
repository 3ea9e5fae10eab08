"""Tests of irscales.data.trec_cache: the cache of parsed runs and the threaded reader."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import trec_cache


def write(path, text):
    path.write_text(text)
    return path


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.sampled_from(["float32", "float64"]))
def test_cache_frames_and_files_give_the_same_arrays(tmp_path, seed, precision):
    # the three routes to the arrays agree: files parsed now, files from the cache of parsed runs
    # (second read), and frames from read_run
    rng = np.random.default_rng(seed)
    d = tmp_path / str(seed) / precision
    d.mkdir(parents=True)
    q = write(d / "q", "".join(f"{t} 0 d{i} {rng.integers(0, 3)}\n" for t in (1, 2, 3) for i in range(8))
              + "1 0 d0x 1\n2 0 d0x 1\n3 0 d0x 1\n")
    files = []
    for s in range(5):
        lines = [f"{t} Q0 d{i} 1 {100000 + rng.integers(0, 3) / 64 + rng.integers(0, 2) * 1e-7} r{s}\n"
                 for t in (1, 2, 3) for i in rng.permutation(8)[:5]]
        files.append(write(d / f"input.r{s}", "".join(lines)))
    kw = dict(on_no_relevant="keep", score_precision=precision)
    fresh = io.read_trec(files, q, depth=4, cache=False, **kw)
    first = io.read_trec(files, q, depth=4, cache=d / "cache", **kw)
    again = io.read_trec(files, q, depth=4, cache=d / "cache", **kw)
    frames = io.relevance_arrays([io.read_run(f) for f in files], io.read_qrels(q), 4, **kw)
    assert len(list((d / "cache").iterdir())) == 5
    for other in (first, again, frames):
        np.testing.assert_array_equal(other.rel, fresh.rel)
        np.testing.assert_array_equal(other.run_lengths, fresh.run_lengths)
        assert other.systems == fresh.systems == [f"r{s}" for s in range(5)]


def test_cache_is_keyed_by_content_and_survives_a_bad_entry(tmp_path):
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 1\n")
    r = write(tmp_path / "r", "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    cache = tmp_path / "cache"
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[1, 1]]]
    write(r, "1 Q0 a 1 2 s\n1 Q0 z 2 1 s\n")  # same name, new content: a new key
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[1, 0]]]
    for f in cache.iterdir():
        f.write_bytes(b"garbage")  # a damaged entry is parsed again, not trusted
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[1, 0]]]


def test_unwritable_cache_warns_and_reads_anyway(tmp_path):
    q = write(tmp_path / "q", "1 0 a 1\n")
    r = write(tmp_path / "r", "1 Q0 a 1 2 s\n")
    blocker = write(tmp_path / "file", "not a folder")
    with pytest.warns(UserWarning, match="cannot write the parsed-run cache"):
        out = io.read_trec([r], q, depth=1, cache=blocker / "sub")
    assert out.rel.tolist() == [[[1]]]


def test_many_files_keep_their_order_and_the_first_bad_file_raises(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_cache, "READ_THREADS", 2)
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n")
    files = [write(tmp_path / f"r{i:02d}", f"1 Q0 a 1 {i % 3} s{i}\n1 Q0 b 2 1 s{i}\n") for i in range(12)]
    out = io.read_trec(files, q, depth=2, cache=False)
    assert out.systems == [f"s{i}" for i in range(12)]
    assert out.rel[:, 0].tolist() == [[1, 0] if i % 3 == 2 else [0, 1] for i in range(12)]  # a tie: b before a
    write(files[4], "1 Q0 a 1 x s4\n")
    write(files[9], "1 Q0 a 1 2 s9 extra\n")
    with pytest.raises(io.TrecFormatError, match=re.escape(f"{files[4]}:1: score must be a number")):
        io.read_trec(files, q, depth=2, cache=False)


def test_progress_bar_on_stderr(tmp_path, capsys):
    q = write(tmp_path / "q", "1 0 a 1\n")
    files = [write(tmp_path / f"r{i}", f"1 Q0 a 1 1 s{i}\n") for i in range(3)]
    io.read_trec(files, q, depth=1, cache=False, progress=True)
    assert "reading runs" in capsys.readouterr().err
    io.read_trec(files, q, depth=1, cache=False)  # default: not a terminal, no bar
    assert capsys.readouterr().err == ""
