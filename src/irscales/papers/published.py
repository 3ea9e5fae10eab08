"""Published values of the papers, and the published-vs-reproduced comparison.

Published numbers live only in ``data/published/<paper>.csv`` (never in computations). Columns:

``item``      a stable identifier, e.g. ``table1/k3/RBP(0.8)`` or ``s5.1/dcg_b02_distinct/N=10``
``location``  where to find it in the paper, e.g. ``Table 2, row T08_10, column RR``
``context``   the paper's words around it (quoted where they qualify the number: ``'NS2S around 45%'``)
``value``     exactly as printed (string: ``0.1234``, ``12,345``, ``1/2``, ``yes``)
``kind``      ``exhaustive`` | ``theory`` | ``example`` | ``trec`` (needs TREC data we do not have)
``note``      free text (a known typo, a convention)

How a printed number is read and when a reproduced value agrees with it is
:mod:`irscales.papers.printing` (one rule for the whole paper layer). Where that rule needs a word of the
paper the context does not quote next to the number, or where the paper leaves a convention open, a
hand label says so in ``data/published/readings.csv`` (:func:`load_readings`), with its reason:

``paper``    the paper key
``item``     an item id or a pattern of ids (``fnmatch``: ``table[23]/*/power``)
``reading``  a word of :data:`irscales.papers.printing.WORDS` (how the text qualifies the number);
             ``open``: the paper leaves a convention open (the reason names it; the comparison gives
             each reading's value); ``unknown``: the paper computed it with settings it does not give
             (a program's), so a value we cannot reproduce is neither an erratum nor a reading — unless
             the paper's own printed numbers rule out every setting (``contradicted`` of :func:`compare`);
             or ``figure ±r``: the text says the number was read off a figure that shows it to ± r (in
             the number's own units, percentage points for a percentage; the reason states the
             resolution assumed and why)
``reason``   why, in the paper's words

Which printed values share a printing (a column, a table, a passage) is ``data/published/printing_groups.csv``
(:func:`load_groups`: ``paper``, ``items`` an ``fnmatch`` pattern, ``group`` its description; rows with the
same description form one group): the evidence :func:`irscales.papers.printing.convention` reads to decide
whether the paper truncates there (never by default).

:func:`compare` gives every item a status:

``match``                   the value rounds to the printed one (equal, for text and fractions)
``agrees within printing``  truncated instead of rounded where its group's other values show it
                            (:func:`printing_groups`), within a word's tolerance, a range end that
                            holds as stated, or read off a figure within what the figure shows (the
                            note says which and why): no erratum
``depends on reading``      right if the paper truncated, and nothing in its group shows whether it
                            truncated or rounded (the note gives both printings); or labelled ``open``,
                            the reading we compute does not agree, and another reading the paper allows
                            does (the note gives each reading's value): no erratum
``unresolved``              labelled ``unknown``: the printed value is not reproduced and the paper's settings
                            are not known, so it is neither an erratum nor a reading (the note gives the
                            values tried)
``differs``                 the printed value is wrong at its own precision under every reasonable reading
                            (labelled ``open``: under every reading the note gives; labelled ``unknown``:
                            the paper's own printed numbers rule out every setting, the note says how)
``not reproduced``          no value
"""

from __future__ import annotations

import csv
import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from irscales._atomic import write_atomic
from irscales._formatting import as_text
from irscales.papers import printing
from irscales.paths import figures_dir, published_dir
from irscales.stored import stored_literal

__all__ = ["COLUMNS", "KINDS", "ROUTES", "PRINTED_NOTE", "READING_COLUMNS", "GROUP_COLUMNS", "STATUSES",
           "AGREES_WITHIN_PRINTING", "DEPENDS_ON_READING", "UNRESOLVED", "PublishedFileError", "load", "load_readings",
           "reading_labels", "load_groups", "printing_groups", "Comparison", "comparison_text", "compare"]

COLUMNS = ["item", "location", "context", "value", "kind", "note"]
KINDS = {"exhaustive", "theory", "example", "trec"}
READING_COLUMNS = ["paper", "item", "reading", "reason"]
GROUP_COLUMNS = ["paper", "items", "group"]
#: The hand labels of readings.csv that are no word: a convention left open, settings not given.
_LABELS = ("open", "unknown")
#: The hand label of a number read off a figure: ``figure ±r`` (r as the number is printed: ``±10%``).
_FIGURE = re.compile(r"figure ±(?P<r>\S+)")
#: The two statuses of a disagreement that is no erratum.
AGREES_WITHIN_PRINTING = "agrees within printing"
DEPENDS_ON_READING = "depends on reading"
#: Not reproduced, with the paper's settings unknown: neither an erratum nor a reading.
UNRESOLVED = "unresolved"
#: Every status a comparison row can have.
STATUSES = ("match", AGREES_WITHIN_PRINTING, DEPENDS_ON_READING, UNRESOLVED, "differs", "not reproduced")


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


