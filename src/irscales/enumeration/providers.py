"""The routes to φ as registered providers (issue 40): what a route reaches, what it offers the planner.

The planner (:func:`irscales.enumeration.routes.choose_route`) knows no route by name. For a :class:`Request`
(measure, run length N, grades 0..c, the tie strategies asked, how many runs, whether φ or a stored scale is
needed, the ``method``, the cache folder, consent to a build) it asks every provider in :data:`PROVIDERS` for
an offer and takes the best one: exact routes before routes that bracket φ, then the cheapest by estimated
time. The built-in providers (:mod:`irscales.enumeration.routes`) are

* ``closed``  a closed-form scale (:func:`irscales.enumeration._scale_class.closed_form`);
* ``count``   φ counted run by run, nothing stored (:mod:`irscales.enumeration.counting`);
* ``cached``  the engine's scale already in the cache folder;
* ``build``   the engine's enumeration of all (c+1)^N runs, refused over the budget without consent;

and, registered after them, ``bounded``: φ bracketed within a proven relative error
(:mod:`irscales.enumeration.bounded`).

A provider reads what it needs of a measure from the measure's declarations (:meth:`Measure.numerator`,
:meth:`Measure.integer_weights`, :attr:`DCG.integer_log_base`; :mod:`irscales.measures`), never from its class, and
from the form its numerator declares (:func:`irscales.enumeration.forms.form_of`), never from the form's name.

**Adding a route.** Write a class with

``kind``   a name (``"closed"``, ``"count"``, ``"cached"``, ``"build"``; a bounded route: ``"bounded"``), which
           :data:`irscales.enumeration.routes.METHODS` lists under each ``method`` that may take it;
``exact``  False for a route that brackets φ instead of computing it;
``reach(m, c, ties)``  the deepest run length N (``math.inf``: any) it serves for measure ``m`` over grades
           0..c with tie strategy ``ties`` (None: every one), and why not further (0 and why: not at all);
``offer(req)``  a :class:`~irscales.enumeration.routes.Route` for the :class:`Request` (its ``kind``, estimated
           ``seconds`` and ``bytes``, ``exact``, ``max_rel_error``, and ``basis``: what its exactness rests on),
           None when it cannot serve it, or raise :class:`~irscales.enumeration.routes.OverBudget` when it could
           but only past the build budget without consent.

and ``register`` an instance. A route computes φ by ``phi_runs``/``phi_runs_ties``, gives the size K of φ's
range by ``K(ties)``, and, when not exact, the bracket by ``phi_bounds(rel, ties)``; subclass ``Route`` and
set ``stored = False`` when it holds no :class:`~irscales.enumeration.Scale` (as the counted route does).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from irscales import measures as M

__all__ = ["Request", "Provider", "PROVIDERS", "register"]


@dataclass(frozen=True, kw_only=True)
class Request:
    """What the planner asks of every provider: φ (``need="phi"``) or a stored scale (``need="scale"``) of
    ``measure`` over runs of length ``N`` with grades 0..``c``, for the tie strategies ``ties`` and about
    ``n_runs`` distinct runs, by ``method`` (:data:`irscales.enumeration.routes.METHODS`), with the cache folder
    ``cache``, consent to a build over the budget (``build``) and the relative error a route that brackets φ is to
    reach (``max_rel_error``)."""

    measure: M.Measure
    N: int
    c: int
    ties: tuple[str, ...]
    n_runs: int
    need: str
    method: str
    cache: bool | str | Path
    build: bool
    max_rel_error: float


class Provider(Protocol):
    """A route to φ (module docstring)."""

    kind: str
    exact: bool

    def reach(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        """The deepest run length served (``math.inf``: any; 0: none) and why not further."""

    def offer(self, req: Request) -> "Route | None":  # irscales.enumeration.routes.Route (it imports this module)
        """The route for ``req``, or None; may raise :class:`~irscales.enumeration.routes.OverBudget`."""


#: The registered providers, in the order the planner asks them.
PROVIDERS: list[Provider] = []


def register(provider: Provider) -> None:
    """Add ``provider`` to the routes the planner considers (:data:`PROVIDERS`)."""
    PROVIDERS.append(provider)


def reach(kind: str, m: M.Measure, c: int = 1, ties: str | None = None) -> tuple[float, str]:
    """How far the providers of ``kind`` reach for ``m`` over grades 0..c with ``ties``: the deepest N and why
    not further ((0, "") when none of that kind is registered)."""
    return max((p.reach(m, c, ties) for p in PROVIDERS if p.kind == kind), key=lambda r: r[0], default=(0, ""))


def deepest(m: M.Measure, c: int = 1) -> float:
    """The deepest run length at which any provider serves φ of ``m`` over grades 0..c (0: none)."""
    return max((p.reach(m, c, None)[0] for p in PROVIDERS), default=0)
