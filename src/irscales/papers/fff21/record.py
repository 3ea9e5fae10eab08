"""How the FFF21 notebooks collect what they reproduce, and how small values are written.

Each section of the reproduction returns a :class:`Part`: its values for the items of
``data/published/fff21.csv``, the notes explaining mismatches, and what the notebook shows (a
table, printed lines). A :class:`Record` gathers the parts in order and hands the whole to
:func:`irscales.papers.published.compare`.

Values that are sets, vectors or yes/no verdicts are written as the published file writes them:
:func:`irscales.papers.printing.yes_no`, :func:`fmt_set`, :func:`fmt_num`, :func:`fmt_vec`,
:func:`same_for_all`; :func:`line` is a printed line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable

import pandas as pd

from irscales.papers import printing, published

__all__ = ["Part", "Record", "fmt_set", "fmt_num", "fmt_vec", "same_for_all", "line"]


def line(*values) -> str:
    """The line ``print(*values)`` writes (without its newline)."""
    return " ".join(str(v) for v in values)


def fmt_set(values: Iterable) -> str:
    """Exact values as a set: ``{0, 1/2, 1}``."""
    return "{" + ", ".join(str(Fraction(v)) for v in values) + "}"


def fmt_num(x) -> str:
    """An exact number: an integer as itself, anything else as its float."""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else str(float(x))


def fmt_vec(values: Iterable, decimals: int | None = None) -> str:
    """A vector ``[a b c]``: each entry by :func:`fmt_num`, or to ``decimals`` decimals."""
    if decimals is None:
        return "[" + " ".join(fmt_num(v) for v in values) + "]"
    return "[" + " ".join(f"{float(v):.{decimals}f}" for v in values) + "]"


def same_for_all(values: Iterable[str]) -> str:
    """The one value every case gives, or ``"differs: a | b"`` listing the different ones."""
    vals = set(values)
    return vals.pop() if len(vals) == 1 else "differs: " + " | ".join(sorted(vals))


@dataclass
class Part:
    """One section of the reproduction: ``items`` (published item → our value), ``notes`` (item →
    explanation of a mismatch), ``text`` (the lines the notebook prints), ``table`` (the object it
    displays), ``data`` (intermediate results later sections use) and ``readings`` (item → {reading:
    value}, ours first, where the paper's number can be read in several ways)."""

    items: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    text: str = ""
    table: Any = None
    data: dict[str, Any] = field(default_factory=dict)
    readings: dict[str, dict] = field(default_factory=dict)


@dataclass
class Record:
    """The items a notebook reproduces, in the order they were computed, with notes, spreads (how far
    the exact value may be from ours: inputs printed rounded) and the readings of items the paper
    leaves open. ``printed`` (item → printed value) and ``explain(claim, printed) -> note`` serve
    :meth:`claims`."""

    printed: pd.Series | None = None
    explain: Callable[[Any, str], str] | None = None
    reproduced: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    spreads: dict[str, Any] = field(default_factory=dict)
    readings: dict[str, dict] = field(default_factory=dict)

    def add(self, part: Part) -> Part:
        """Keep ``part``'s items, notes and readings; returns ``part`` (for display)."""
        self.reproduced.update(part.items)
        self.notes.update(part.notes)
        self.readings.update(part.readings)
        return part

    def keep(self, claims: Iterable) -> pd.DataFrame:
        """Keep claims with their own notes; returns them as a frame (columns item, ours, how)."""
        claims = list(claims)
        for c in claims:
            self.reproduced[c.item] = c.value
            self.notes[c.item] = c.note
        return pd.DataFrame([{"item": c.item, "ours": c.value, "how": c.note} for c in claims])

    def claims(self, claims: Iterable) -> pd.DataFrame:
        """Keep recomputed claims (:class:`irscales.papers.fff21.claims.Claim`) with their note
        ``explain(claim, printed)``, spread and readings; returns them beside the printed values
        (columns item, printed, ours, agrees: rounds to the printed value)."""
        if self.printed is None or self.explain is None:
            raise ValueError("Record.claims needs the printed values and an explain function (Record(printed, explain))")
        printed, explain = self.printed, self.explain
        rows = []
        for c in claims:
            self.reproduced[c.item] = c.value
            self.notes[c.item] = explain(c, printed[c.item])
            if c.spread is not None:
                self.spreads[c.item] = c.spread
            if c.readings:
                self.readings[c.item] = c.readings
            agrees = printing.agreement(printed[c.item], c.value, spread=c.spread or 0).reproduced
            rows.append({"item": c.item, "printed": printed[c.item], "ours": c.value, "agrees": agrees})
        return pd.DataFrame(rows)

    def compare(self, paper: str, route) -> published.Comparison:
        """:func:`irscales.papers.published.compare` of everything recorded (``route``: one route
        for all items, or item → route)."""
        return published.compare(paper, self.reproduced, notes=self.notes, spreads=self.spreads,
                                 readings=self.readings, route=route)
