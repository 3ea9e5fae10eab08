"""Published values of the papers, and the published-vs-reproduced comparison.

Published numbers live only in ``data/published/<paper>.csv`` (never in computations). Columns:

``item``      a stable identifier, e.g. ``table1/k3/RBP(0.8)`` or ``s5.1/dcg_b02_distinct/N=10``
``location``  where to find it in the paper, e.g. ``Table 2, row T08_10, column RR``
``context``   page or section text that helps an auditor find it (``p. 12, §5.1``)
``value``     exactly as printed (string: ``0.1234``, ``12,345``, ``1/2``, ``yes``)
``kind``      ``exhaustive`` | ``theory`` | ``example`` | ``trec`` (needs TREC data we do not have)
``note``      free text (a known typo, a convention)

A reproduced value *matches* a printed number when it agrees to the number of decimals printed
(``0.1234`` matches 0.123449 and 0.12335, but not 0.1236); integers and strings must be equal.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pandas as pd

from irscales.paths import figures_dir, published_dir

__all__ = ["COLUMNS", "KINDS", "ROUTES", "PRINTED_NOTE", "PublishedFileError", "load", "parse_number", "printed_decimals", "matches",
           "Comparison", "compare"]

COLUMNS = ["item", "location", "context", "value", "kind", "note"]
KINDS = {"exhaustive", "theory", "example", "trec"}


class PublishedFileError(ValueError):
    """A published-values file that does not follow the format of the module docstring."""


def load(paper: str, path: Path | None = None) -> pd.DataFrame:
    """Read ``data/published/<paper>.csv`` with checks (columns, kinds, unique items)."""
    path = Path(path) if path else published_dir() / f"{paper}.csv"
    if not path.exists():
        raise PublishedFileError(f"{path}: no published values for paper {paper!r}")
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames != COLUMNS:
            raise PublishedFileError(f"{path}:1: expected columns {COLUMNS}, found {reader.fieldnames}")
        rows, seen = [], set()
        for lineno, row in enumerate(reader, start=2):
            if row["kind"] not in KINDS:
                raise PublishedFileError(f"{path}:{lineno}: kind must be one of {sorted(KINDS)}, got {row['kind']!r}")
            if row["item"] in seen:
                raise PublishedFileError(f"{path}:{lineno}: duplicate item {row['item']!r}")
            if not row["value"].strip():
                raise PublishedFileError(f"{path}:{lineno}: empty value for {row['item']!r}")
            seen.add(row["item"])
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def parse_number(text: str) -> tuple[float | Fraction | None, int | None, bool]:
    """Read a printed number: (value, decimals printed, is a percentage). ``'12,345'`` → 12345.0,
    ``'−0.50%'`` → −0.5 with 2 decimals, ``'1/2'`` → Fraction(1, 2) (decimals None); text that is
    not a number gives value None."""
    t = text.strip().replace(",", "").replace("−", "-")
    pct = t.endswith("%")
    if pct:
        t = t[:-1]
    if "/" in t:
        try:
            return Fraction(t), None, pct
        except (ValueError, ZeroDivisionError):
            return None, None, pct
    try:
        val = float(t)
    except ValueError:
        return None, None, pct
    return val, printed_decimals(t), pct


def printed_decimals(text: str) -> int:
    """How many decimals a printed number carries (``'0.9498'`` 4, ``'-11.60%'`` 2, ``'1.69e-05'`` 7)."""
    t = str(text).strip().replace(",", "").rstrip("%")
    mantissa, _, exponent = t.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    if exponent:  # 1.69e-05 is printed to 2 + 5 = 7 decimals
        decimals -= int(exponent)
    return decimals


def matches(published: str, reproduced, tol: float | None = None) -> bool:
    """Does ``reproduced`` agree with the printed ``published`` value (see module docstring)?"""
    if reproduced is None or (isinstance(reproduced, float) and math.isnan(reproduced)):
        return False
    pub, decimals, _ = parse_number(published)
    if pub is None:
        return str(published).strip().lower() == str(reproduced).strip().lower()
    if isinstance(reproduced, str):
        rep, _, _ = parse_number(reproduced)
        if rep is None:
            return False
    else:
        rep = reproduced
    if isinstance(pub, Fraction):
        return Fraction(rep) == pub if not isinstance(rep, float) else abs(float(pub) - rep) < 1e-12
    if tol is not None:
        return abs(float(rep) - pub) <= tol
    # agree at the printed precision; half a unit in the last printed place (+ float slack)
    half_ulp = 0.5 * 10.0 ** (-decimals)
    return abs(float(rep) - pub) <= half_ulp * (1 + 1e-9)


#: How a reproduced value was obtained (the ``route`` column of a comparison file):
#: ``exhaustive`` exact computation over all runs / SERP pairs or the formal theory (no data);
#: ``printed`` recomputed from numbers the paper itself prints; ``real`` computed on real runs
#: (TREC files or a public collection); ``simulated`` computed on simulated data.
ROUTES = ("exhaustive", "printed", "real", "simulated")
#: Note prefix of every item recomputed from the paper's own printed numbers (route ``printed``);
#: the report reads it in comparison rows written before the ``route`` column.
PRINTED_NOTE = "recomputed from the paper's printed"


@dataclass
class Comparison:
    """Published beside reproduced for one paper (``.frame`` has one row per item)."""

    paper: str
    frame: pd.DataFrame

    @property
    def n_match(self) -> int:
        return int(self.frame["match"].sum())

    def mismatches(self) -> pd.DataFrame:
        return self.frame[~self.frame["match"]]

    def save(self, path: Path | None = None) -> Path:
        path = Path(path) if path else figures_dir(self.paper) / "published_vs_reproduced.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.frame.to_csv(path, index=False)
        return path


def compare(
    paper: str,
    reproduced: dict[str, object],
    notes: dict[str, str] | None = None,
    tolerances: dict[str, float] | None = None,
    published: pd.DataFrame | None = None,
    route: str | dict[str, str] | None = None,
) -> Comparison:
    """Put every published item of ``paper`` beside its reproduced value.

    ``route`` says how each reproduced value was obtained, one of :data:`ROUTES` (a single
    route for all items, or one per item); the report turns it into the item's status.

    Items without a reproduced value are kept (reproduced empty, ``match`` False, status
    ``not reproduced``) so nothing is silently dropped; reproduced items that are not in the
    published file raise, because they would be invisible to an auditor.
    """
    pub = published if published is not None else load(paper)
    notes = notes or {}
    tolerances = tolerances or {}
    routes = route if isinstance(route, dict) else {}
    bad = sorted({r for r in [route, *routes.values()] if isinstance(r, str) and r not in ROUTES})
    if bad:
        raise ValueError(f"unknown route(s) {bad}; expected one of {ROUTES}")
    unknown = sorted(set(reproduced) - set(pub["item"]))
    if unknown:
        raise KeyError(f"reproduced items not in data/published/{paper}.csv: {unknown[:5]}")
    rows = []
    for r in pub.itertuples(index=False):
        have = r.item in reproduced
        rep = reproduced.get(r.item)
        ok = have and matches(r.value, rep, tolerances.get(r.item))
        status = "not reproduced" if not have else ("match" if ok else "differs")
        rows.append({
            "item": r.item, "location": r.location, "kind": r.kind, "published": r.value,
            "reproduced": _fmt(rep) if have else "", "match": ok, "status": status,
            "note": notes.get(r.item, r.note),
            "route": (routes.get(r.item, "") if isinstance(route, dict) else (route or "")) if have else "",
        })
    return Comparison(paper, pd.DataFrame(rows))


def _fmt(x) -> str:
    if isinstance(x, float):
        return repr(x)
    return str(x)
