"""Text made safe for LaTeX, for every table irscales renders (the comparison table, the command line's
``--format latex``)."""

from __future__ import annotations

import re

__all__ = ["latex_text", "latex_breakable", "latex_sentences"]

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}", "|": r"\textbar{}", "†": r"$^\dagger$",
            "‡": r"$^\ddagger$", "≠": r"$\neq$", "§": r"\S{}", "φ": r"$\varphi$", "<": r"\textless{}",
            ">": r"\textgreater{}", "≤": r"$\le$", "≥": r"$\ge$", "–": "--", "—": "---", "\r\n": " ", "\r": " ",
            "\n": " "}
_PATTERN = re.compile("|".join(re.escape(k) for k in sorted(_SPECIAL, key=len, reverse=True)))
#: Characters after which a name may break across lines (in a narrow table column).
_BREAK_AFTER = "._-/:+"
_CHUNK = 10


def latex_text(s: str) -> str:
    """Text safe in LaTeX: each special character replaced once, in one pass (so an escape is never
    escaped again); †, ‡, ≠, §, φ as their commands; a line break as a space (never a paragraph)."""
    return _PATTERN.sub(lambda m: _SPECIAL[m.group(0)], s)


def latex_breakable(s: str) -> str:
    """:func:`latex_text` with ``\\allowbreak{}`` after punctuation and within every run of more than
    ten other characters, so that a long name can wrap in a narrow column."""
    out, run = [], 0
    for ch in s:
        out.append(latex_text(ch))
        run = 0 if ch in _BREAK_AFTER else run + 1
        if ch in _BREAK_AFTER or run == _CHUNK:
            out.append(r"\allowbreak{}")
            run = 0 if run == _CHUNK else run
    return "".join(out).removesuffix(r"\allowbreak{}")


def latex_sentences(lines: list[str] | str) -> str:
    """A legend's lines as one caption: each line a sentence (a full stop added where it ends without one, so that
    notes never run together), escaped (:func:`latex_text`), a multiplication between words as math
    (``AP x RB`` → ``AP $\\times$ RB``)."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    kept = [x.strip() for x in lines if x.strip()]
    text = latex_text(" ".join(x if x[-1] in ".;:!?)" else x + "." for x in kept))
    return re.sub(r"(?<=\w) x (?=\w)", r" $\\times$ ", text)
