"""One writer per scale cache folder, and a lock that a dead owner cannot hold (issue 27, item 1).

A build takes an exclusive ``flock`` on ``<folder>/.lock`` and writes its owner into the file:
``pid start-time boot-id host`` (the start time is field 22 of ``/proc/<pid>/stat``, clock ticks since
boot, so a reused pid is told apart from the owner). A second process building the same scale waits,
then reads the finished scale.

Why the owner line, when the kernel drops a flock when its holder dies: a flock belongs to the open
file, and a forked child shares it. Worker processes forked during a build used to keep the lock after
their parent was killed, and every later build waited forever. Now

* the lock's descriptor is opened close-on-exec and closed in every forked child
  (``os.register_at_fork``), so no child ever holds it; the workers also end with their parent
  (:mod:`irscales.enumeration._workers`);
* a waiter never waits silently: it says on stderr which process it waits for (and again every minute),
  and when the recorded owner is gone (no such pid, a different start time, or a zombie) while the lock
  is still held (by an orphan of an older version, say), it takes the lock over: it replaces the lock
  file (under a short guard lock, so that two waiters cannot both replace it) and goes on. A build
  resumes from its checksummed chunks (:mod:`irscales.enumeration._engine`), so taking over is safe: a
  dead owner's workers never write into the cache (only the owner stores chunks).

An owner on another machine (a shared file system) or in another pid namespace cannot be checked: its
host or boot id differs, and the waiter then only waits and says so.
"""
from __future__ import annotations

import errno
import fcntl
import os
import socket
import sys
import time
from pathlib import Path

__all__ = ["CacheLock", "process_start", "owner_alive"]

_HELD: set[int] = set()  # descriptors of the locks this process holds (closed in forked children)


def _close_in_child() -> None:
    for fd in list(_HELD):
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


def process_start(pid: int) -> tuple[int, str] | None:
    """(start time in clock ticks since boot, state letter) of process ``pid`` from ``/proc``, or None when
    there is no such process (or no ``/proc``)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes().decode("ascii", "replace")
    except OSError:
        return None
    # "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'
    rest = raw[raw.rindex(")") + 2:].split()
    return int(rest[19]), rest[0]


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "-"


def _me() -> str:
    start = process_start(os.getpid())
    return f"{os.getpid()} {start[0] if start else '-'} {_boot_id()} {socket.gethostname()}\n"


def owner_alive(line: str) -> bool | None:
    """Whether the owner recorded in a lock file's ``line`` is alive: True, False (gone, pid reused, a
    zombie), or None when it cannot be checked from here (empty line, another host or boot)."""
    parts = line.split()
    if len(parts) != 4:
        return None
    pid_s, start_s, boot, host = parts
    if boot != _boot_id() or host != socket.gethostname() or not pid_s.isdigit():
        return None
    pid = int(pid_s)
    st = process_start(pid)
    if st is None:
        if Path("/proc/self/stat").exists():
            return False  # /proc works here and has no such process
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    start, state = st
    if state in ("Z", "X"):
        return False  # killed, not yet reaped: it holds nothing
    return start_s == "-" or str(start) == start_s


class CacheLock:
    """Exclusive lock of a cache folder: ``with CacheLock(folder): ...``.

    ``note`` receives the waiting and take-over messages (default: a line on stderr); ``poll`` is the
    interval between attempts while another process holds the lock."""

    def __init__(self, directory: Path, note=None, poll: float = 0.2, renote: float = 60.0):
        self.directory = Path(directory)
        self.path = self.directory / ".lock"
        self.note = note or (lambda msg: print(f"irscales: {msg}", file=sys.stderr, flush=True))
        self.poll, self.renote = poll, renote
        self.fd: int | None = None

    def __enter__(self) -> "CacheLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        t0, noted = time.monotonic(), None
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                line = os.pread(fd, 4096, 0).decode("ascii", "replace").strip()
                alive = owner_alive(line)
                if alive is False:
                    self._take_over(fd, line)
                    os.close(fd)
                    continue
                os.close(fd)
                now = time.monotonic()
                if noted is None or now - noted >= self.renote:
                    who = f"process {line.split()[0]}" if line else "another process"
                    waited = f" (waiting for {now - t0:.0f} s)" if noted is not None else ""
                    unknown = "" if alive or not line else "; that process cannot be checked from here (another host?)"
                    self.note(f"waiting for {who}, which is building the scale in {self.directory} and holds "
                              f"{self.path}{waited}{unknown}")
                    noted = now
                time.sleep(self.poll)
                continue
            # locked: make sure the path still names this file (a waiter may have replaced a stale one)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, _me().encode("ascii"), 0)
            self.fd = fd
            _HELD.add(fd)
            return

    def _take_over(self, fd: int, line: str) -> None:
        """Replace the lock file held for a dead owner, unless another waiter already did."""
        guard = os.open(self.directory / ".lock.guard", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(guard, fcntl.LOCK_EX)
            try:
                if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                    os.unlink(self.path)
                    self.note(f"process {line.split()[0]}, which held {self.path}, is gone; taking over its "
                              "build (finished chunks are kept)")
            except FileNotFoundError:
                pass
        finally:
            os.close(guard)  # also releases the guard's flock

    def release(self) -> None:
        if self.fd is None:
            return
        _HELD.discard(self.fd)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)
            self.fd = None
