"""The one planner of the enumeration layer: which exact route answers a request for a scale or for φ,
and at what cost (issue 27).

Every entry point that needs a scale or the ranked measure φ (FFF21 eq. 2, §7.1.3) asks
:func:`choose_route` first: :func:`irscales.enumeration.scale`, :func:`irscales.enumeration.ranked_runs`,
:func:`irscales.interval.plan` (so ``irscales.evaluate`` and the papers), and the ``irscales`` command line. For (measure, N, c, ties,
cache) it asks each registered provider (:mod:`irscales.enumeration.providers`, where a new route is added) for
an offer; the built-in ones, registered here, are

* ``closed``  a closed-form scale (P, R, RR, RBP with p ≤ 1/2; :func:`~irscales.enumeration._scale_class.closed_form`):
  nothing to compute;
* ``count``   φ counted run by run, nothing stored (:mod:`irscales.enumeration.counting`; its time from
  :func:`~irscales.enumeration.counting.count_cost`, for the distinct runs to rank);
* ``cached``  the engine's scale already in the cache folder: read (checksums verified once per process);
* ``build``   the engine's enumeration of all (c+1)^N runs (:func:`~irscales.enumeration._engine.build_cost`:
  time and the bytes stored, on disk or in memory),

and takes an exact route before one that brackets φ, then the cheapest by estimated time (the estimates are orders of magnitude, so a build, which leaves a
cache behind, must be estimated twice as fast as the route it replaces). The CLI's rule holds in the API
too: **a build estimated above the budget** (:data:`BUILD_SECONDS_OK` or :data:`BUILD_BYTES_OK`) **is never
started without consent**
(``build=True``; ``--build-scales`` in the CLI). When such a build is the only route, :class:`OverBudget`
refuses with the estimate and the cheaper options (another tie strategy that is counted at this N, the
largest N that builds within the budget). A method such as ``method="engine"`` chooses a route, it is not
consent: only ``build=True`` is. Counting is never refused for its time: it stores nothing, its tables
are bounded (``counting.MAX_HALF``), and it shows a progress bar when it is long.

What ``need`` changes: ``"phi"`` (:func:`ranked_runs`) takes any route; ``"scale"`` (:func:`scale`)
prefers a stored or closed-form :class:`~irscales.enumeration.Scale` (values, counts, quantiles) when one
is within the budget (or cached, or consented), else the counted
:class:`~irscales.enumeration.counting.CountedScale` (sizes and exact φ only), else refuses. So
``scale("RBP_p08", 40)`` answers at once with a counted scale (its build: 2^40 runs, hours), and
``scale("AP", 30)`` refuses with the estimate (φ_unq of AP is not counted at N = 30; ties min/max/mid are).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from irscales import measures as M
from irscales._padding import padded
from irscales.enumeration import counting
from irscales.enumeration.counting import CountedScale
from irscales.enumeration._engine import (BuildCost, build_cost, build_estimate, human_bytes, human_seconds,
                                          max_enumerable_depth, run_engine)
from irscales.enumeration.forms import form_of
from irscales.enumeration._kernels import kernel
from irscales.enumeration.providers import PROVIDERS, Request, reach, register
from irscales.enumeration._runs import normaliser, numerator, run_ids
from irscales.enumeration._scale_class import Scale, closed_form, has_closed_form
from irscales.enumeration.ties import TIES, check_ties
# BUILD_*_OK re-exported: the build budget (home: options, so the command line's help reads it without the engine)
from irscales.options import BUILD_BYTES_OK, BUILD_SECONDS_OK, DEFAULT_MAX_REL_ERROR, DEFAULT_TIES, UNQ
from irscales._distinct import distinct

__all__ = ["Route", "OverBudget", "choose_route"]

#: Runs assumed when the caller does not say how many runs it will rank (a TREC track: 129 × 50 runs).
TYPICAL_RUNS = 10_000
#: Routes each ``method`` may take.
METHODS = {"auto": ("closed", "count", "cached", "build", "bounded"), "count": ("count",),
           "engine": ("cached", "build"), "closed": ("closed",), "scale": ("closed", "cached", "build"),
           "bounded": ("bounded",), "exact": ("closed", "count", "cached", "build")}
_ORDER = {"count": 0, "closed": 1, "cached": 2, "build": 3, "bounded": 4}  # ties of estimates: the cheaper kind first
#: An exact route estimated above this many seconds gives way to a bounded route where one is offered
#: (issue 42: "never an enumeration that cannot finish"); below it the exact route is taken, however slower;
#: with consent to long computations (``build=True``) the exact route is always taken.
EXACT_SECONDS_PROHIBITIVE = 300.0


def within_budget(cost: BuildCost) -> bool:
    """Whether a build may start without consent (already cached, closed form, or cheap)."""
    return not cost.runs or (cost.seconds <= BUILD_SECONDS_OK and cost.bytes <= BUILD_BYTES_OK)


class OverBudget(ValueError):
    """A scale build estimated above the budget, refused without consent. ``cost`` is the estimate,
    ``counted_ties`` the tie strategies whose φ is counted at this N without a scale, ``within_N`` the
    largest run length whose build fits the budget (None: none)."""

    def __init__(self, cost: BuildCost, counted_ties: tuple[str, ...], within_N: int | None):
        self.cost, self.counted_ties, self.within_N = cost, counted_ties, within_N
        super().__init__(self.message())

    def message(self, cli: bool = False, counted: bool = True) -> str:
        """The refusal, worded for the API or (``cli``) for the command line (see :meth:`cheaper`)."""
        return (f"building the scale of {self.cost} is over the budget ({human_seconds(BUILD_SECONDS_OK)}, "
                f"{human_bytes(BUILD_BYTES_OK)}); " + "".join(f"{x}; " for x in self.cheaper(cli, counted))
                + ("pass --build-scales to build it" if cli else "pass build=True to build it (with a progress bar)"))

    def cheaper(self, cli: bool = False, counted: bool = True) -> list[str]:
        """The cheaper options, worded for the API or (``cli``) for the command line; ``counted=False``
        leaves out the counted tie strategies (a caller that needs the stored scale itself)."""
        out = []
        if self.counted_ties and counted:
            t = self.counted_ties
            if cli:
                out.append(f"--ties {' / '.join(t)} is counted at this depth without a scale")
            else:
                out.append(f"φ with ties={' / '.join(map(repr, t))} is counted at N={self.cost.N} without a scale "
                           f"(ranked_runs(measure, runs, ties={t[0]!r}))")
        if self.within_N:
            out.append(f"--depth {self.within_N} or less builds within the budget" if cli
                       else f"N ≤ {self.within_N} builds within the budget")
        return out


@dataclass(eq=False, kw_only=True)
class Route:
    """A chosen route: its kind (``closed``, ``count``, ``cached``, ``build``), estimated seconds and
    bytes (stored for a build, tables for a count), the engine's estimate (``cost``, for the stored
    routes) and why it was taken; whether it is ``exact`` (else φ is bracketed within ``max_rel_error``), and
    ``basis``, what its exactness rests on, in words, with its ``grounds``: ``proof``, ``enumeration`` (checked
    over all runs), ``conditional`` (on a conjecture, stated in ``basis``; ``proven`` is then False).
    :meth:`scale` and :meth:`phi_runs` carry it out (a built scale is kept, so several tie strategies share one
    build); :meth:`K` is the size of φ's range. This class is a stored scale's route (``stored``); the counted one
    is :class:`CountedRoute` (:mod:`irscales.enumeration.providers` says how to add a route)."""

    measure: M.Measure
    N: int
    c: int
    kind: str
    seconds: float
    bytes: int
    cache: object = True
    cost: BuildCost | None = None
    reason: str = ""
    exact: bool = True
    max_rel_error: float = 0.0
    basis: str = ""
    proven: bool = True
    grounds: str = "proof"
    _engine: tuple | None = field(default=None, repr=False)
    stored = True  # the route gives a stored Scale (values, counts, quantiles), not only φ

    def __str__(self) -> str:
        what = {"closed": "closed-form scale", "count": "φ counted, nothing stored", "cached": "cached scale",
                "build": f"scale build ({self.cost})" if self.cost else "scale build",
                "bounded": f"φ bracketed within {self.max_rel_error:g} relative"}.get(self.kind, self.kind)
        return (f"{self.measure.key} at N={self.N}: {what}, about {human_seconds(self.seconds)}"
                + (f" ({self.reason})" if self.reason else ""))

    def K(self, ties: str = DEFAULT_TIES) -> int:
        """The size of φ's range with tie strategy ``ties``: the distinct values of the measure over all
        (c+1)^N runs for ``unq``, the number of runs for ``min``/``max``/``mid``."""
        if ties != UNQ:
            return (self.c + 1) ** self.N
        return int(self.scale(progress=False).n_distinct)

    def scale(self, rb: float | None = None, ideal=None, memory_mb: int = 1024, workers: int | None = None,
              client=None, progress: bool | None = None, verify: str = "full") -> Scale | CountedScale:
        """The scale this route gives (see :func:`irscales.enumeration.scale` for the arguments)."""
        m, N, c = self.measure, self.N, self.c
        num = numerator(m)
        norm = normaliser(m, N, rb, ideal)
        if m.divides_by == "rb/N":
            norm = (float(rb) if rb is not None else float(N)) / N
        ker = kernel(num, N, c)
        common = dict(measure=m, N=N, c=c, mode=ker.mode, rb=rb, ideal=ideal, norm=norm, denominator=ker.denominator)
        if self.kind == "closed":
            chunks, key_kind = closed_form(num, N)
            common["mode"] = "int"  # closed forms have exact integer keys (counts, ranks or run ids)
            return Scale(chunks=chunks, key_kind=key_kind, method="closed", **common)
        if self._engine is None:
            self._engine = run_engine(ker, self.cache, memory_mb, workers, client, progress, verify)
        chunks, directory = self._engine
        return Scale(chunks=chunks, method="engine", directory=directory, **common)

    def phi_runs(self, rel, ties: str = DEFAULT_TIES, progress: bool | None = None, workers: int | None = None,
                 **scale_kwargs) -> np.ndarray:
        """Exact φ of runs ``rel`` (..., N) with tie strategy ``ties``: int64 or Python ints, ``mid`` float64
        halves or Fractions (:mod:`irscales.enumeration.ties`), whichever route. ``scale_kwargs``: those of
        :meth:`scale` (``memory_mb``, ``client``, ``verify``; the cache folder is the route's). ``rel`` may
        hold fewer than N ranks: the others are not relevant (padding, allocated only where needed)."""
        return self.scale(progress=progress, workers=workers, **scale_kwargs).phi_runs(self._padded(rel), ties)

    def phi_runs_ties(self, rel, ties=TIES, progress: bool | None = None, workers: int | None = None,
                      **scale_kwargs) -> dict[str, np.ndarray]:
        """:meth:`phi_runs` for several tie strategies, tie → φ, from one count or one scale
        (:func:`irscales.enumeration.counting.phi_runs_ties`)."""
        s = self.scale(progress=progress, workers=workers, **scale_kwargs)
        rel = self._padded(rel)
        return {t: s.phi_runs(rel, t) for t in ties}

    def phi_bounds(self, rel, ties: str = DEFAULT_TIES, **kwargs) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) bounds of φ of runs ``rel``: φ itself twice on an exact route (a route that brackets
        φ overrides this with its bracket, within ``max_rel_error``)."""
        phi = self.phi_runs(rel, ties, **kwargs)
        return phi, phi

    def _padded(self, rel) -> np.ndarray:
        """Runs ``rel`` (…, L ≤ N) as (…, N): a stored scale ranks whole runs (N ≤ 40 here, so it is small)."""
        rel = np.asarray(rel)
        if rel.ndim == 0 or rel.shape[-1] >= self.N:
            return rel
        return padded(rel, self.N)


class CountedRoute(Route):
    """φ counted run by run, nothing stored (:mod:`irscales.enumeration.counting`): its scale is a
    :class:`~irscales.enumeration.counting.CountedScale` (sizes and exact φ only)."""

    stored = False

    def scale(self, rb: float | None = None, ideal=None, memory_mb: int = 1024, workers: int | None = None,
              client=None, progress: bool | None = None, verify: str = "full") -> CountedScale:
        return CountedScale(self.measure, self.N, rb=rb, c=self.c, reason=self.reason)

    def phi_runs(self, rel, ties: str = DEFAULT_TIES, progress: bool | None = None, workers: int | None = None,
                 **scale_kwargs) -> np.ndarray:
        return counting.phi_runs(self.measure, rel, ties, progress=progress, workers=workers, c=self.c, N=self.N)

    def phi_runs_ties(self, rel, ties=TIES, progress: bool | None = None, workers: int | None = None,
                      **scale_kwargs) -> dict[str, np.ndarray]:
        return counting.phi_runs_ties(self.measure, rel, ties, progress=progress, workers=workers, c=self.c,
                                      N=self.N)


def _read_seconds(directory: Path | None) -> float:
    """Reading a cached scale: its files are hashed once per process (≈ 1 GB/s)."""
    try:
        size = sum(p.stat().st_size for p in directory.iterdir()) if directory else 0
    except OSError:
        size = 0
    return 0.01 + size / 1e9


def _largest_within(m: M.Measure, N: int, c: int) -> int | None:
    """The largest n < N whose build from nothing fits the budget (estimates grow with n)."""
    for n in range(N - 1, 0, -1):
        seconds, stored = build_estimate(m, n, c)
        if seconds <= BUILD_SECONDS_OK and stored <= BUILD_BYTES_OK:
            return n
    return None


def _n_queries(runs, N: int, c: int) -> int:
    """How many runs the count will rank: an int as given, or the distinct rows of a runs array (..., N)
    (counting deduplicates them first), read as run ids where they fit 62 bits."""
    if runs is None:
        return TYPICAL_RUNS
    if isinstance(runs, (int, np.integer)):
        return max(1, int(runs))
    rel = np.asarray(runs)
    if rel.ndim == 0 or rel.shape[-1] != N:
        raise ValueError(f"runs must have shape (..., {N}), got {rel.shape}")
    flat = rel.reshape(-1, N)
    if (c + 1) ** N <= 2**62 and (c == 1 or (flat.size and flat.min() >= 0 and flat.max() <= c)):
        return max(1, len(distinct(run_ids(flat, c))))
    return max(1, len(flat))


def _ties_of(ties) -> tuple[str, ...]:
    wanted = TIES if ties is None else ((ties,) if isinstance(ties, str) else tuple(ties))
    for t in wanted:
        check_ties(t)
    return wanted


def _closed(m: M.Measure, c: int) -> bool:
    """Whether the scale of ``m`` over grades 0..c is a closed form (its numerator's declared form)."""
    return c == 1 and has_closed_form(numerator(m))


class ClosedFormProvider:
    """A closed-form scale (P, R, RR, RBP with p ≤ 1/2): nothing to compute, wherever the engine's scale
    object reaches (it needs the kernel's key layout)."""

    kind, exact = "closed", True

    def reach(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        if not _closed(m, c):
            return 0, f"no closed form for {m!r} (closed forms: P, R, RR, Succ, RBP p ≤ 1/2)"
        return max_enumerable_depth(m, c)

    def offer(self, req: Request) -> Route | None:
        m, N, c = req.measure, req.N, req.c
        if N > self.reach(m, c, None)[0]:
            return None
        chunks = form_of(m).closed_chunks(numerator(m), N)
        return Route(measure=m, N=N, c=c, kind="closed",
                     seconds=counting.count_cost(m, N, c, UNQ, req.n_runs)[0] + 7e-6 * chunks, bytes=0,
                     cache=req.cache, cost=BuildCost(measure=m, N=N, runs=0, seconds=0.0, bytes=0, directory=None,
                                                     cached=False),
                     basis="closed-form scale")


class _StoredScale:
    """The engine's scale of all (c+1)^N runs (cached or built); a closed form is not built but for
    ``method="engine"``."""

    exact = True

    def reach(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        return max_enumerable_depth(m, c)

    def _cost(self, req: Request) -> BuildCost | None:
        m, N, c = req.measure, req.N, req.c
        if N > self.reach(m, c, None)[0] or (_closed(m, c) and req.method != "engine"):
            return None
        return build_cost(m, N, c=c, cache=req.cache, closed_forms=False)

    def _route(self, req: Request, kind: str, seconds: float, stored: int, cost: BuildCost, reason: str = ""):
        return Route(measure=req.measure, N=req.N, c=req.c, kind=kind, seconds=seconds, bytes=stored, cache=req.cache,
                     cost=cost, reason=reason,
                     basis=f"enumerated: all {(req.c + 1) ** req.N:,} runs of length {req.N} over {req.c + 1} grades",
                     grounds="enumeration")


class CachedScaleProvider(_StoredScale):
    """A scale the engine built before, read from the cache folder."""

    kind = "cached"

    def offer(self, req: Request) -> Route | None:
        cost = self._cost(req)
        if cost is None or not cost.cached:
            return None
        return self._route(req, "cached", _read_seconds(cost.directory), 0, cost)


class ScaleBuildProvider(_StoredScale):
    """The engine's build: within the budget, or with consent (``build=True``); else :class:`OverBudget`."""

    kind = "build"

    def offer(self, req: Request) -> Route | None:
        cost = self._cost(req)
        if cost is None or cost.cached:
            return None
        if not (req.build or within_budget(cost)):
            raise OverBudget(cost, (), _largest_within(req.measure, req.N, req.c))
        return self._route(req, "build", cost.seconds, cost.bytes, cost,
                           "" if within_budget(cost) else "over the budget, build=True")


class CountingProvider:
    """φ counted run by run for every tie strategy asked, nothing stored (:mod:`irscales.enumeration.counting`)."""

    kind, exact = "count", True

    def reach(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        return counting.counting_depth(m, c, ties)

    def offer(self, req: Request) -> Route | None:
        m, N, c = req.measure, req.N, req.c
        if N > min(self.reach(m, c, t)[0] for t in req.ties):
            return None
        seconds, table = max(counting.count_cost(m, N, c, t, req.n_runs) for t in req.ties)
        grounds, basis = counting.count_basis(m, N, c)
        return CountedRoute(measure=m, N=N, c=c, kind="count", seconds=seconds, bytes=table, cache=req.cache,
                            basis=basis,
                            proven=grounds != "conditional", grounds=grounds)


for _provider in (ClosedFormProvider(), CountingProvider(), CachedScaleProvider(), ScaleBuildProvider()):
    register(_provider)


def choose_route(measure: M.Measure | str, N: int, *, c: int = 1, ties=None, runs: int | np.ndarray | None = None,
                 need: str = "phi", method: str = "auto", cache: bool | str | Path = True,
                 build: bool = False, max_rel_error: float = DEFAULT_MAX_REL_ERROR) -> Route:
    """The cheapest exact route for φ (``need="phi"``) or a scale (``need="scale"``) of ``measure`` over
    runs of length N with grades 0..c (module docstring): the best offer of the registered providers
    (:mod:`irscales.enumeration.providers`), exact routes first.

    ties    the tie strategies that will be asked for (a name, several, or None: all four)
    runs    the runs to rank (..., N), or how many distinct runs (for the counting estimate; None:
            :data:`TYPICAL_RUNS`)
    method  ``auto``, or only ``count``, ``engine`` (cached or built), ``closed``, ``scale`` (closed, cached
            or built), ``bounded`` (φ bracketed: :mod:`irscales.enumeration.bounded`), ``exact`` (every route
            but the bounded one)
    cache   as for :func:`irscales.enumeration.scale` (where a build is stored, and whether one exists)
    build   consent to a build above the budget
    max_rel_error  the relative error a bounded route is asked to reach (hi ≤ (1 + max_rel_error)·lo); an exact
            route is taken first unless estimated above :data:`EXACT_SECONDS_PROHIBITIVE` where a bounded one is
            offered (and ``build`` is not given)

    Raises :class:`OverBudget` when only a build over the budget remains, ``NotImplementedError`` when
    the measure has neither a kernel nor a counting rule, else ``ValueError`` with the reasons (how far
    the engine and the counting reach).
    """
    m = M.as_measure(measure)
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"N must be a positive integer, got {N!r}")
    N = int(N)
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    if need not in ("phi", "scale"):
        raise ValueError(f"need must be 'phi' or 'scale', got {need!r}")
    req = Request(measure=m, N=N, c=c, ties=_ties_of(ties), n_runs=_n_queries(runs, N, c), need=need, method=method,
                  cache=cache, build=build, max_rel_error=float(max_rel_error))
    found: list[Route] = []
    over: OverBudget | None = None
    for provider in PROVIDERS:
        if provider.kind not in METHODS[method]:
            continue
        try:
            route = provider.offer(req)
        except OverBudget as e:
            over = e
            continue
        if route is not None:
            found.append(route)
    if over is not None:  # every route taken instead says why the build was not
        for r in found:
            r.reason = r.reason or f"its build is over the budget: {over.cost}"

    pick = found
    if need == "scale":
        pick = [r for r in found if r.stored] or found
    slow = [r for r in pick if r.exact and r.seconds > EXACT_SECONDS_PROHIBITIVE]
    if slow and not build and any(not r.exact for r in pick):  # a bracket, not an exact route that takes too long
        pick = [r for r in pick if r not in slow]
        fastest = min(slow, key=lambda r: r.seconds)
        slower = f"the exact route ({fastest.kind}) would take about {human_seconds(fastest.seconds)}"
        for r in pick:
            r.reason = slower + (f"; {r.reason}" if r.reason else "")
    if pick:  # estimates are rough: a build (it leaves a cache behind) must be twice as fast to win
        return min(pick, key=lambda r: (not r.exact, r.seconds * (2 if r.kind == "build" else 1),
                                        _ORDER.get(r.kind, len(_ORDER))))
    if over is not None:
        counted = tuple(t for t in TIES if 1 <= N <= reach("count", m, c, t)[0])  # not all wanted, or count was found
        raise OverBudget(over.cost, counted, over.within_N)
    return _refuse(m, N, method, *reach("build", m, c), *min((reach("count", m, c, t) for t in req.ties),
                                                             key=lambda x: x[0]))
def _refuse(m: M.Measure, N: int, method: str, limit: int, why_engine: str, count_limit, count_why: str):
    """No route: say how far the engine and the counting reach (one message)."""
    if method == "count":
        raise ValueError(f"{m.key} is not counted at N={N}: {count_why}")
    if method == "closed" and N <= limit:
        raise ValueError(f"no closed form for {m!r} (closed forms: P, R, RR, Succ, RBP p ≤ 1/2)")
    if limit == 0:
        msg = why_engine
    else:
        msg = f"no scale of {m.key} at N={N} (at most N={limit}): {why_engine}"
    if method != "closed":
        if count_limit == math.inf:
            msg += "; without a scale φ is counted at any N (closed form)"
        elif count_limit:
            msg += f"; without a scale φ is counted up to N = {count_limit} ({count_why})"
    if limit == 0 and not count_limit:
        raise NotImplementedError(msg)
    raise ValueError(msg)
