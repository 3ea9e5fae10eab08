"""Tests of irscales.data._trec_cache: the cache of parsed runs and the threaded reader."""

from __future__ import annotations

import re
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import _trec_cache as trec_cache
from irscales.data._trec_arrays import QrelsIndex


@pytest.fixture(autouse=True)
def compiled_reader(monkeypatch):
    """The cache is tested with the compiled reader, which large inputs take (trec_cache.COMPILED_READER_BYTES),
    on small files, which are cached here as large ones are (trec_cache.CACHED_BYTES)."""
    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", 0)
    monkeypatch.setattr(trec_cache, "CACHED_BYTES", 0)


def write(path, text):
    path.write_text(text)
    return path


def run_entries(cache) -> list:
    """The cache's entries of judged runs (beside them: the qrels' entries and the index of file digests)."""
    return sorted(cache.glob("*.judged"))


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
    assert len(run_entries(d / "cache")) == 5
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
    for f in [*run_entries(cache), *cache.glob("*.qrels")]:
        f.write_bytes(b"garbage")  # a damaged entry is parsed again, not trusted
    with pytest.warns(UserWarning, match="is damaged"):
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
    monkeypatch.setattr(trec_cache, "THREADED_BYTES_PER_FILE", 0)  # small files, read by the threads all the same
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


# ------------------------------------------------------------------ a cache that is checked (issue 27 items 5, 10)


def _entry(cache):
    (f,) = [f for f in cache.iterdir() if f.suffix == ".judged"]
    return f


def _regions(raw: bytes) -> dict[str, int]:
    """One byte offset inside each part of an entry: its JSON line (the key, the names), each array, and
    the checksum."""
    import json

    end = raw.index(b"\n")
    head = json.loads(raw[:end])
    out = {"format": raw.index(b"judged-run"), "key": raw.index(head["key"].encode()) + 70,
           "names": raw.index(b'"topics"') + 12}
    at = end + 1
    for name, dt in trec_cache._ARRAYS:
        n = len(head["topics"]) if name == "lengths" else head["hits"]
        size = n * np.dtype(dt).itemsize
        if size:
            out[name] = at + size // 2
        at += size
    out["checksum"] = len(raw) - 5
    return out


def test_every_flipped_byte_of_an_entry_is_caught(tmp_path):
    # issue 27 item 5: 4 of 8 byte flips changed `map` when entries were trusted blindly
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 1\n2 0 c 1\n")
    r = write(tmp_path / "r", "1 Q0 a 1 2 s\n1 Q0 z 2 1 s\n1 Q0 b 3 1 s\n2 Q0 c 1 5 s\n2 Q0 y 2 4 s\n")
    cache = tmp_path / "cache"
    want = io.read_trec([r], q, depth=3, cache=False).rel.tolist()
    assert io.read_trec([r], q, depth=3, cache=cache).rel.tolist() == want
    good = _entry(cache).read_bytes()
    regions = _regions(good)
    assert len(regions) == 3 + len(trec_cache._ARRAYS) + 1
    for where, pos in regions.items():
        for bit in (0, 7):
            bad = bytearray(good)
            bad[pos] ^= 1 << bit
            _entry(cache).write_bytes(bad)
            with pytest.warns(UserWarning, match=r"parsed-run cache entry .* is damaged .*; parsing .*r again"):
                assert io.read_trec([r], q, depth=3, cache=cache).rel.tolist() == want, where
            assert _entry(cache).read_bytes() == good, where  # rewritten


