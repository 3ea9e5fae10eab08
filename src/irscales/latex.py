"""Text made safe for LaTeX, for every table irscales renders (the comparison table, the command line's
``--format latex``)."""

from __future__ import annotations

import re

__all__ = ["latex_text"]

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}", "|": r"\textbar{}", "†": r"$^\dagger$",
            "‡": r"$^\ddagger$", "≠": r"$\neq$", "§": r"\S{}", "φ": r"$\varphi$", "<": r"\textless{}",
            ">": r"\textgreater{}"}
_PATTERN = re.compile("|".join(re.escape(k) for k in _SPECIAL))


def latex_text(s: str) -> str:
    """Text safe in LaTeX: each special character replaced once, in one pass (so an escape is never
    escaped again); †, ‡, ≠, §, φ as their commands."""
    return _PATTERN.sub(lambda m: _SPECIAL[m.group(0)], s)