def load_readings(path: Path | None = None) -> pd.DataFrame:
    """Read ``data/published/readings.csv`` (columns :data:`READING_COLUMNS`) with checks: a known
    reading (a word of :data:`irscales.papers.printing.WORDS`, ``open``, ``unknown`` or ``figure ±r``), a
    reason for every label."""
    path = Path(path) if path else published_dir() / "readings.csv"
    if not path.exists():
        return pd.DataFrame(columns=READING_COLUMNS)
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames != READING_COLUMNS:
            raise PublishedFileError(f"{path}:1: expected columns {READING_COLUMNS}, found {reader.fieldnames}")
        rows = []
        for lineno, row in enumerate(reader, start=2):
            if row["reading"] not in _LABELS and row["reading"] not in printing.WORDS and \
                    _figure_resolution(row["reading"]) is None:
                raise PublishedFileError(f"{path}:{lineno}: reading must be one of {list(_LABELS)}, "
                                         f"'figure ±r' (r a number as printed, e.g. 'figure ±10%') or "
                                         f"{sorted(printing.WORDS)}, got {row['reading']!r}")
            if not row["reason"].strip():
                raise PublishedFileError(f"{path}:{lineno}: a hand label needs its reason ({row['item']!r})")
            rows.append(row)
    return pd.DataFrame(rows, columns=READING_COLUMNS)


def _figure_resolution(reading: str):
    """The resolution r of a ``figure ±r`` label (exact, in the printed number's units), else ``None``."""
    m = _FIGURE.fullmatch(str(reading).strip())
    p = printing.read(m["r"]) if m else None
    return None if p is None or p.value < 0 else p.value


def reading_labels(paper: str, items, readings: pd.DataFrame | None = None) -> dict[str, tuple[str, str]]:
    """item -> (reading, reason) for the ``items`` of ``paper`` that a row of ``readings`` (default:
    :func:`load_readings`) names or matches (``fnmatch``)."""
    readings = load_readings() if readings is None else readings
    out: dict[str, tuple[str, str]] = {}
    for r in readings[readings["paper"] == paper].itertuples(index=False):
        out.update({i: (r.reading, r.reason) for i in items if fnmatch.fnmatchcase(i, r.item)})
    return out


def load_groups(path: Path | None = None) -> pd.DataFrame:
    """Read ``data/published/printing_groups.csv`` (columns :data:`GROUP_COLUMNS`) with checks."""
    path = Path(path) if path else published_dir() / "printing_groups.csv"
    if not path.exists():
        return pd.DataFrame(columns=GROUP_COLUMNS)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(frame.columns) != GROUP_COLUMNS:
        raise PublishedFileError(f"{path}:1: expected columns {GROUP_COLUMNS}, found {list(frame.columns)}")
    empty = frame[(frame["items"].str.strip() == "") | (frame["group"].str.strip() == "")]
    if len(empty):
        raise PublishedFileError(f"{path}: a group needs its items and its description (row {empty.index[0] + 2})")
    return frame


def printing_groups(paper: str, items, groups: pd.DataFrame | None = None) -> dict[str, str]:
    """item -> the description of its printing group (:func:`load_groups`; default the repository's)
    for the ``items`` of ``paper`` a group names or matches (``fnmatch``)."""
    groups = load_groups() if groups is None else groups
    out: dict[str, str] = {}
    for r in groups[groups["paper"] == paper].itertuples(index=False):
        out.update({i: r.group for i in items if fnmatch.fnmatchcase(i, r.items)})
    return out


#: How a reproduced value was obtained (the ``route`` column of a comparison file):
#: ``exhaustive`` exact computation over all runs / SERP pairs or the formal theory (no data);
#: ``printed`` recomputed from numbers the paper itself prints; ``real`` computed on real runs
#: (TREC files, a public collection, or published per-topic scores such as the Fer17 authors' Grid of
#: Points); ``simulated`` computed on simulated data.
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
        write_atomic(path, comparison_text(self.frame))
        return path


