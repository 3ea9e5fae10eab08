"""Tests of irscales.data._file_digests (issue 49): a file's digest from its status, trusted only while the file is
as it was when hashed — a change in place with the same size and its mtime set back is seen (its ctime moved), a
file written just now is hashed on every read, a damaged entry is never trusted — and, end to end, a second
reading of unchanged runs and qrels opens neither (the caches of judged runs and of qrels)."""

from __future__ import annotations

import hashlib
import os
import time

import numpy as np
import pytest

from irscales.data import _file_digests as fd
from irscales.data import _qrels_cache as qrels_cache, trec as io, _trec_cache as trec_cache

LATER = 3 * 10**9  # a reading that begins 3 s after the files were written: past the quiet margin


@pytest.fixture
def later(monkeypatch):
    """The clock of the readings, 3 s ahead: files written by the test are old enough to be trusted."""
    monkeypatch.setattr(fd, "time_ns", lambda: time.time_ns() + LATER)


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _hashed(folder, path) -> str | None:
    """What a reading does: the status before, the known digest or the bytes hashed and remembered."""
    before = fd.stamp(path)
    known = fd.known_digest(folder, path, before)
    if known is None:
        fd.remember_digest(folder, path, before, _digest(path))
    return known


def _ctime_moves(path, rewrite) -> None:
    """``rewrite()`` the file until its ctime differs from the one before (a coarse clock may need a tick)."""
    old = os.stat(path).st_ctime_ns
    for _ in range(200):
        rewrite()
        if os.stat(path).st_ctime_ns != old:
            return
        time.sleep(0.01)
    pytest.fail("the file system did not move ctime")


def test_an_unchanged_file_is_known_by_its_status(tmp_path, later):
    f = tmp_path / "run"
    f.write_bytes(b"1 Q0 a 1 2 s\n")
    assert _hashed(tmp_path / "c", f) is None  # first reading: hashed
    assert _hashed(tmp_path / "c", f) == _digest(f)  # then known, unread
    assert len(list(fd.digests_folder(tmp_path / "c").iterdir())) == 1


def test_a_file_written_just_now_is_hashed_every_time(tmp_path):
    """Within QUIET_NS of its last change a file's status cannot vouch for its bytes (a change in the same clock
    tick keeps it): no entry is written."""
    f = tmp_path / "run"
    f.write_bytes(b"1 Q0 a 1 2 s\n")
    for _ in range(3):
        assert _hashed(tmp_path / "c", f) is None
    assert not fd.digests_folder(tmp_path / "c").exists()


def test_a_change_in_place_with_the_same_size_and_mtime_is_seen(tmp_path, later):
    f = tmp_path / "run"
    f.write_bytes(b"1 Q0 a 1 2 s\n")
    _hashed(tmp_path / "c", f)
    assert _hashed(tmp_path / "c", f) == _digest(f)
    st = os.stat(f)

    def rewrite():
        with open(f, "r+b") as fh:  # in place: same inode, same size
            fh.write(b"2")
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime set back, as touch -d would

    _ctime_moves(f, rewrite)
    now = os.stat(f)
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    assert _hashed(tmp_path / "c", f) is None  # ctime moved: hashed again
    assert _hashed(tmp_path / "c", f) == _digest(f) == hashlib.sha256(b"2 Q0 a 1 2 s\n").hexdigest()


