"""The cache lock and the engine's worker processes (issue 27, item 1): a killed build never locks its
scale, a waiter says for whom it waits, a lock left by a dead owner is taken over, and a resumed build
gives the identical, checksummed scale."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from irscales import enumeration as E
from irscales import measures as M
from irscales.enumeration import _cache_lock as cache_lock
from irscales.enumeration._cache_lock import CacheLock, owner_alive, process_start

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

SRC = str(Path(E.__file__).resolve().parents[2])
BUILD = """
import sys
from irscales import enumeration as E
s = E.scale(sys.argv[1], int(sys.argv[2]), cache=sys.argv[3], memory_mb=1, workers=2, build=True, progress=False)
print("done", s.n_distinct, flush=True)
"""


def _python(code: str, *args, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def _group_alive(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are not zombies."""
    alive = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            raw = (d / "stat").read_text()
        except OSError:
            continue
        rest = raw[raw.rindex(")") + 2:].split()
        if int(rest[2]) == pgid and rest[0] not in ("Z", "X"):
            alive.append(int(d.name))
    return alive


def _done_chunks(d: Path) -> int:
    try:
        return sum(bool(e.get("done")) for e in json.loads((d / "manifest.json").read_text())["chunks"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_build_does_not_lock_its_scale(tmp_path, sig):
    """Reproduction of issue 27 (1): kill a build (its own process group, two worker processes) while its
    workers run; the workers end with it, and the same build then finishes at once and resumes to the
    identical, checksummed scale (it used to wait forever on the lock the orphaned workers held)."""
    m, N = "DCG_b02", 20  # 181 chunks of memory_mb = 1, about 4 s on two workers
    cache = tmp_path / "cache"
    d = E.build_cost(M.parse(m), N, cache=cache).directory
    p = _python(BUILD, m, N, cache)
    try:
        t0 = time.monotonic()
        while not (_done_chunks(d) >= 3 and len(_children(p.pid)) >= 2):
            assert p.poll() is None, f"the build ended before it could be killed: {p.communicate()}"
            assert time.monotonic() - t0 < 120, "no worker processes seen"
            time.sleep(0.02)
        os.kill(p.pid, sig)
        p.wait(timeout=30)
        t0 = time.monotonic()
        while _group_alive(p.pid):  # the workers die with their parent (PR_SET_PDEATHSIG, parent watch)
            assert time.monotonic() - t0 < 10, f"workers outlived their killed parent: {_group_alive(p.pid)}"
            time.sleep(0.05)
        assert not all(e.get("done") for e in json.loads((d / "manifest.json").read_text())["chunks"])
        again = _python(BUILD, m, N, cache)
        try:
            out, err = again.communicate(timeout=120)
        finally:
            if again.poll() is None:
                os.killpg(again.pid, signal.SIGKILL)
        assert again.returncode == 0 and out.startswith("done"), err
        assert "waiting for" not in err  # nobody held the lock
    finally:
        for pid in (p.pid,):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    resumed = E.scale(m, N, cache=cache, verify="full")  # every chunk's SHA-256 checked
    ref = E.scale(m, N, cache=False, workers=1)
    assert resumed.method == "engine" and resumed.directory == d
    assert np.array_equal(resumed.keys, ref.keys) and np.array_equal(resumed.counts, ref.counts)
    rel = np.random.default_rng(1).integers(0, 2, (500, N))
    assert np.array_equal(resumed.phi_runs(rel), ref.phi_runs(rel))
    assert not list(cache.rglob("*.tmp"))


def test_owner_alive_tells_pid_reuse_and_other_hosts():
    start, state = process_start(os.getpid())
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    host = socket.gethostname()
    assert owner_alive(f"{os.getpid()} {start} {boot} {host}") is True
    assert owner_alive(f"{os.getpid()} {start + 1} {boot} {host}") is False  # the pid now names another process
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert owner_alive(f"{int(done.stdout)} 1 {boot} {host}") is False  # exited and reaped
    assert owner_alive(f"{os.getpid()} {start} {boot} elsewhere") is None  # another host: cannot be checked
    assert owner_alive("") is None


def test_a_waiter_says_for_whom_it_waits(tmp_path):
    """A live owner: the waiter names its pid on the note channel (stderr by default), then gets the lock
    when the owner releases it."""
    hold = """
import sys, time
from pathlib import Path
from irscales.enumeration._cache_lock import CacheLock
with CacheLock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""
    p = _python(hold, tmp_path, 1.5)
    try:
        assert p.stdout.readline().strip() == "held"
        notes = []
        t0 = time.monotonic()
        with CacheLock(tmp_path, note=notes.append):
            waited = time.monotonic() - t0
        assert 0.5 < waited < 30
        assert len(notes) == 1 and f"waiting for process {p.pid}" in notes[0] and str(tmp_path / ".lock") in notes[0]
    finally:
        p.kill()
        p.wait()


def test_a_lock_held_for_a_dead_owner_is_taken_over(tmp_path, capfd):
    """The lock file names an owner that is gone, while an orphan (here a bare flock holder) still holds
    the flock: the next build takes the lock over, says so on stderr, and builds."""
    m, N = M.DCG(base=2), 10
    d = E.build_cost(m, N, cache=tmp_path).directory
    d.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    (d / ".lock").write_text(f"{int(dead.stdout)} 12345 {boot} {socket.gethostname()}\n")
    orphan = _python("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR)\n"
                     "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)", d / ".lock")
    try:
        assert orphan.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        s = E.scale(m, N, cache=tmp_path, workers=1)
        assert time.monotonic() - t0 < 30 and s.n_distinct == 3 * 2**8
        err = capfd.readouterr().err
        assert f"process {int(dead.stdout)}" in err and "taking over" in err
    finally:
        orphan.kill()
        orphan.wait()


def test_forked_children_do_not_hold_the_lock(tmp_path):
    """The lock's descriptor is closed in every forked child (os.register_at_fork), so a child that
    outlives the holder cannot keep the lock."""
    with CacheLock(tmp_path) as lock:
        fd = lock.fd
        pid = os.fork()
        if pid == 0:  # child: the descriptor must be gone
            try:
                os.fstat(fd)
                os._exit(1)
            except OSError:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert fd in cache_lock._HELD
    assert not cache_lock._HELD
