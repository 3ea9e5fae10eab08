"""Meaningfulness of statements about measurements (FFF21 §2.2 and §2.4).

A statement about measured values is *meaningful* on a scale when its truth value is invariant
under every permissible transformation of that scale (FFF21 §2.4, after Adams et al.):

==========  ======================================  =============================
scale       permissible transformations φ' = f(φ)    FFF21
==========  ======================================  =============================
nominal     any one-to-one map (bijection)          §2.2.1, Examples 1 and 5
ordinal     any strictly increasing map             §2.2.2, Examples 2 and 6
interval    positive affine maps αφ + β, α > 0      §2.2.3, Examples 3 and 7
ratio       similarities αφ, α > 0                  §2.2.4, Examples 4 and 8
==========  ======================================  =============================

:func:`check` decides meaningfulness *empirically*: it evaluates the statement on the data and on
the data mapped by many random permissible transformations (drawn from an explicit
:class:`numpy.random.Generator`) plus any named ones the caller supplies (Celsius → Fahrenheit,
φ → φ² …). A ``not meaningful`` verdict is a proof (the transformation that flips the truth value
is returned as a witness); a ``meaningful`` verdict means no flip was found among the
transformations tried.

All arithmetic is exact: the data are converted to :class:`fractions.Fraction` (floats through
their shortest decimal form, so ``35.6`` is 356/10) and random transformations have rational
coefficients, so equalities such as "the difference is twice as high" are decided exactly.

A statement that is undefined on some transformed data (a geometric mean of negative numbers)
raises :class:`Undefined`; that transformation is skipped and counted, not taken as a flip.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable, Literal, Mapping, Sequence

import numpy as np

from irscales.exact import to_fraction

__all__ = ["SCALES", "Scale", "Transformation", "Verdict", "check", "mean", "median", "geometric_mean"]

Scale = Literal["nominal", "ordinal", "interval", "ratio"]
SCALES: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")

# Which transformation kinds each scale permits; the sets are nested (similarity ⊂ affine ⊂
# increasing ⊂ bijection), so a statement meaningful on a scale is meaningful on stronger ones.
_PERMITS = {
    "nominal": {"bijection", "increasing", "affine", "similarity"},
    "ordinal": {"increasing", "affine", "similarity"},
    "interval": {"affine", "similarity"},
    "ratio": {"similarity"},
}


class Undefined(ArithmeticError):
    """Raised by a statement whose quantities are undefined on the given (transformed) data."""


# ----------------------------------------------------------------------------- exact data


def to_exact(data, where: str = "data"):
    """Convert a number, a sequence of numbers or a mapping name → (number | sequence) to
    Fractions (:func:`irscales.exact.to_fraction`), keeping the structure (mappings become dicts,
    sequences lists)."""
    if isinstance(data, Mapping):
        return {k: to_exact(v, f"{where}[{k!r}]") for k, v in data.items()}
    if isinstance(data, np.ndarray):
        if data.ndim == 0:
            return to_fraction(data.item(), where)
        return [to_exact(v, f"{where}[{i}]") for i, v in enumerate(data.tolist())]
    if isinstance(data, (list, tuple)):
        return [to_exact(v, f"{where}[{i}]") for i, v in enumerate(data)]
    return to_fraction(data, where)


def _leaves(data) -> Iterable[Fraction]:
    if isinstance(data, dict):
        for v in data.values():
            yield from _leaves(v)
    elif isinstance(data, list):
        for v in data:
            yield from _leaves(v)
    else:
        yield data


def _map(data, f: Callable[[Fraction], Fraction]):
    if isinstance(data, dict):
        return {k: _map(v, f) for k, v in data.items()}
    if isinstance(data, list):
        return [_map(v, f) for v in data]
    return f(data)


# -------------------------------------------------------------------------- transformations


def _fmt(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class Transformation:
    """A transformation φ → φ' of measured values.

    ``kind`` is ``bijection`` or ``increasing`` (given by ``table``, a map defined on the values
    that occur in the data — any such injective / strictly increasing table extends to a
    bijection / strictly increasing map of the reals), or ``affine`` / ``similarity``
    (φ' = α φ + β, β = 0 for a similarity).
    """

    kind: str
    description: str
    table: tuple[tuple[Fraction, Fraction], ...] | None = None
    alpha: Fraction | None = None
    beta: Fraction = Fraction(0)

    def __call__(self, x) -> Fraction:
        x = to_fraction(x, "transformation argument")
        if self.table is not None:
            for k, v in self.table:
                if k == x:
                    return v
            known = ", ".join(_fmt(k) for k, _ in self.table)
            raise ValueError(f"{self.description}: not defined at {_fmt(x)} (defined on {known})")
        return self.alpha * x + self.beta

    def apply(self, data):
        """Map every number of ``data`` (exact structure, see :func:`to_exact`)."""
        return _map(to_exact(data), self)

    def permissible_for(self, scale: str) -> bool:
        return self.kind in _PERMITS[_check_scale(scale)]

    def __str__(self) -> str:
        return self.description

    def __repr__(self) -> str:
        return f"Transformation({self.kind}: {self.description})"


def _check_scale(scale: str) -> str:
    if scale not in _PERMITS:
        raise ValueError(f"unknown scale type {scale!r}; use one of {', '.join(SCALES)}")
    return scale


def _table_description(prefix: str, table) -> str:
    return prefix + " {" + ", ".join(f"{_fmt(k)}→{_fmt(v)}" for k, v in table) + "}"


def bijection(mapping: Mapping, description: str | None = None) -> Transformation:
    """A one-to-one map given by a table (nominal scales, FFF21 §2.2.1)."""
    table = tuple(sorted((to_fraction(k, "bijection key"), to_fraction(v, f"bijection[{k!r}]"))
                         for k, v in mapping.items()))
    images = [v for _, v in table]
    if len(set(images)) != len(images):
        raise ValueError(f"not one-to-one: two values are mapped to the same image in {dict(mapping)}")
    return Transformation("bijection", description or _table_description("bijection", table), table=table)


def increasing(f: Callable | Mapping, on: Iterable | None = None, description: str | None = None) -> Transformation:
    """A strictly increasing map (ordinal scales, FFF21 §2.2.2), from a table or from a function
    evaluated on the values ``on`` (normally the values occurring in the data)."""
    if isinstance(f, Mapping):
        pairs = [(to_fraction(k, "increasing key"), to_fraction(v, f"increasing[{k!r}]")) for k, v in f.items()]
    else:
        if on is None:
            raise ValueError("increasing(f, on=...): give the values on which to tabulate the function f")
        xs = sorted({to_fraction(x, "increasing(on=...)") for x in _leaves(to_exact(list(on)))})
        pairs = [(x, to_fraction(f(x), f"f({_fmt(x)})")) for x in xs]
    table = tuple(sorted(pairs))
    for (a, fa), (b, fb) in zip(table, table[1:]):
        if not fb > fa:
            raise ValueError(f"not strictly increasing: f({_fmt(a)}) = {_fmt(fa)} but f({_fmt(b)}) = {_fmt(fb)}")
    return Transformation("increasing", description or _table_description("increasing", table), table=table)


def affine(alpha, beta, description: str | None = None) -> Transformation:
    """φ' = α φ + β with α > 0 (interval scales, FFF21 §2.2.3)."""
    a, b = to_fraction(alpha, "alpha"), to_fraction(beta, "beta")
    if a <= 0:
        raise ValueError(f"a permissible affine map needs alpha > 0, got {alpha!r}")
    return Transformation("affine", description or f"affine x → {_fmt(a)}·x + {_fmt(b)}", alpha=a, beta=b)


def similarity(alpha, description: str | None = None) -> Transformation:
    """φ' = α φ with α > 0 (ratio scales, FFF21 §2.2.4)."""
    a = to_fraction(alpha, "alpha")
    if a <= 0:
        raise ValueError(f"a similarity needs alpha > 0, got {alpha!r}")
    return Transformation("similarity", description or f"similarity x → {_fmt(a)}·x", alpha=a)


def _rand_fraction(rng: np.random.Generator, lo: int, hi: int, maxden: int) -> Fraction:
    return Fraction(int(rng.integers(lo, hi + 1)), int(rng.integers(1, maxden + 1)))


def random_transformation(scale: str, values: Iterable, rng: np.random.Generator) -> Transformation:
    """A random transformation permissible for ``scale`` (the *weakest* kind the scale allows),
    tabulated on ``values`` for nominal/ordinal scales.

    nominal: the values are sent to distinct random integers in [-10k, 10k] (k values), in random
    order; ordinal: a random start plus cumulated random positive rational gaps spanning three
    orders of magnitude, so both concave- and convex-looking maps occur; interval: α ∈ (0, 100],
    β ∈ [-100, 100] rational; ratio: α ∈ (0, 100] rational.
    """
    _check_scale(scale)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("pass an explicit numpy.random.Generator (e.g. numpy.random.default_rng(0))")
    xs = sorted(set(to_exact(list(values))))
    k = max(len(xs), 1)
    if scale == "nominal":
        images = rng.choice(np.arange(-10 * k, 10 * k + 1), size=len(xs), replace=False)
        return bijection({x: int(v) for x, v in zip(xs, images)})
    if scale == "ordinal":
        start = _rand_fraction(rng, -100, 100, 4)
        scale_pow = rng.integers(0, 3, size=len(xs))  # gaps of 1/…, 10, 100: very uneven spacing
        gaps = [_rand_fraction(rng, 1, 20, 5) * 10 ** int(s) for s in scale_pow]
        out, cur = {}, start
        for x, g in zip(xs, gaps):
            cur = cur + g
            out[x] = cur
        return increasing(out)
    if scale == "interval":
        return affine(_rand_fraction(rng, 1, 100, 10), _rand_fraction(rng, -100, 100, 10))
    return similarity(_rand_fraction(rng, 1, 100, 10))


# -------------------------------------------------------------------------------- verdicts


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """Outcome of :func:`check`.

    ``meaningful`` is False exactly when some permissible transformation changed the truth value;
    ``flip`` is then the first such transformation and ``flipped_data`` the data it produced.
    """

    statement: str
    scale: str
    truth: bool
    meaningful: bool
    n_tried: int
    n_undefined: int
    flip: Transformation | None = None
    flipped_data: object = field(default=None, repr=False)

    @property
    def verdict(self) -> str:
        return "meaningful" if self.meaningful else "not meaningful"

    def as_row(self) -> dict:
        return {
            "statement": self.statement, "scale": self.scale, "true on the data": self.truth,
            "verdict": self.verdict, "transformations tried": self.n_tried,
            "undefined": self.n_undefined, "flipped by": str(self.flip) if self.flip else "",
        }


def _evaluate(statement: Callable, data, what: str) -> bool:
    out = statement(data)
    if isinstance(out, (bool, np.bool_)):
        return bool(out)
    raise TypeError(f"the statement must return True or False; it returned {out!r} on {what}")


def check(
    data,
    statement: Callable[[object], bool],
    scale: str,
    rng: np.random.Generator,
    n: int = 1000,
    candidates: Sequence[Transformation] = (),
    name: str | None = None,
) -> Verdict:
    """Is ``statement(data)`` meaningful on a ``scale``-type scale? (FFF21 §2.4)

    ``data`` is a number, a sequence, or a mapping name → number/sequence; every number in it is
    a measurement on the same scale and is mapped by the same transformation (so reference values
    such as "the code of Spain" go into the mapping too). ``statement`` receives the data with the
    same structure, numbers as Fractions, and returns a bool, or raises :class:`Undefined`.

    The named ``candidates`` (which must be permissible for ``scale``) are tried first, then ``n``
    random transformations from :func:`random_transformation` with ``rng``. Stops at the first flip.
    """
    _check_scale(scale)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    exact = to_exact(data)
    label = name or getattr(statement, "__name__", "statement")
    try:
        truth = _evaluate(statement, exact, "the original data")
    except Undefined as e:
        raise ValueError(f"statement {label!r} is undefined on the original data: {e}") from None
    for t in candidates:
        if not t.permissible_for(scale):
            raise ValueError(f"{t.description!r} ({t.kind}) is not a permissible transformation of a {scale} scale")
    values = list(_leaves(exact))
    tried = undefined = 0

    def transforms():
        yield from candidates
        for _ in range(n):
            yield random_transformation(scale, values, rng)

    for t in transforms():
        tried += 1
        mapped = _map(exact, t)
        try:
            value = _evaluate(statement, mapped, f"data transformed by {t.description}")
        except Undefined:
            undefined += 1
            continue
        if value != truth:
            return Verdict(statement=label, scale=scale, truth=truth, meaningful=False, n_tried=tried,
                           n_undefined=undefined, flip=t, flipped_data=mapped)
    return Verdict(statement=label, scale=scale, truth=truth, meaningful=True, n_tried=tried, n_undefined=undefined)


# ----------------------------------------------------------- exact summary statistics (§2.3)


def _values(xs, what: str) -> list[Fraction]:
    v = to_exact(list(xs), what)
    if not v:
        raise ValueError(f"{what}: needs at least one value")
    return v


def mean(xs) -> Fraction:
    """Arithmetic mean (1/n) Σ x_i, exact (interval scales and up, FFF21 §2.3)."""
    v = _values(xs, "mean")
    return sum(v, Fraction(0)) / len(v)


def median(xs) -> Fraction:
    """Median: the middle value, or the mean of the two middle values when n is even."""
    v = sorted(_values(xs, "median"))
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def quantile(xs, q) -> Fraction:
    """Lower (inverted-CDF) quantile: the smallest x_(k) with k/n ≥ q. Always an observed value,
    so it is defined on ordinal data (FFF21 §2.3: quantiles need an order)."""
    q = to_fraction(q, "q")
    if not 0 < q <= 1:
        raise ValueError(f"quantile level must be in (0, 1], got {q}")
    v = sorted(_values(xs, "quantile"))
    k = math.ceil(q * len(v))
    return v[k - 1]


def mode(xs) -> Fraction:
    """The most frequent value (nominal scales and up); raises :class:`Undefined` if several
    values are equally most frequent."""
    c = Counter(_values(xs, "mode")).most_common()
    if len(c) > 1 and c[0][1] == c[1][1]:
        raise Undefined(f"no unique mode: {_fmt(c[0][0])} and {_fmt(c[1][0])} both occur {c[0][1]} times")
    return c[0][0]


def geometric_mean(xs) -> float:
    """(Π x_i)^(1/n) as a float, for display; defined for positive values only (ratio scales,
    FFF21 §2.3). Use :func:`compare_geometric_means` to compare exactly."""
    v = _values(xs, "geometric_mean")
    if any(x <= 0 for x in v):
        raise Undefined("geometric mean of non-positive values")
    return math.exp(sum(math.log(x) for x in v) / len(v))


def compare_geometric_means(xs, ys) -> int:
    """Sign of GM(xs) − GM(ys), exactly: GM(x) > GM(y) ⇔ (Π x)^m > (Π y)^n for n = |x|, m = |y|."""
    x, y = _values(xs, "compare_geometric_means"), _values(ys, "compare_geometric_means")
    if any(v <= 0 for v in x + y):
        raise Undefined("geometric mean of non-positive values")
    px, py = math.prod(x), math.prod(y)
    a, b = px ** len(y), py ** len(x)
    return (a > b) - (a < b)
