"""Kernels compiled ahead of time into an extension module, so that a process runs them without importing numba
(issue 49): loading numba and its cached kernels took 0.5 s of the 1.8-2.4 s a cold ``irscales scores`` on the
TREC-8 runs took, on one core while the other waited, and 100 MB of its 200 MB peak.

``make install`` (:mod:`irscales.warm`) compiles the same Python functions that numba compiles on demand
(:mod:`irscales.data._trec_kernels`) with numba's ahead-of-time compiler (``numba.pycc``) into an extension module
beside their source, for the signatures the JIT compiled for real reading, with the GIL released as the JIT
kernels release it (``nogil``). The module carries a fingerprint of what it was compiled from: the source file's
bytes, numpy's version and the interpreter's tag. A process uses it only when the fingerprint is that of the source
it has now; otherwise (not built, a source changed since, another numpy) it goes to numba as before, so a stale
module is never run.

The compiled functions do not check what they are given (an array of another dtype would be read as raw
memory), so every call goes through :class:`Checked`: each argument must be what the signature says (an
ndarray (or a subclass) of that dtype and dimension, C-contiguous, aligned, writable unless the signature allows read-only, or an
integer or a bool), else the call goes to the JIT kernel, which types it. ``tests/test_aot.py`` checks that the
compiled module and numba give the same results, and that a wrong argument does not reach the module.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Union

import numpy as np

from irscales._jit_cache import numba_module

__all__ = ["Checked", "ArgSpec", "build", "fingerprint", "load"]

#: One argument: ``"int"`` (an int64), ``"bool"``, or (dtype, ndim, read-only allowed) of a C-contiguous array.
ArgSpec = Union[str, tuple[np.dtype, int, bool]]


def fingerprint(source: Path) -> int:
    """What a compiled module must have been built from to run here: the source's bytes, numpy's version and the
    interpreter's tag, as a positive int64."""
    h = hashlib.sha256(Path(source).read_bytes())
    h.update(f"\0{np.__version__}\0{sys.implementation.cache_tag}".encode())
    return int.from_bytes(h.digest()[:8], "little") & (2**63 - 1)


def _ok(a: Any, spec) -> bool:
    if spec == "int":
        return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) and -2**63 <= a < 2**63
    if spec == "bool":
        return isinstance(a, (bool, np.bool_))
    dtype, ndim, readonly = spec
    return (isinstance(a, np.ndarray) and a.dtype == dtype and a.ndim == ndim and a.flags.c_contiguous
            and a.flags.aligned and (readonly or a.flags.writeable))


class Checked:
    """A compiled function that runs only on arguments of its signature; any other call goes to ``fallback()``
    (the JIT kernel, loaded when first needed)."""

    def __init__(self, compiled: Callable, specs: Sequence, fallback: Callable[[], Callable]):
        self.compiled, self.specs, self.fallback = compiled, tuple(specs), fallback

    def __call__(self, *args):
        if len(args) == len(self.specs) and all(map(_ok, args, self.specs)):
            return self.compiled(*args)
        return self.fallback()(*args)


def load(module: str, source: Path, specs: dict[str, Sequence], fallback: Callable[[str], Callable]
         ) -> dict[str, Checked] | None:
    """The compiled functions ``specs`` names from ``module`` (a dotted name), each :class:`Checked`
    (``fallback(name)``: the JIT kernel), or None when the module is not there or was built from something else
    than ``source`` as it is now (module docstring)."""
    try:
        mod = importlib.import_module(module)
        if mod.fingerprint() != fingerprint(source):
            return None
        return {name: Checked(getattr(mod, name), spec, lambda name=name: fallback(name))
                for name, spec in specs.items()}
    except (ImportError, AttributeError, OSError):
        return None


def _numba_type(numba, spec):
    if spec == "int":
        return numba.types.int64
    if spec == "bool":
        return numba.types.boolean
    dtype, ndim, readonly = spec
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), ndim, "C", readonly=readonly)


@contextlib.contextmanager
def _gil_released(compiler):
    """numba's ahead-of-time compiler keeps the GIL in the wrappers it makes (its flags have no ``nogil``): its
    flags, with ``release_gil`` set, for the duration of the build."""
    plain = compiler.Flags

    class Flags(plain):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compiler.Flags = Flags
    try:
        yield
    finally:
        compiler.Flags = plain


def build(module: str, source: Path, kernels: dict[str, tuple[Callable, Any]], specs: dict[str, Sequence]) -> Path:
    """Compile ``kernels`` (name: (the Python function, its numba dispatcher, compiled already for the reader's
    calls)) into the extension module ``module`` beside ``source``; returns its path. Each dispatcher must hold
    exactly one signature, the one ``specs`` declares (its return type is taken from it): anything else raises
    ``ValueError``, and nothing is written."""
    numba = numba_module()
    from numba.pycc import CC, compiler

    name = module.rpartition(".")[2]
    cc = CC(name)
    folder = Path(source).parent
    target = folder / cc.output_file
    cc.output_dir = str(folder)
    cc.output_file = f".{cc.output_file}.{os.getpid()}.tmp"  # then renamed over the module: whole or not at all
    # for any CPU of the architecture (numba's default), not this host's: a checkout shared across machines (a
    # cluster's home folder) must not run instructions an older CPU lacks; the reader's byte loops lose 2-4 %
    cc.verbose = False
    for kname, (function, dispatcher) in kernels.items():
        signatures = dispatcher.nopython_signatures
        declared = tuple(_numba_type(numba, s) for s in specs[kname])
        if len(signatures) != 1 or tuple(signatures[0].args) != declared:
            raise ValueError(f"{kname}: numba compiled {[str(s) for s in signatures]}, the declared signature is "
                             f"({', '.join(map(str, declared))})")
        cc.export(kname, signatures[0])(function)
    namespace: dict = {}
    exec(f"def fingerprint():\n    return {fingerprint(source)}\n", namespace)
    cc.export("fingerprint", numba.types.int64())(namespace["fingerprint"])
    built = folder / cc.output_file
    try:
        with warnings.catch_warnings(), _gil_released(compiler):
            warnings.simplefilter("ignore")  # numba's note that pycc is deprecated (it still ships and works)
            cc.compile()
        os.replace(built, target)
    finally:
        built.unlink(missing_ok=True)
    importlib.invalidate_caches()
    sys.modules.pop(module, None)
    return target