def comparison_text(frame: pd.DataFrame) -> str:
    """A comparison frame (:attr:`Comparison.frame`, or rows of it) as its file holds it: each computed float
    of ``reproduced`` to :data:`irscales.stored.SIGNIFICANT_DIGITS` significant digits (issue 52: the same
    bytes on every machine), the printed ``published`` text as printed; ``match`` and ``status`` were decided on
    every digit."""
    return frame.assign(reproduced=frame["reproduced"].map(stored_literal)).to_csv(index=False)


def compare(
    paper: str,
    reproduced: dict[str, object],
    notes: dict[str, str] | None = None,
    spreads: dict[str, object] | None = None,
    published: pd.DataFrame | None = None,
    route: str | dict[str, str] | None = None,
    readings: dict[str, dict[str, object]] | None = None,
    labels: pd.DataFrame | None = None,
    below: dict[str, object] | None = None,
    groups: pd.DataFrame | None = None,
    contradicted: dict[str, str] | None = None,
) -> Comparison:
    """Put every published item of ``paper`` beside its reproduced value, with a status (module
    docstring) decided by :func:`irscales.papers.printing.agreement`.

    ``spreads``: item -> how far the exact value may be from the reproduced one because it was
    computed from numbers printed rounded (default 0). ``route`` says how each value was obtained,
    one of :data:`ROUTES` (one route for all items, or one per item); the report turns it into the
    item's status. ``readings``: item -> {reading: value} when the paper can be read in several ways;
    the first reading is the one reproduced (its value is the item's unless ``reproduced`` gives it),
    and the note lists every reading's value and whether it agrees (not on simulated data, where the
    note is the caller's: a simulated value says nothing about the paper's printing). ``labels``: the hand labels
    (:func:`load_readings`; default: the repository's when ``published`` is the repository's file, else none).
    ``below``: item -> a strict upper bound of its exact value (a power is below 1 even where it is 1
    in double precision). ``groups``: the printing groups (:func:`load_groups`; default as ``labels``):
    an item truncates only where the other values of its group show it, and one that only truncation
    reproduces depends on reading where they show neither convention
    (:func:`irscales.papers.printing.convention`). ``contradicted``: item -> why the paper's own printed
    numbers rule out every setting it leaves unknown (the evidence, in words): such an item differs even
    where a hand label calls its settings ``unknown``.

    Items without a reproduced value are kept (reproduced empty, ``match`` False, status
    ``not reproduced``) so nothing is silently dropped; reproduced items that are not in the
    published file raise, because they would be invisible to an auditor.
    """
    pub = published if published is not None else load(paper)
    notes, spreads, readings, contradicted = notes or {}, spreads or {}, readings or {}, contradicted or {}
    routes = route if isinstance(route, dict) else {}
    bad = sorted({r for r in [route, *routes.values()] if isinstance(r, str) and r not in ROUTES})
    if bad:
        raise ValueError(f"unknown route(s) {bad}; expected one of {ROUTES}")
    unknown = sorted((set(reproduced) | set(readings) | set(contradicted)) - set(pub["item"]))
    if unknown:
        raise KeyError(f"reproduced items not in data/published/{paper}.csv: {unknown[:5]}")
    reproduced = dict(reproduced)
    for item, alt in readings.items():
        first = next(iter(alt.values()))
        same = (str(reproduced.get(item)) == str(first) or
                printing.exact(reproduced.get(item)) == printing.exact(first) is not None)
        if item in reproduced and not same:
            raise ValueError(f"{item}: the reproduced value {reproduced[item]!r} is not its first reading {first!r}")
        reproduced.setdefault(item, first)
    if labels is None:
        labels = load_readings() if published is None else pd.DataFrame(columns=READING_COLUMNS)
    label = reading_labels(paper, pub["item"], labels)
    if groups is None:
        groups = load_groups() if published is None else pd.DataFrame(columns=GROUP_COLUMNS)
    group_of = printing_groups(paper, pub["item"], groups)
    below = below or {}
    members: dict[str, dict[str, tuple]] = {}
    for r in pub.itertuples(index=False):  # a group's printed values, without those a word qualifies or read off a figure
        lab = label.get(r.item)
        if r.item in group_of and r.item in reproduced and _word(r, lab) is None and \
                (lab is None or _figure_resolution(lab[0]) is None):
            members.setdefault(group_of[r.item], {})[r.item] = (r.value, reproduced[r.item], spreads.get(r.item, 0),
                                                               below.get(r.item))
    rows = []
    for r in pub.itertuples(index=False):
        have = r.item in reproduced
        rep = reproduced.get(r.item)
        item_route = (routes.get(r.item, "") if isinstance(route, dict) else (route or "")) if have else ""
        g = group_of.get(r.item)
        conv = printing.convention(r.item, g, members.get(g, {})) if g is not None else None
        status, note = _status(r, rep, spreads.get(r.item, 0), label.get(r.item), readings.get(r.item),
                               notes.get(r.item, r.note), conv, below.get(r.item), contradicted.get(r.item)) if have \
            else ("not reproduced", notes.get(r.item, r.note))
        if item_route == "simulated":  # simulated data says nothing about the paper's printing: no reasons
            note = notes.get(r.item, r.note)
        rows.append({
            "item": r.item, "location": r.location, "kind": r.kind, "published": r.value,
            "reproduced": _fmt(rep) if have else "", "match": status == "match", "status": status,
            "note": note,
            "route": item_route,
        })
    return Comparison(paper, pd.DataFrame(rows))


