"""numba's on-disk cache of irscales' compiled kernels (issue 36): whether a kernel is in it, and the one line
on stderr while kernels compile.

The kernels (``@njit(cache=True)``: the run-file reader, :mod:`irscales.data._trec_kernels`, and the counts of
:mod:`irscales.enumeration._fixed_count`) compile once per installation, and again after their source file
changes; numba keeps them in ``__pycache__`` beside the sources (or ``NUMBA_CACHE_DIR``). ``make install``
compiles them ahead (:mod:`irscales.warm`); a compile that still happens (the sources changed, a cache that
cannot be written) says so on stderr instead of a silent wait of 20 to 60 seconds.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from types import ModuleType
from typing import Any

__all__ = ["cached", "note_compiling", "compiled_noted", "numba_module"]


def numba_module() -> ModuleType:
    """``numba``, with its array functions (``numba.np.arraymath``) imported now, without their eager BLAS probe.

    On import, ``numba.np.arraymath`` imports ``scipy.linalg`` (and through it ``numpy.f2py``) only to learn
    whether BLAS is there: 0.17 s of the 2.3 s a cold ``irscales scores`` on the TREC-8 runs took (issue 49),
    for kernels that never call BLAS. Here the probe asks only whether scipy is installed, which is what
    decides the import; ``ensure_blas`` itself, which checks scipy's BLAS and its integer width, is put back
    before anything is compiled, so a kernel that uses BLAS still goes through the full check when it is
    typed (``tests/test_warm.py``). Any other numba (its layout changed): imported as it comes."""
    import numba

    if "numba.np.arraymath" not in sys.modules:
        try:
            import numba.np.linalg as linalg

            probe = linalg.ensure_blas
        except (ImportError, AttributeError):
            return numba

        def scipy_installed() -> None:
            if importlib.util.find_spec("scipy") is None:
                raise ImportError("scipy is not installed")

        linalg.ensure_blas = scipy_installed
        try:
            import numba.np.arraymath as arraymath
        finally:
            linalg.ensure_blas = probe
        arraymath.ensure_blas = probe
    return numba


def cached(dispatcher: Any) -> bool:
    """Whether numba's cache holds this kernel compiled from its current source for this machine (its index
    belongs to this numba version and source file stamp, and lists this machine's code generator). Read
    from numba's cache index (numba has no public call for it); when that cannot be read: True."""
    try:
        index = dispatcher._cache._cache_file._load_index()
        magic = dispatcher.targetctx.codegen().magic_tuple()
    except Exception:  # noqa: BLE001 - another numba's internals: say nothing rather than fail a read
        return True
    return any(isinstance(key, tuple) and len(key) > 1 and key[1] == magic for key in index)


def note_compiling(what: str, seconds: int, dispatchers: Iterable[Any]) -> bool:
    """One line on stderr when a kernel of ``dispatchers`` is not in numba's cache (it compiles on its first
    call): ``irscales: compiling <what> (once after installing, ~<seconds> s)…``; True when written."""
    if all(cached(d) for d in dispatchers):
        return False
    if sys.stderr is not None:
        print(f"irscales: compiling {what} (once after installing, ~{seconds} s)…", file=sys.stderr, flush=True)
    return True


def compiled_noted(what: str, seconds: int, functions: Iterable[Any], **options: Any) -> tuple:
    """``numba.njit(cache=True, **options)`` of each function, with :func:`note_compiling`'s line when one of
    them is not in numba's cache."""
    numba = numba_module()  # loading numba costs 0.4 s: only for the kernels

    kernels = tuple(numba.njit(cache=True, **options)(f) for f in functions)
    note_compiling(what, seconds, kernels)
    return kernels
