"""Worker processes of the enumeration layer that die with their parent (issue 27).

A chunk task of the engine (:mod:`irscales.enumeration._engine`) or a batch of counted queries
(:mod:`irscales.enumeration.meet`) runs in forked worker processes. When the parent is killed (SIGTERM,
SIGKILL), orphaned workers of a ``ProcessPoolExecutor`` wait forever for work on a pipe that their
siblings keep open; before this module they also kept the cache lock they had inherited, so every later
build of that scale waited forever. Two guards make a worker end with its parent:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker when the thread that
  forked it ends;
* everywhere, the worker checks right after it starts and then every second that its parent is still
  the process that created it (``os.getppid``), and exits otherwise.

The cache lock itself is never held by a child: :mod:`irscales.enumeration._cache_lock` closes it in
every forked child.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["worker_pool"]

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers end with this process. Fork where available (workers inherit the
    imported modules and tables; spawn would re-import a user's ``__main__``)."""
    import multiprocessing as mp_

    ctx = mp_.get_context("fork" if "fork" in mp_.get_all_start_methods() else "spawn")
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_die_with_parent, initargs=(os.getpid(),))


def _die_with_parent(parent: int) -> None:
    """Worker initializer: ask the kernel for SIGKILL when the parent ends, and watch the parent."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the watcher below still ends the worker
            pass
    if os.getppid() != parent:  # the parent ended before the request above took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="irscales-parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)