def test_an_entry_of_other_bytes_or_format_is_not_used(tmp_path):
    # a checksummed entry under another file's name (copied, renamed), or of an older format
    q = write(tmp_path / "q", "1 0 a 1\n")
    r1 = write(tmp_path / "r1", "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    r2 = write(tmp_path / "r2", "1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n")
    c1, c2 = tmp_path / "c1", tmp_path / "c2"
    assert io.read_trec([r1], q, depth=2, cache=c1).rel.tolist() == [[[1, 0]]]
    assert io.read_trec([r2], q, depth=2, cache=c2).rel.tolist() == [[[0, 1]]]
    _entry(c1).write_bytes(_entry(c2).read_bytes())
    with pytest.warns(UserWarning, match="not a parsed run of this file"):
        assert io.read_trec([r1], q, depth=2, cache=c1).rel.tolist() == [[[1, 0]]]


def test_nul_bytes_are_refused_and_never_reach_the_cache(tmp_path):
    # issue 27 items 5 and 8: 'd' + NUL read as 'd' from the cache (RR 1.0) but not when parsed (RR 0.0),
    # and a file + trailing NULs shared its entry with the file. A NUL byte is now an error with its line,
    # whether or not the same file without it was cached.
    q = write(tmp_path / "q", "1 0 d 1\n")
    cache = tmp_path / "cache"
    clean = b"1 Q0 a 1 2 t\n1 Q0 d 2 1 t\n"
    r = tmp_path / "r"
    r.write_bytes(clean)
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[0, 1]]]
    for data, line in ((clean + b"\0", 3), (clean + b"\0\0\n", 3), (b"1 Q0 a 1 2 t\n1 Q0 d\0 2 1 t\n", 2),
                       (b"\0" + clean, 1)):
        r.write_bytes(data)
        for _ in range(2):
            with pytest.raises(io.TrecFormatError, match=re.escape(f"{r}:{line}: NUL byte")):
                io.read_trec([r], q, depth=2, cache=cache)
        assert trec_cache._cache_key(data, "float32", "q") != trec_cache._cache_key(clean, "float32", "q")
    q.write_bytes(b"1 0 a 1\n1 0 d\0 1\n")
    with pytest.raises(io.TrecFormatError, match=re.escape(f"{q}:2: NUL byte (\\x00) at byte 6 of the line")):
        io.read_qrels(q)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(alphabet="aZ9-é\x7f\x1c\xa0\x85\u2028\U0001f600", min_size=1, max_size=40),
                min_size=1, max_size=8, unique=True))
def test_cached_names_round_trip_exactly(tmp_path, docs):
    # names with control bytes, non-ASCII blanks of Python and astral characters come back unchanged
    d = tmp_path / str(abs(hash(tuple(docs))))
    d.mkdir()
    r = d / "r"
    r.write_bytes("".join(f"é{i % 2} Q0 {x} {i + 1} {i % 3} tag\u2028x\n" for i, x in enumerate(docs)).encode())
    judged = QrelsIndex(pd.DataFrame([(f"é{i % 2}", x, 1 + i % 2) for i, x in enumerate(docs)],
                                     columns=["topic", "docno", "rel"]))
    fresh = trec_cache.judged_run(r, "float32", judged, None)
    trec_cache.judged_run(r, "float32", judged, d / "cache")
    hit = trec_cache.judged_run(r, "float32", judged, d / "cache")
    assert hit.system == fresh.system == "tag\u2028x"
    assert len(fresh.hit_topic) == len(docs)
    for a in ("topics", "lengths", "hit_topic", "hit_rank", "hit_grade", "judged"):
        assert getattr(hit, a).tolist() == getattr(fresh, a).tolist()


