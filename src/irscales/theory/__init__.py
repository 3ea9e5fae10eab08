"""The formal theory: orders on runs, scale checkers, set-based runs, Hasse diagrams and
meaningful statements (FFP17, FFP19, FFF21 §2–§3)."""
