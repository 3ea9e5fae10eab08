"""How the papers print numbers: the one reading of a printed number, and the one rule that says
whether a recomputed value agrees with it at the paper's printing.

Every comparison of the paper layer goes through here (:func:`irscales.papers.published.compare`, the
report, the notebooks' own checks).

**Reading** (:func:`read`). A printed number is its exact value (:class:`fractions.Fraction`, never a
float), the place of its last printed digit (``decimals``: ``'0.9498'`` 4, ``'12,345'`` 0,
``'1.69e-05'`` 7, ``'2.5E+03'`` −2; ``None`` for a fraction such as ``'1/2'``, which is exact), whether
it is a percentage (the number is read in percent: ``'45%'`` is 45), and its sign as printed (``+``,
``-`` or the typographic minus ``−``, which reads as ``-``). Commas are thousands separators only
(``'1,2'`` is no number). Text that is not a number (``'yes'``, ``'2^N m'``) reads as ``None`` and is
compared as text, case-insensitively.

**Agreement** (:func:`agreement`) of a recomputed value x with a printed number P (value v, last
printed place u = 10^−decimals). When x was computed from numbers the paper printed rounded, it is
only known to lie in [x − s, x + s], ``spread`` s (cut at ``below``, a strict upper bound the value is
known to stay under: a power is less than 1); every test asks whether that set meets the set of values
the printing allows. In this order:

1. *rounded* (or *equal* for text and exact fractions): x rounds to P, i.e. meets [v − u/2, v + u/2]
   — the item is reproduced;
2. *within the paper's printing* — not an erratum, the note says which kind:

   * *bound*: P is one end of a printed range (the item id ends in ``min`` or ``max``,
     :func:`range_end`) and the range holds as stated: the smallest value rounded down, the
     largest rounded up (x meets [v, v + u) for a lower end, (v − u, v] for an upper end);
   * *approximate*: the text qualifies P with a word (:data:`WORDS`, found by :func:`qualifier`
     in the paper's words the published file quotes) and x is within the word's tolerance,
     relative to P: "about", "around", "approximately", "≈", "∼" within a tenth; "roughly" within a
     quarter; "slightly/a little (bit) more/less than" on the stated side and within a quarter. The
     one-sided "≳" / "≲" allow the printing's own rounding on one side only: "≳ v" is x ≥ v − u and
     x no higher than v rounds (x ≤ v + u/2); "≲ v" mirrors it. The paper's own word comes before any
     convention of ours: a value on the wrong side of a word with a direction differs even where it
     rounds to P, and no printing convention widens a word's tolerance (a qualified number is judged
     by its word alone);
   * *truncated*: x truncates to P (toward zero: meets [v, v + u) for v > 0, (v − u, v] for v < 0)
     **and the paper truncates there**: a :class:`Convention` decided by :func:`convention` from the
     other values the same column, table or passage prints (the groups of
     ``data/published/printing_groups.csv``) says so;
   * *figure*: the paper says it read P off a figure, and x is within what the figure can show
     (``figure`` r: P ± r, the resolution the comparison states with its reason — a difference of two
     axis labels printed to one decimal is within 0.1 of the exact difference). A value read off a
     figure is judged by that resolution alone (no word, no truncation widens it);
3. *undecided* — right if the paper truncated, and nothing shows which: x truncates to P but does not
   round to it, no word qualifies P, and the evidence of its group decides neither convention (no other
   value, or as many that only truncation reproduces as only rounding does; no group at all is no
   evidence either). Not an erratum: both readings' values are in the note, and the comparison calls it
   *depends on reading* (:mod:`irscales.papers.published`);
4. *differs*: none of these — the printed value is wrong at its own precision under every reasonable
   reading (a truncation counts as one unless the other values of its group show the paper rounds
   there; unless the paper leaves open how to read it, which :mod:`irscales.papers.published` decides
   from its readings).

**Evidence of a convention** (:func:`convention`): among the other members of an item's group printed in
the same format (fixed decimals or scientific notation: another format is another formatter), those
that only truncation reproduces (they truncate to their printed value but do not round to it) against
those that only rounding reproduces. The paper truncates there when the first outnumber the second,
rounds when the second outnumber the first, and is *undecided* otherwise (none of either, or a tie).
The note of every item that truncates names that evidence.

The tolerances are fixed here, not per item, so that the same word is read the same way everywhere.
:func:`yes_no` is the one way a yes/no verdict is written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Number
from typing import NamedTuple

from irscales.exact import to_fraction
from irscales._formatting import significant

__all__ = ["Printed", "read", "read_value", "exact", "yes_no", "WORDS", "ONE_SIDED", "WITHIN_PRINTING",
           "qualifier", "range_end", "CONVENTIONS", "UNDECIDED", "Convention", "reproducing", "convention", "Agreement", "agreement"]

_MINUS = "−"
_NUMBER = re.compile(r"(?P<sign>[+\-−]?)(?P<int>\d{1,3}(?:,\d{3})+|\d*)(?P<frac>\.\d*)?"
                     r"(?:[eE](?P<exp>[+\-−]?\d+))?(?P<pct>%?)")
_FRACTION = re.compile(r"(?P<sign>[+\-−]?)(?P<num>\d+)/(?P<den>\d+)(?P<pct>%?)")


@dataclass(frozen=True)
class Printed:
    """A number as a paper prints it (see the module docstring): ``value`` exact, ``decimals`` the
    place of the last printed digit (``None``: an exact fraction), ``percent``, ``sign`` as printed
    (``""``, ``"+"``, ``"-"`` or ``"−"``), ``exponent`` the printed exponent text (``"-05"``) or ``""``."""

    text: str
    value: Fraction
    decimals: int | None
    percent: bool = False
    sign: str = ""
    exponent: str = ""

    @property
    def unit(self) -> Fraction | None:
        """One unit in the last printed place (``None`` for an exact fraction)."""
        return None if self.decimals is None else Fraction(1, 10**self.decimals) if self.decimals >= 0 \
            else Fraction(10 ** -self.decimals)

    def rounding_cell(self) -> tuple[Fraction, Fraction]:
        """The closed interval of the values that round to this number."""
        if self.unit is None:
            return self.value, self.value
        return self.value - self.unit / 2, self.value + self.unit / 2

    def truncation_cell(self) -> tuple[Fraction, Fraction, bool, bool]:
        """(low, high, low included, high included): the values that truncate (toward zero) to it."""
        v, u = self.value, self.unit
        if v > 0 or (v == 0 and self.sign not in ("-", _MINUS)):
            return (v, v + u, True, False) if v > 0 else (-u, u, False, False)
        return v - u, v, False, True

    def render(self, x: Fraction, truncate: bool = False) -> str:
        """``x`` printed the way this number is printed (same decimals, exponent, %, plus sign,
        thousands separators), rounded half away from zero or truncated toward zero."""
        if self.decimals is None:
            return str(x)
        e = int(self.exponent.replace(_MINUS, "-")) if self.exponent else 0
        d = self.decimals + e  # decimals of the mantissa
        m = x / Fraction(10) ** e
        scaled = abs(m) * Fraction(10) ** d
        q = math.floor(scaled) if truncate else math.floor(scaled + Fraction(1, 2))
        body = f"{Decimal(q).scaleb(-d):f}"
        if "," in self.text:
            whole, _, frac = body.partition(".")
            body = f"{int(whole):,}" + (f".{frac}" if frac else "")
        sign = "-" if m < 0 and q else ("+" if self.sign == "+" else "")
        return f"{sign}{body}" + (f"e{self.exponent}" if self.exponent else "") + ("%" if self.percent else "")


def read(text) -> Printed | None:
    """A printed number (see the module docstring), or ``None`` when the text is not one."""
    t = str(text).strip()
    m = _FRACTION.fullmatch(t)
    if m:
        if int(m["den"]) == 0:
            return None
        v = Fraction(int(m["num"]), int(m["den"]))
        return Printed(t, -v if m["sign"] in ("-", _MINUS) else v, None, bool(m["pct"]), m["sign"])
    m = _NUMBER.fullmatch(t)
    if not m or not (m["int"] or (m["frac"] or "").strip(".")):
        return None
    mantissa = m["int"].replace(",", "") + (m["frac"] or "")
    exp = m["exp"] or ""
    v = Fraction(mantissa.rstrip(".") or "0") * Fraction(10) ** int(exp.replace(_MINUS, "-") or 0)
    decimals = len((m["frac"] or ".")[1:]) - int(exp.replace(_MINUS, "-") or 0)
    return Printed(t, -v if m["sign"] in ("-", _MINUS) else v, decimals, bool(m["pct"]), m["sign"], exp)


def exact(x) -> Fraction | None:
    """A recomputed value as an exact number: Fractions and ints as they are, floats by their shortest
    decimal (:func:`irscales.exact.to_fraction`), Decimals exactly, text by :func:`read`; ``None`` for
    NaN, ``None`` and text that is not a number."""
    if x is None or isinstance(x, bool):
        return None
    if isinstance(x, str):
        p = read(x)
        return None if p is None else p.value
    if isinstance(x, Decimal):
        return Fraction(x) if x.is_finite() else None
    if isinstance(x, Number):
        try:
            return to_fraction(x)
        except (TypeError, ValueError):
            return None
    return None


def read_value(text) -> Fraction | None:
    """The exact value of a printed number, ``None`` when the text is not a number."""
    p = read(text)
    return None if p is None else p.value


def yes_no(b) -> str:
    """A verdict as the published files write it: ``"yes"`` or ``"no"``."""
    return "yes" if bool(b) else "no"


#: Verbal approximations: word → (tolerance relative to the printed number, side the value must lie
#: on: ``both``, ``above`` or ``below`` it; for the one-sided ``at least`` / ``at most`` of :data:`ONE_SIDED`
#: the tolerance is the printing's own unit, not a share of the number). Longer phrases are matched first.
WORDS: dict[str, tuple[Fraction | None, str]] = {
    "about": (Fraction(1, 10), "both"), "around": (Fraction(1, 10), "both"),
    "approximately": (Fraction(1, 10), "both"), "≈": (Fraction(1, 10), "both"), "∼": (Fraction(1, 10), "both"),
    "~": (Fraction(1, 10), "both"), "≳": (None, "at least"), "≲": (None, "at most"),
    "roughly": (Fraction(1, 4), "both"),
    "slightly more than": (Fraction(1, 4), "above"), "a little bit more than": (Fraction(1, 4), "above"),
    "a little more than": (Fraction(1, 4), "above"),
    "slightly less than": (Fraction(1, 4), "below"), "slightly less": (Fraction(1, 4), "below"),
    "a little bit less than": (Fraction(1, 4), "below"), "a little less than": (Fraction(1, 4), "below"),
}
#: The sides of the one-sided words ("≳ v": at least v up to one unit of its printing, at most v's rounding).
ONE_SIDED = ("at least", "at most")
#: The kinds of agreement that are not a reproduction at the printed precision, yet no erratum.
WITHIN_PRINTING = ("bound", "truncated", "approximate", "figure")

_NUMBER_WORDS = {"half": Fraction(1, 2), "a quarter": Fraction(1, 4), "one": 1, "two": 2, "twice": 2, "three": 3,
                 "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def qualifier(context: str, printed: str) -> str | None:
    """The word of :data:`WORDS` the paper puts right before the printed number in ``context`` (the
    paper's words as the published file quotes them): ``"NS2S around 45%"`` → ``"around"``; the
    number may be spelled as a word (``"slightly less half"`` for 0.5) or be the second end of a
    range (``"about 2–3 times"`` → ``"about"`` for 3). ``None`` when no word qualifies it."""
    p = read(printed)
    spellings = [re.escape(str(printed).strip())]
    if p is not None:
        spellings += [re.escape(w) for w, v in _NUMBER_WORDS.items() if v == p.value]
    words = sorted(WORDS, key=len, reverse=True)
    before = r"(?:(?<=\s)|(?<=^)|(?<=[(≈∼~≳≲'‘–-]))"
    for sp in spellings:
        for m in re.finditer(before + sp + r"(?![\d.,]*\d)", context):
            head = context[:m.start()]
            head = re.sub(r"[\d.,]+\s*[–-]\s*$", "", head)  # the second end of a range "2–3"
            head = head.rstrip(" '‘(")
            for w in words:
                if head.lower().endswith(w.lower()) and (len(head) == len(w) or not head[-len(w) - 1].isalnum()
                                                         or not w[0].isalnum()):
                    return w
    return None


def range_end(item: str) -> str | None:
    """``"lower"`` / ``"upper"`` when an item is one end of a printed range or bound (its id ends in
    ``min`` / ``max``: ``s7.1.2/AP/loss_min``, ``s7.3.1/RBP_p03/NS2S_max``), else ``None``."""
    last = item.rsplit("/", 1)[-1].lower()
    if re.search(r"(^|_)min$", last):
        return "lower"
    if re.search(r"(^|_)max$", last):
        return "upper"
    return None


#: The printing conventions a group of printed values can show.
CONVENTIONS = ("rounded", "truncated")
#: What a group shows when its evidence decides neither convention (none of either, or a tie).
UNDECIDED = "undecided"


class Agreement(NamedTuple):
    """How a recomputed value relates to a printed one: ``kind`` is ``equal``, ``rounded``, one of
    :data:`WITHIN_PRINTING`, ``undecided`` (right if truncated, and nothing shows which), ``differs`` or
    ``missing`` (no value); ``why`` says it in words."""

    kind: str
    why: str

    @property
    def reproduced(self) -> bool:
        return self.kind in ("equal", "rounded")

    @property
    def within_printing(self) -> bool:
        return self.kind in WITHIN_PRINTING

    @property
    def undecided(self) -> bool:
        """Right if the paper truncated, and nothing it prints beside the value shows which convention it used."""
        return self.kind == UNDECIDED


Interval = tuple[Fraction, Fraction, bool, bool]  # (low, high, low included, high included)


def _meets(x: Interval, y: Interval) -> bool:
    """Do two intervals (low, high, low included, high included) share a point?"""
    lo, lo_in = (x[0], x[2]) if x[0] > y[0] else (y[0], y[2]) if y[0] > x[0] else (x[0], x[2] and y[2])
    hi, hi_in = (x[1], x[3]) if x[1] < y[1] else (y[1], y[3]) if y[1] < x[1] else (x[1], x[3] and y[3])
    return lo < hi or (lo == hi and lo_in and hi_in)


def _known(reproduced, spread, below) -> Interval | None:
    """The values the exact one may take: [x − s, x + s], cut below ``below`` (excluded) when given."""
    x = exact(reproduced)
    if x is None:
        return None
    s = abs(exact(spread) or Fraction(0))
    lo, hi, hi_in = x - s, x + s, True
    b = exact(below) if below is not None else None
    if b is not None and hi >= b:
        hi, hi_in = b, False
    return lo, hi, True, hi_in


def reproducing(printed, reproduced, spread=0, below=None) -> frozenset[str]:
    """The conventions of :data:`CONVENTIONS` under which ``reproduced`` (known as in :func:`agreement`)
    prints as ``printed``: ``rounded`` when it rounds to it, ``truncated`` when it truncates to it
    (empty for text, exact fractions and values neither gives)."""
    p, known = read(printed), _known(reproduced, spread, below)
    if p is None or known is None or p.unit is None:
        return frozenset()
    a, b = p.rounding_cell()
    out = {"rounded"} if _meets(known, (a, b, True, True)) else set()
    if _meets(known, p.truncation_cell()):
        out.add("truncated")
    return frozenset(out)


def _scientific(printed) -> bool:
    p = read(printed)
    return p is not None and bool(p.exponent)


def _ids(items: tuple[str, ...], most: int = 4) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


class Convention(NamedTuple):
    """How a group of printed values is printed, as the evidence of its other members says (:func:`convention`):
    ``name`` one of :data:`CONVENTIONS` or :data:`UNDECIDED`; ``group`` the group's description; ``truncated_only`` /
    ``rounded_only`` the other members (same format) only truncation / only rounding reproduces."""

    name: str
    group: str
    truncated_only: tuple[str, ...] = ()
    rounded_only: tuple[str, ...] = ()
    scientific: bool = False  # the evidence is the group's values in scientific notation

    def evidence(self) -> str:
        """The evidence in words, for a note."""
        t, r = self.truncated_only, self.rounded_only
        parts = [f"{len(t)} other value{'s' if len(t) != 1 else ''} only truncation reproduces"
                 + (f" ({_ids(t)})" if t else ""),
                 f"{len(r)} only rounding reproduces" + (f" ({_ids(r)})" if r else "")]
        among = ", in scientific notation," if self.scientific else ""
        return f"{self.group} prints{among} " + " and ".join(parts)


def convention(item: str, group: str, members: dict[str, tuple]) -> Convention:
    """The convention the paper prints ``item`` with, from the evidence of the other ``members`` of its
    group (item -> (printed, reproduced, spread, below); members without a value are skipped): those
    printed in the item's format that only truncation reproduces against those only rounding
    reproduces: truncation when the first outnumber the second, rounding when the second outnumber the
    first, :data:`UNDECIDED` otherwise (module docstring)."""
    own = members.get(item)
    sci = _scientific(own[0]) if own is not None else False
    t_only, r_only = [], []
    for other, (printed, value, spread, below) in members.items():
        if other == item or value is None or _scientific(printed) != sci:
            continue
        conv = reproducing(printed, value, spread, below)
        if conv == {"truncated"}:
            t_only.append(other)
        elif conv == {"rounded"}:
            r_only.append(other)
    name = "truncated" if len(t_only) > len(r_only) else "rounded" if len(r_only) > len(t_only) else UNDECIDED
    return Convention(name, group, tuple(t_only), tuple(r_only), sci)


def _show(x: Fraction, p: Printed) -> str:
    """``x`` with two more digits than the printed number has, for the notes."""
    if p.decimals is None:
        return significant(x)
    if p.exponent:
        e = int(p.exponent.replace(_MINUS, "-"))
        return f"{float(x / Fraction(10) ** e):.{p.decimals + e + 2}f}e{p.exponent}"
    d = max(p.decimals, 0) + 2
    if (x * 10 ** (d + 2)).denominator == 1:  # a short exact decimal (15.625) is shown exactly, not rounded
        return f"{Decimal(x.numerator) / Decimal(x.denominator):f}".rstrip("0").rstrip(".") if x % 1 else str(x)
    return f"{float(x):.{d}f}"


def agreement(printed, reproduced, *, spread=0, word: str | None = None, end: str | None = None,
              convention: Convention | None = None, below=None, figure=None) -> Agreement:
    """The rule of the module docstring: how ``reproduced`` (known to within ``spread``, and below
    ``below`` when given) agrees with the text ``printed``. ``word``: the paper's qualifier of the
    number (:func:`qualifier`); ``end``: ``"lower"``/``"upper"`` for one end of a printed range
    (:func:`range_end`); ``convention``: how the paper prints this number, from the evidence of its
    group (:func:`convention`; ``None``: no group, which is no evidence either way); ``figure``: the
    number was read off a figure that shows it to ± this much (in the printed number's units)."""
    if reproduced is None or (isinstance(reproduced, float) and math.isnan(reproduced)):
        return Agreement("missing", "no value")
    p = read(printed)
    known = _known(reproduced, spread, below)
    if p is None or known is None:
        same = str(printed).strip().lower() == str(reproduced).strip().lower()
        return Agreement("equal" if same else "differs", "" if same else f"printed {printed}, ours {reproduced}")
    x, s = exact(reproduced), abs(exact(spread) or Fraction(0))
    lo, hi = known[0], known[1]
    if word is not None and word not in WORDS:
        raise ValueError(f"unknown qualifier {word!r}; known: {sorted(WORDS)}")
    if word is not None and figure is not None:
        raise ValueError("a number is read either by its word or off a figure, not both")
    side = WORDS[word][1] if word is not None else "both"
    wrong_side = (side == "above" and hi <= p.value) or (side == "below" and lo >= p.value)
    a, b = p.rounding_cell()
    if _meets(known, (a, b, True, True)) and not wrong_side:
        return Agreement("equal" if p.unit is None else "rounded", "")
    ours = _show(x, p) + (f" ± {float(s):.2g}" if s else "")
    v, u = p.value, p.unit
    if u is not None:
        if end == "lower" and _meets(known, (v, v + u, True, False)):
            return Agreement("bound", f"a range that holds as stated: its smallest value {ours} rounded down is "
                                      f"the printed lower end {printed}")
        if end == "upper" and _meets(known, (v - u, v, False, True)):
            return Agreement("bound", f"a range that holds as stated: its largest value {ours} rounded up is "
                                      f"the printed upper end {printed}")
    if figure is not None:
        r = exact(figure)
        if r is None or r < 0:
            raise ValueError(f"a figure's resolution must be a number ≥ 0, got {figure!r}")
        pct = " points" if p.percent else ""  # a percentage's resolution is in percentage points
        shown = f"{float(r):g}{pct}"
        if _meets(known, (v - r, v + r, True, True)):
            return Agreement("figure", f"read off a figure, which shows it to ± {shown}: {ours} is "
                                       f"{float(abs(x - v)):.4g}{pct} from the printed {printed}")
        return Agreement("differs", f"{ours} does not agree with the printed {printed} (it rounds to {p.render(x)}), "
                                    f"nor is it within ± {shown} of it, what the figure it was read off can show")
    if word is not None:
        tol, _ = WORDS[word]
        w = u or Fraction(0)
        t = tol * abs(v) if tol is not None else Fraction(0)
        band = {"both": (v - t, v + t, True, True), "above": (v, v + t, False, True),
                "below": (v - t, v, True, False), "at least": (v - w, v + w / 2, True, True),
                "at most": (v - w / 2, v + w, True, True)}[side]
        if _meets(known, band):
            off = (x - v) / v if v else Fraction(0)
            if side in ONE_SIDED:
                how = (f"'{word}' {printed}, read as {side} {printed} up to one unit of its printing "
                       f"({'≥' if side == 'at least' else '≤'} {p.render(v - w if side == 'at least' else v + w)})")
            else:
                how = (f"'{word}' {printed}, read as within {float(tol):.0%} of it"
                       + ("" if side == "both" else f", {side} it"))
            return Agreement("approximate", f"{how}: {ours} is {float(abs(off)):.1%} "
                                            f"{'above' if off > 0 else 'below'}")
    truncates = u is not None and _meets(known, p.truncation_cell())
    if truncates and word is None and convention is not None and convention.name == "truncated":
        return Agreement("truncated", f"truncated, not rounded: {ours} truncates to {printed} "
                                      f"(rounding gives {p.render(x)}); the paper truncates here: "
                                      f"{convention.evidence()}")
    if truncates and word is None and (convention is None or convention.name == UNDECIDED):
        evidence = (convention.evidence() if convention is not None else
                    "no printed value beside it is recorded as its group (data/published/printing_groups.csv)")
        return Agreement(UNDECIDED, f"right if the paper truncated, and nothing shows which: truncated, {ours} "
                                    f"prints as {p.render(x, truncate=True)} (the printed value); rounded, as "
                                    f"{p.render(x)}; {evidence}")
    if word is not None:
        tol = WORDS[word][0]
        beyond = (f", and it is not {side} it as '{word}' says" if wrong_side else
                  f", nor is it {side} {printed} up to one unit of its printing as '{word}' says" if tol is None else
                  f", nor is it within the {float(tol):.0%} of '{word}'")
    elif truncates:  # the group's evidence shows the paper rounds here
        beyond = f"; it truncates to {printed}, but the paper rounds here: {convention.evidence()}"
    else:
        beyond = ""
    return Agreement("differs", f"{ours} does not agree with the printed {printed}"
                                + (f" (it rounds to {p.render(x)})" if u is not None else "") + beyond)