def test_a_full_disk_names_the_entry_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    import errno

    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            self.fh.write(bytes(data)[:3])
            raise OSError(errno.ENOSPC, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    # the one writer, irscales._atomic, writes the temporary file through os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", *a, **k: Full(real_fdopen(fd, mode, *a, **k)))
    monkeypatch.setattr(trec_cache, "READ_THREADS", 2)
    monkeypatch.setattr(trec_cache, "THREADED_BYTES_PER_FILE", 0)  # small files, read by the threads all the same
    q = write(tmp_path / "q", "1 0 a 1\n")
    files = [write(tmp_path / f"r{i}", f"1 Q0 a 1 {i} s{i}\n1 Q0 b 2 1 s{i}\n") for i in range(4)]
    cache = tmp_path / "cache"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = io.read_trec(files, q, depth=2, cache=cache)
    assert out.rel[:, 0, :].tolist() == [[0, 1], [0, 1], [1, 0], [1, 0]]  # a tie at 1: b before a
    msgs = [str(w.message) for w in seen]
    assert len(msgs) == 1, msgs  # once per folder, not once per file
    assert re.fullmatch(rf"cannot write the parsed-run cache entry {re.escape(str(cache))}/[0-9a-f]{{64}}-float32-"
                        r"[0-9a-f]{64}-v5\.judged \(No space left on device\); continuing without the cache", msgs[0])
    assert not any(cache.rglob("*.tmp"))  # none left


# ------------------------------------------------------------------ keyed by the run, precision and judgments (issue 32)


def test_entries_are_per_run_precision_and_judgments(tmp_path):
    """One entry per (file bytes, precision, judgments): new qrels or another precision read the file again,
    and each reading gives what a reading without the cache gives."""
    r = write(tmp_path / "r", "1 Q0 a 1 100000.1546100 s\n1 Q0 b 2 100000.1530000 s\n1 Q0 c 3 1 s\n")
    q1 = write(tmp_path / "q1", "1 0 a 1\n1 0 b 2\n")
    q2 = write(tmp_path / "q2", "1 0 b 1\n1 0 c 1\n")
    cache = tmp_path / "cache"
    seen = []
    for q in (q1, q2):
        for precision in ("float32", "float64"):
            want = io.read_trec([r], q, depth=3, cache=False, score_precision=precision).rel.tolist()
            for _ in range(2):
                assert io.read_trec([r], q, depth=3, cache=cache, score_precision=precision).rel.tolist() == want
            seen.append(want)
    assert len(run_entries(cache)) == 4 and len(list(cache.glob("*.qrels"))) == 2  # one per qrels file
    assert seen[0] != seen[1]  # float32 ties a and b (b wins on docno), float64 does not


def test_a_gzipped_run_is_keyed_by_its_stored_bytes(tmp_path, monkeypatch):
    """A second reading of a gzipped run neither gunzips nor parses it; the same text gzipped otherwise is
    another entry (read correctly)."""
    import gzip

    text = "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n"
    r = tmp_path / "r.gz"
    r.write_bytes(gzip.compress(text.encode(), mtime=0))
    q = write(tmp_path / "q", "1 0 b 1\n")
    cache = tmp_path / "cache"
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[0, 1]]]

    def refuse(*a, **k):
        raise AssertionError("gunzipped again")

    monkeypatch.setattr(trec_cache, "scan_run", refuse)
    monkeypatch.setattr(gzip, "decompress", refuse)
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[0, 1]]]
    monkeypatch.undo()
    monkeypatch.setattr(trec_cache, "CACHED_BYTES", 0)  # undone above with the rest
    r.write_bytes(gzip.compress(text.encode(), compresslevel=1, mtime=1))
    assert io.read_trec([r], q, depth=2, cache=cache).rel.tolist() == [[[0, 1]]]
    assert len(run_entries(cache)) == 2


def test_the_cache_is_smaller_than_the_gzipped_runs(tmp_path):
    # entries hold the judged relevant documents of a run, not its docnos: a small fraction of the run files
    import gzip

    rng = np.random.default_rng(2)
    q = write(tmp_path / "q", "".join(f"{t} 0 D{t}-{i} {int(i < 30)}\n" for t in range(1, 21) for i in range(120)))
    files = []
    for s in range(6):
        lines = "".join(f"{t} Q0 D{t}-{d} {k + 1} {1000 - k + rng.random():.6f} run{s}\n"
                        for t in range(1, 21) for k, d in enumerate(rng.permutation(1000)[:1000]))
        files.append(tmp_path / f"r{s}.gz")
        files[-1].write_bytes(gzip.compress(lines.encode()))
    io.read_trec(files, q, depth=1000, cache=tmp_path / "cache")
    cached = sum(f.stat().st_size for f in run_entries(tmp_path / "cache"))
    gz = sum(f.stat().st_size for f in files)
    assert cached < gz / 20, (cached, gz)


def test_small_inputs_are_parsed_by_the_general_path(tmp_path, monkeypatch):
    """Below COMPILED_READER_BYTES of text (a gzipped file counts four times its size) the compiled reader is
    not used unless it is loaded already; the arrays are the same either way."""
    import gzip

    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 2\n")
    r = write(tmp_path / "r", "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n1 Q0 c 3 1 s\n")
    g = tmp_path / "g"
    g.write_bytes(gzip.compress(b"1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n"))
    want = io.read_trec([r, g], q, depth=3, cache=False).rel.tolist()
    used = []
    real = trec_cache.scan_run
    monkeypatch.setattr(trec_cache, "scan_run", lambda *a: used.append(1) or real(*a))
    monkeypatch.setattr(trec_cache, "kernels_loaded", lambda: False)
    size = r.stat().st_size + 4 * g.stat().st_size
    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", size + 1)
    assert io.read_trec([r, g], q, depth=3, cache=False).rel.tolist() == want and not used
    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", size)
    assert io.read_trec([r, g], q, depth=3, cache=False).rel.tolist() == want and len(used) == 2
    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", size + 1)
    monkeypatch.setattr(trec_cache, "kernels_loaded", lambda: True)
    assert io.read_trec([r, g], q, depth=3, cache=False).rel.tolist() == want and len(used) == 4
