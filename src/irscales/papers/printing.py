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
only known to lie in [x − s, x + s], ``spread`` s; every test asks whether that interval meets the
set of values the printing allows. In this order:

1. *rounded* (or *equal* for text and exact fractions): x rounds to P, i.e. meets [v − u/2, v + u/2]
   — the item is reproduced;
2. *within the paper's printing* — not an erratum, the note says which kind:

   * *bound*: P is one end of a printed range (the item id ends in ``min`` or ``max``,
     :func:`range_end`) and the range holds as stated: the smallest value rounded down, the
     largest rounded up (x meets [v, v + u) for a lower end, (v − u, v] for an upper end);
   * *approximate*: the text qualifies P with a word (:data:`WORDS`, found by :func:`qualifier`
     in the paper's words the published file quotes) and x is within the word's tolerance,
     relative to P: "about", "around", "approximately", "≈", "∼", "≳", "≲" within a tenth;
     "roughly" within a quarter; "slightly/a little (bit) more/less than" on the stated side and
     within a quarter (the paper's own word comes before any convention of ours; a value on the
     wrong side of a word with a direction differs even where it rounds to P);
   * *truncated*: x truncates to P (toward zero: meets [v, v + u) for v > 0, (v − u, v] for v < 0);
3. *differs*: none of these — the printed value is wrong at its own precision (unless the paper
   leaves open how to read it, which :mod:`irscales.papers.published` decides from its readings).

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

__all__ = ["Printed", "read", "read_value", "exact", "show", "yes_no", "WORDS", "WITHIN_PRINTING", "qualifier",
           "range_end", "Agreement", "agreement"]

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


def show(x) -> str:
    """A recomputed value for a note: floats to 6 significant digits, anything else as it prints."""
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def read_value(text) -> Fraction | None:
    """The exact value of a printed number, ``None`` when the text is not a number."""
    p = read(text)
    return None if p is None else p.value


def yes_no(b) -> str:
    """A verdict as the published files write it: ``"yes"`` or ``"no"``."""
    return "yes" if bool(b) else "no"


#: Verbal approximations: word → (tolerance relative to the printed number, side the value must lie
#: on: ``both``, ``above`` or ``below`` it). Longer phrases are matched first.
WORDS: dict[str, tuple[Fraction, str]] = {
    "about": (Fraction(1, 10), "both"), "around": (Fraction(1, 10), "both"),
    "approximately": (Fraction(1, 10), "both"), "≈": (Fraction(1, 10), "both"), "∼": (Fraction(1, 10), "both"),
    "~": (Fraction(1, 10), "both"), "≳": (Fraction(1, 10), "both"), "≲": (Fraction(1, 10), "both"),
    "roughly": (Fraction(1, 4), "both"),
    "slightly more than": (Fraction(1, 4), "above"), "a little bit more than": (Fraction(1, 4), "above"),
    "a little more than": (Fraction(1, 4), "above"),
    "slightly less than": (Fraction(1, 4), "below"), "slightly less": (Fraction(1, 4), "below"),
    "a little bit less than": (Fraction(1, 4), "below"), "a little less than": (Fraction(1, 4), "below"),
}
#: The kinds of agreement that are not a reproduction at the printed precision, yet no erratum.
WITHIN_PRINTING = ("bound", "truncated", "approximate")

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


class Agreement(NamedTuple):
    """How a recomputed value relates to a printed one: ``kind`` is ``equal``, ``rounded``, one of
    :data:`WITHIN_PRINTING`, ``differs`` or ``missing`` (no value); ``why`` says it in words."""

    kind: str
    why: str

    @property
    def reproduced(self) -> bool:
        return self.kind in ("equal", "rounded")

    @property
    def within_printing(self) -> bool:
        return self.kind in WITHIN_PRINTING


def _meets(lo: Fraction, hi: Fraction, a: Fraction, b: Fraction, a_in: bool = True, b_in: bool = True) -> bool:
    """Does the closed interval [lo, hi] meet the interval from a to b (ends included as flagged)?"""
    return (hi > a or (hi == a and a_in)) and (lo < b or (lo == b and b_in))


def _show(x: Fraction, p: Printed) -> str:
    """``x`` with two more digits than the printed number has, for the notes."""
    if p.decimals is None:
        return f"{float(x):.6g}"
    if p.exponent:
        e = int(p.exponent.replace(_MINUS, "-"))
        return f"{float(x / Fraction(10) ** e):.{p.decimals + e + 2}f}e{p.exponent}"
    d = max(p.decimals, 0) + 2
    if (x * 10 ** (d + 2)).denominator == 1:  # a short exact decimal (15.625) is shown exactly, not rounded
        return f"{Decimal(x.numerator) / Decimal(x.denominator):f}".rstrip("0").rstrip(".") if x % 1 else str(x)
    return f"{float(x):.{d}f}"


def agreement(printed, reproduced, *, spread=0, word: str | None = None, end: str | None = None) -> Agreement:
    """The rule of the module docstring: how ``reproduced`` (known to within ``spread``) agrees with
    the text ``printed``. ``word``: the paper's qualifier of the number (:func:`qualifier`); ``end``:
    ``"lower"``/``"upper"`` for one end of a printed range (:func:`range_end`)."""
    if reproduced is None or (isinstance(reproduced, float) and math.isnan(reproduced)):
        return Agreement("missing", "no value")
    p = read(printed)
    x = exact(reproduced)
    if p is None or x is None:
        same = str(printed).strip().lower() == str(reproduced).strip().lower()
        return Agreement("equal" if same else "differs", "" if same else f"printed {printed}, ours {reproduced}")
    s = abs(exact(spread) or Fraction(0))
    lo, hi = x - s, x + s
    if word is not None and word not in WORDS:
        raise ValueError(f"unknown qualifier {word!r}; known: {sorted(WORDS)}")
    side = WORDS[word][1] if word is not None else "both"
    wrong_side = (side == "above" and hi <= p.value) or (side == "below" and lo >= p.value)
    a, b = p.rounding_cell()
    if _meets(lo, hi, a, b) and not wrong_side:
        return Agreement("equal" if p.unit is None else "rounded", "")
    ours = _show(x, p) + (f" ± {float(s):.2g}" if s else "")
    if p.unit is not None:
        v, u = p.value, p.unit
        if end == "lower" and _meets(lo, hi, v, v + u, True, False):
            return Agreement("bound", f"a range that holds as stated: its smallest value {ours} rounded down is "
                                      f"the printed lower end {printed}")
        if end == "upper" and _meets(lo, hi, v - u, v, False, True):
            return Agreement("bound", f"a range that holds as stated: its largest value {ours} rounded up is "
                                      f"the printed upper end {printed}")
    if word is not None:
        tol = WORDS[word][0]
        t = tol * abs(p.value)
        v = p.value
        band = {"both": (v - t, v + t, True, True), "above": (v, v + t, False, True),
                "below": (v - t, v, True, False)}[side]
        if _meets(lo, hi, *band):
            off = (x - v) / v if v else Fraction(0)
            how = "" if side == "both" else f", {side} it"
            return Agreement("approximate", f"'{word}' {printed}, read as within {float(tol):.0%} of it{how}: "
                                            f"{ours} is {float(abs(off)):.1%} {'above' if off > 0 else 'below'}")
    if p.unit is not None and _meets(lo, hi, *p.truncation_cell()) and not wrong_side:
        return Agreement("truncated", f"truncated, not rounded: {ours} truncates to {printed} "
                                      f"(rounding gives {p.render(x)})")
    beyond = (f", and it is not {side} it as '{word}' says" if wrong_side else
              f", nor is it within the {float(WORDS[word][0]):.0%} of '{word}'" if word is not None else "")
    return Agreement("differs", f"{ours} does not agree with the printed {printed}"
                                + (f" (it rounds to {p.render(x)})" if p.unit is not None else "") + beyond)