def _word(row, label: tuple[str, str] | None) -> str | None:
    """The qualifier of a printed number: a hand label's word, else the word the context quotes (none for a
    number read off a figure: its resolution decides)."""
    if label is not None and _figure_resolution(label[0]) is not None:
        return None
    if label is not None and label[0] not in _LABELS:
        return label[0]
    return printing.qualifier(str(row.context), str(row.value))


def _status(row, value, spread, label: tuple[str, str] | None, readings: dict | None, note: str,
            conv: printing.Convention | None = None, below=None, contradicted: str | None = None) -> tuple[str, str]:
    """(status, note) of one reproduced item: the rule of :func:`printing.agreement` (with the
    convention its group shows, and the resolution of a figure it was read off), then the hand labels:
    ``open`` (a disagreement the paper's wording leaves open, when another reading gives the printed value)
    and ``unknown`` (settings not given), unless the paper's own numbers rule out every setting
    (``contradicted``: the evidence)."""
    word, end = _word(row, label), printing.range_end(row.item)
    figure = _figure_resolution(label[0]) if label is not None else None
    a = printing.agreement(row.value, value, spread=spread, word=word, end=end, convention=conv, below=below,
                           figure=figure)
    if label is not None and label[0] not in _LABELS:
        note = f"{note}; read as '{label[0]}': {label[1]}" if note else f"read as '{label[0]}': {label[1]}"
    listed, any_agrees = "", False
    if readings:
        parts = []
        for name, v in readings.items():
            b = printing.agreement(row.value, v, spread=spread, word=word, end=end, convention=conv, below=below,
                                   figure=figure)
            any_agrees |= b.reproduced or b.within_printing or b.undecided
            verdict = {"equal": "agrees", "rounded": "agrees", "differs": "differs",
                       printing.UNDECIDED: "agrees if truncated"}.get(b.kind, f"agrees, {b.kind}")
            parts.append(f"{name}: {as_text(v)} ({verdict})")
        listed = ("readings — " if label is None or label[0] != "unknown" else "values tried — ") + "; ".join(parts)
    if a.reproduced:
        return "match", "; ".join(x for x in (note, listed) if x)
    if a.within_printing:
        return AGREES_WITHIN_PRINTING, "; ".join(x for x in (f"within the paper's printing ({a.kind}): {a.why}", note,
                                                             listed) if x)
    if contradicted:
        return "differs", "; ".join(x for x in (f"inconsistent with the paper's own printed numbers: {contradicted}",
                                                a.why, listed, note) if x)
    if a.undecided:
        return DEPENDS_ON_READING, "; ".join(x for x in (f"depends on reading (truncated or rounded): {a.why}", listed,
                                                         note) if x)
    if label is not None and label[0] == "unknown":
        return UNRESOLVED, "; ".join(x for x in (f"unresolved: {label[1]}", a.why, listed, note) if x)
    if label is not None and label[0] == "open" and (any_agrees or not readings):
        return DEPENDS_ON_READING, "; ".join(x for x in (f"depends on reading: {label[1]}", listed, note) if x)
    if label is not None and label[0] == "open":
        return "differs", "; ".join(x for x in (f"no reading the paper allows gives it ({label[1]})", a.why, listed,
                                                note) if x)
    # the reason is the rule's unless the caller's note gives it; a truncation is always explained (its evidence)
    why = a.why if (word is not None or figure is not None or not note or "truncates to" in a.why) else ""
    return "differs", "; ".join(x for x in (why, note, listed) if x)


def _fmt(x) -> str:
    if isinstance(x, float):
        return repr(x)
    return str(x)
