"""The formal theory, independent of any paper's reproduction (FFP17, FFP19, FFF21 §2–§3).

* :mod:`~irscales.theory.orders`          orders on judged runs, covers, rank functions, FFP17's Δ;
* :mod:`~irscales.theory.scales`          checkers: is a measure ordinal / interval / interval-like for an order;
* :mod:`~irscales.theory.thresholds`      the p thresholds of RBP-like measures (roots of difference polynomials);
* :mod:`~irscales.theory.setbased`        Precision, Recall, F1 on the set-based universe S[N, K];
* :mod:`~irscales.theory.hasse`           the partial order of binary runs and its Hasse diagram;
* :mod:`~irscales.theory.meaningfulness`  meaningful statements under permissible transformations;
* :mod:`~irscales.theory.rank_identities` counting identities of the total orders (SBTO, RBTO).

Import the module you need (``from irscales.theory.scales import check_interval``).
"""

__all__: list[str] = []
