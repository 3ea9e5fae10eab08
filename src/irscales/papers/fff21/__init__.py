"""FFF21 — Ferrante, Ferro, Fuhr, "Towards meaningful statements in IR evaluation: mapping
evaluation measures to interval scales" (IEEE Access 2021): its scales, tables, claims and the
work beyond its §8."""
