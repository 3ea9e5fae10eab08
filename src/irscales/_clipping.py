"""Long words in messages (issue 37): a 64 kB run tag or docno quoted whole made an error line of 64 kB.
A word longer than :data:`CLIP_LONGER` characters is cut to its first :data:`CLIP_KEEP` and its length."""

from __future__ import annotations

__all__ = ["clip", "clip_words", "CLIP_LONGER", "CLIP_KEEP"]

CLIP_LONGER = 200
CLIP_KEEP = 80


def clip(word: str) -> str:
    """``word``, or its first :data:`CLIP_KEEP` characters and its length when longer than :data:`CLIP_LONGER`."""
    return word if len(word) <= CLIP_LONGER else f"{word[:CLIP_KEEP]}… ({len(word):,} chars)"


def clip_words(text: str) -> str:
    """``text`` with every word longer than :data:`CLIP_LONGER` clipped (:func:`clip`); spacing kept."""
    if len(text) <= CLIP_LONGER:
        return text
    return " ".join(clip(w) if len(w) > CLIP_LONGER else w for w in text.split(" "))
