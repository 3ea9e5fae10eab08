"""Cut-offs and names: :class:`Cut` (a measure on the top k ranks) and :func:`parse`, which reads a measure back
from its key (``RBP_p08``), its repr (``RBP(p=0.8)``), a trec_eval name (``map_cut_10``) or an ir_measures name
(``nDCG@10``) — the names every registered measure class declares (:data:`~irscales.measures.base.REGISTRY`,
:class:`~irscales.measures.base.Names`)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields

import numpy as np

from irscales.measures.base import NAMES, REGISTRY, Measure, check_cut
from irscales.measures.binary import AP, P, R, RBP, RR, Succ
from irscales.measures.graded import DCG, GR, NDCG

__all__ = ["Cut", "REGISTRY", "WHOLE_RUN", "parse", "parse_list", "split_top_level", "classic_measures",
           "CLASSIC_MEASURES", "measure_names"]


# ------------------------------------------------------------------------------------ cut-offs


@dataclass(frozen=True, repr=False)
class Cut(Measure):
    """``measure`` on the top ``k`` ranks only (trec_eval's ``map_cut_k``, ``ndcg_cut_k``, ``recall_k``;
    ir_measures' ``AP@k``, ``nDCG@k``). Topic quantities are not cut: AP@k divides by the full recall
    base, nDCG@k by the ideal run cut at k. Runs shorter than k count as padded with non-relevant
    documents (FFF21 §5.1). ``repr`` is ``AP()@10``, which :func:`parse` reads back.
    """

    measure: Measure
    k: int

    def __post_init__(self):
        if not isinstance(self.measure, Measure) or isinstance(self.measure, (Cut, P, Succ, GR)):
            what = self.measure.key if isinstance(self.measure, Measure) else repr(self.measure)
            hint = " (P@k and Succ@k carry their own cut-off)" if isinstance(self.measure, (P, Succ)) else ""
            raise ValueError(f"cannot cut {what} at a rank{hint}")
        check_cut(self.measure.key, self.k)

    # what callers ask of a measure is that of the cut one
    needs_rb = property(lambda self: self.measure.needs_rb)  # type: ignore[assignment]
    rational = property(lambda self: self.measure.rational)  # type: ignore[assignment]
    binary = property(lambda self: self.measure.binary)  # type: ignore[assignment]
    family = property(lambda self: self.measure.family)  # type: ignore[assignment]

    @property
    def gains(self) -> str:
        return getattr(self.measure, "gains", "binary")

    @property
    def reads_grades(self) -> bool:
        return self.measure.reads_grades

    @property
    def uncut(self) -> Measure:
        return self.measure

    def with_top_grade(self, max_grade: int) -> Measure:
        inner = self.measure.with_top_grade(max_grade)
        return self if inner is self.measure else Cut(inner, self.k)

    @property
    def key(self) -> str:
        return f"{self.measure.key}@{self.k}"

    def __repr__(self) -> str:
        return f"{self.measure!r}@{self.k}"

    def _top(self, rel: np.ndarray) -> np.ndarray:
        r = rel[..., : self.k]
        if r.shape[-1] < self.k:
            r = np.concatenate([r, np.zeros(r.shape[:-1] + (self.k - r.shape[-1],), r.dtype)], axis=-1)
        return r

    def _compute(self, rel, rb=None, ideal=None):
        return self.measure._compute(self._top(rel), rb=rb, ideal=ideal)

    def _exact_one(self, row, rb):
        top = tuple(row[: self.k]) + (0,) * max(0, self.k - len(row))
        return self.measure._exact_one(top, rb)


# ----------------------------------------------------------------------------------- registry


class _WholeRun(Mapping):
    """The registered whole-run names (:attr:`~irscales.measures.base.Names.whole_run`) → their measures, read live
    from the registry."""

    def _entries(self) -> dict[str, Measure]:
        return {name: e.cls(**kw) for e in NAMES.values() for name, kw in e.whole_run.items()}

    def __getitem__(self, name: str) -> Measure:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    def __repr__(self) -> str:
        return repr(self._entries())


#: trec_eval / ir_measures names that mean a measure over the *whole* run (trec_eval evaluates every
#: retrieved document): they equal our measure only when runs are not cut (``--depth`` at least the
#: longest run; for ndcg also at least the recall base, as its ideal run holds every relevant
#: document), which the command line checks. Declared by the measures (``whole_run``), read from the registry.
WHOLE_RUN: Mapping[str, Measure] = _WholeRun()
_CALL_RE = re.compile(r"^(\w+)\((.*)\)$", re.S)


def _named(s: str) -> Measure | None:
    """The measure a registered name means (simple, whole-run, key or cut name), or None."""
    for e in NAMES.values():
        if s in e.simple:
            return e.cls()
    for e in NAMES.values():
        if s in e.whole_run:
            return e.cls(**e.whole_run[s])
    for e in NAMES.values():
        for rx, make in e.keys:
            m = rx.match(s)
            if m:
                return e.cls(**make(m))
        for prefix, kw in e.cut_names.items():
            m = re.match(rf"^{re.escape(prefix)}_(\d+)$", s)
            if m:
                return Cut(e.cls(**kw), int(m[1]))
    return None


def _constructor(name: str) -> type | None:
    """The registered class whose constructor form is named ``name`` (its class name or a paper spelling)."""
    if name in REGISTRY:
        return REGISTRY[name]
    return next((e.cls for e in NAMES.values() if name in e.spellings), None)


def measure_names() -> list[str]:
    """One name per registered measure class, as the command line lists them: its simple names, else the name
    of its default (``RBP_p08``, ``DCG_b02``) when it reads back, else its constructor form (``SBTO(c=1)``)."""
    out = []
    for e in NAMES.values():
        if e.simple:
            out += e.simple
            continue
        try:
            m = e.cls()
        except TypeError:  # no default for a parameter: the constructor form names it
            out.append(f"{e.cls.__name__}(…)")
            continue
        out.append(m.key if _named(m.key) == m else repr(m))
    return out


def as_measure(x) -> Measure:
    """``x`` if it is a :class:`Measure`, the measure it names if it is a string (:func:`parse`); else TypeError."""
    m = parse(x) if isinstance(x, str) else x
    if not isinstance(m, Measure):
        raise TypeError(f"measure must be a Measure or a measure name, got {type(x).__name__}")
    return m


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside parentheses and quotes:
    ``"AP,NDCG(discount='log2p1', gains='graded')"`` → ``['AP', "NDCG(discount='log2p1', gains='graded')"]``."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ')' in {text!r}")
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if quote or depth:
        raise ValueError(f"unclosed {'quote' if quote else '('} in {text!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_list(text: str) -> list[Measure]:
    """Measures from a comma-separated list; commas inside ``NDCG(…, …)`` do not split."""
    names = [x for x in split_top_level(text) if x]
    if not names:
        raise ValueError("no measure given (e.g. AP,nDCG_b02,RR)")
    return [parse(x) for x in names]


def parse(text: str) -> Measure:
    """Read a measure from its paper key (``RBP_p08``, ``nDCG_b02``, ``P@10``), its repr
    (``RBP(p=0.8)``, ``DCG(base=10, discount='jk', gains='binary')``, ``AP()@10``), a trec_eval name
    (``map``, ``P_10``, ``map_cut_10``, ``ndcg_cut_10``, ``recall_10``, ``recip_rank``, ``Rprec``,
    ``success_5``) or an ir_measures name (``AP@10``, ``nDCG@10``, ``RR@10``, ``R@10``,
    ``RBP(rel=1, p=0.8)``). Names are exact synonyms only (see :data:`WHOLE_RUN` for those that
    assume an uncut run); invalid parameters raise ``ValueError`` saying what is allowed."""
    s = text.strip()
    split_top_level(s)  # unbalanced parentheses or quotes: say so
    named = _named(s)
    if named is not None:
        return named
    if "@" in s and not s.startswith("P@"):  # a cut-off: AP@10, nDCG@10, AP()@10
        inner, _, k = s.rpartition("@")
        if not k.isdigit():
            raise ValueError(f"cannot parse measure {text!r}: the cut-off after '@' must be an integer >= 1")
        return Cut(parse(inner), int(k))
    m = _CALL_RE.match(s)
    cls = _constructor(m.group(1)) if m else None
    if cls is not None:
        kwargs = {}
        names = {f.name for f in fields(cls)}
        for part in filter(None, split_top_level(m.group(2))):
            if "=" not in part:
                raise ValueError(f"cannot parse measure {text!r}: expected name=value, got {part!r}")
            k, v = (x.strip() for x in part.split("=", 1))
            if cls is RBP and k == "rel":  # ir_measures: rel=1 is the lenient binary mapping we use
                if _literal(v, text) != 1:
                    raise ValueError(f"cannot parse measure {text!r}: RBP here is binary with grade > 0 "
                                     "relevant, i.e. ir_measures' rel=1; graded RBP is gRBP(p=…, max_gain=…)")
                continue
            if k not in names:
                allowed = ", ".join(sorted(names)) or "none"
                raise ValueError(f"cannot parse measure {text!r}: {cls.__name__} has no parameter {k!r} "
                                 f"(parameters: {allowed})")
            if k in kwargs:  # the last one would silently win
                raise ValueError(f"cannot parse measure {text!r}: parameter {k!r} is given more than once")
            kwargs[k] = _literal(v, text)
        try:
            return cls(**kwargs)
        except TypeError as e:  # e.g. a value of the wrong kind reaching a formula
            raise ValueError(f"cannot parse measure {text!r}: {e}") from None
    known = ", ".join(["AP", "RR", "P@10", "nDCG_b02", "RBP_p08", "RBP(p=0.8)", "ERR(max_grade=3)",
                       "map", "map_cut_10", "ndcg_cut_10", "recip_rank", "nDCG@10", "AP@10"])
    raise ValueError(f"unknown measure {text!r}; examples of valid names: {known}")


def _literal(v: str, text: str):
    if v == "None":
        return None
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    try:
        return int(v)
    except ValueError:
        pass
    try:
        x = float(v)
    except ValueError:
        raise ValueError(f"cannot parse measure {text!r}: bad value {v!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"cannot parse measure {text!r}: bad value {v!r}")
    return x


def classic_measures() -> dict[str, Measure]:
    """The 11 classic binary measures whose scales FFF21 §6 studies — P, R, AP, RR, RBP with p = 0.3, 0.5 and 0.8,
    DCG and nDCG with log bases 2 and 10 — keyed by name (FFF21's names), in that order."""
    ms = [P(), R(), AP(), RR(), RBP(p=0.3), RBP(p=0.5), RBP(p=0.8), DCG(base=2), DCG(base=10),
          NDCG(base=2), NDCG(base=10)]
    return {m.key: m for m in ms}


CLASSIC_MEASURES: dict[str, Measure] = classic_measures()