def test_a_file_replaced_by_another_is_seen(tmp_path, later):
    f, g = tmp_path / "run", tmp_path / "new"
    f.write_bytes(b"1 Q0 a 1 2 s\n")
    _hashed(tmp_path / "c", f)
    st = os.stat(f)

    def replace():
        g.write_bytes(b"1 Q0 b 1 2 s\n")  # same size
        os.utime(g, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(g, f)

    _ctime_moves(f, replace)
    assert _hashed(tmp_path / "c", f) is None


def test_a_change_during_the_read_is_not_recorded(tmp_path, later):
    f = tmp_path / "run"
    f.write_bytes(b"1 Q0 a 1 2 s\n")
    before = fd.stamp(f)
    _ctime_moves(f, lambda: f.write_bytes(b"1 Q0 a 1 3 s\n"))
    fd.remember_digest(tmp_path / "c", f, before, "0" * 64)  # the status after the read is not the one before
    assert fd.known_digest(tmp_path / "c", f, fd.stamp(f)) is None


def test_a_damaged_or_foreign_entry_is_not_trusted(tmp_path, later):
    f = tmp_path / "run"
    f.write_bytes(b"1 Q0 a 1 2 s\n")
    _hashed(tmp_path / "c", f)
    (entry,) = fd.digests_folder(tmp_path / "c").iterdir()
    good = entry.read_bytes()
    for bad in (b"", b"garbage", good[:-5], good.replace(b'"sha256": "', b'"sha256": "f'), good[:-3] + b"0\n"):
        entry.write_bytes(bad)
        assert fd.known_digest(tmp_path / "c", f, fd.stamp(f)) is None
    other = tmp_path / "other"
    other.write_bytes(f.read_bytes())
    os.utime(other, ns=(os.stat(f).st_atime_ns, os.stat(f).st_mtime_ns))
    theirs = fd.digests_folder(tmp_path / "c") / hashlib.sha256(os.path.abspath(other).encode()).hexdigest()
    theirs.write_bytes(good)  # f's entry where other's would be
    assert fd.known_digest(tmp_path / "c", other, fd.stamp(other)) is None
    assert fd.stamp(tmp_path) is None  # a folder (and a pipe, a device) has no digest


# ------------------------------------------------------------------ end to end: the caches of runs and qrels


def _files(tmp_path):
    rng = np.random.default_rng(3)
    q = tmp_path / "qrels"
    q.write_text("".join(f"{t} 0 d{i} {int(i % 3 == 0)}\n" for t in (1, 2) for i in range(40)))
    runs = []
    for s in range(3):
        r = tmp_path / f"input.r{s}"
        r.write_text("".join(f"{t} Q0 d{i} {k + 1} {rng.random():.6f} r{s}\n" for t in (1, 2)
                             for k, i in enumerate(rng.permutation(40))))
        runs.append(r)
    return q, runs


def test_a_second_reading_opens_neither_runs_nor_qrels(tmp_path, monkeypatch, later):
    monkeypatch.setattr(trec_cache, "CACHED_BYTES", 0)  # small files cached as large ones are
    q, runs = _files(tmp_path)
    cache = tmp_path / "cache"
    want = io.read_trec(runs, q, depth=20, cache=False)
    first = io.read_trec(runs, q, depth=20, cache=cache)

    def refuse(*a, **k):
        raise AssertionError("read again")

    with monkeypatch.context() as m:
        m.setattr(trec_cache, "read_file", refuse)
        m.setattr(qrels_cache, "stored_bytes", refuse)
        again = io.read_trec(runs, q, depth=20, cache=cache)
    for d in (first, again):
        np.testing.assert_array_equal(d.rel, want.rel)
        np.testing.assert_array_equal(d.judged, want.judged)
        assert d.systems == want.systems and d.topics == want.topics
    st, text = os.stat(runs[0]), runs[0].read_bytes()

    def rename():  # a relevant document renamed to an unjudged one, in place: same size, mtime set back
        with open(runs[0], "r+b") as fh:
            fh.write(text.replace(b" d3 ", b" dZ ", 1))
        os.utime(runs[0], ns=(st.st_atime_ns, st.st_mtime_ns))

    _ctime_moves(runs[0], rename)
    changed = io.read_trec(runs, q, depth=20, cache=False)
    assert changed.rel.tolist() != want.rel.tolist()
    assert io.read_trec(runs, q, depth=20, cache=cache).rel.tolist() == changed.rel.tolist()


def test_qrels_read_with_other_options_or_changed_are_read_again(tmp_path, later):
    q, runs = _files(tmp_path)
    cache = tmp_path / "cache"
    io.read_trec(runs, q, depth=20, cache=cache)
    q.write_text(q.read_text().replace("1 0 d0 1", "1 0 d0 -1"))
    with pytest.raises(io.TrecFormatError, match="negative grade -1"):
        io.read_trec(runs, q, depth=20, cache=cache)
    zero = io.read_trec(runs, q, depth=20, cache=cache, negative="zero")
    assert zero.judgments.tolist() == io.read_trec(runs, q, depth=20, cache=False, negative="zero").judgments.tolist()
    assert len(list(cache.glob("*.qrels"))) == 2
    for e in cache.glob("*.qrels"):
        e.write_bytes(e.read_bytes()[:-1] + b"\0")
    with pytest.warns(UserWarning, match="qrels cache entry .* is damaged"):
        again = io.read_trec(runs, q, depth=20, cache=cache, negative="zero")
    assert again.judgments.tolist() == zero.judgments.tolist()
