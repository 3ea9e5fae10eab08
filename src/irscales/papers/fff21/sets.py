"""FFF21 §3.3–3.4: Precision, Recall and F1 on the universe S[N, K] of triples [r, n, RB], and
Example 11 (recall on topics with 1, 2 and 3 relevant documents).

Runs are triples with n ≤ N, RB ≤ K, r ≤ n ∧ RB; Prec = r/n, Recall = r/RB, F1 = 2r/(n + RB)
(:mod:`irscales.theory.setbased`). Images are exact Fractions; *equi-spaced* compares consecutive
gaps exactly; *reversed* counts the pairs two measures order in opposite directions.
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from irscales.papers.fff21.record import Part, fmt_set, line, same_for_all
from irscales.papers.printing import yes_no
from irscales.theory import setbased as sb

__all__ = ["IMAGE_SETS", "s22", "images_table", "disagreeing_pairs_text", "fixed_length_ok", "fixed_rb_ok",
           "section34_claims", "example11"]

#: The universes S[N, K] whose images are listed (§3.4).
IMAGE_SETS = [(1, 1), (1, 2), (2, 1), (2, 2)] + [(3, K) for K in range(1, 5)]


def s22() -> Part:
    """S[2, 2] and its Prec, Recall and F1: ``text`` lists the runs, ``table`` their values."""
    S22 = sb.universe(2, 2)
    text = line("S[2,2] =", " ".join(str(list(x)) for x in S22))
    table = pd.DataFrame([{"run": str(list(x)), "Prec": sb.prec(x), "Recall": sb.recall(x), "F1": sb.f1(x)}
                          for x in S22])
    return Part(text=text, table=table)


def images_table(sets=IMAGE_SETS) -> pd.DataFrame:
    """The image of each measure on each S[N, K] of ``sets``, and whether it is equi-spaced."""
    return pd.DataFrame([
        {"set": f"S[{N},{K}]", **{m: fmt_set(sb.image(m, sb.universe(N, K))) for m in sb.MEASURES},
         **{f"{m} equi-spaced": sb.is_equispaced(sb.image(m, sb.universe(N, K))) for m in sb.MEASURES}}
        for N, K in sets
    ])


def disagreeing_pairs_text() -> str:
    """The pairs of S[2, 2] that P and R, P and F1, R and F1 order differently, as printed tables."""
    S22 = sb.universe(2, 2)
    out = []
    for m1, m2 in (("P", "R"), ("P", "F1"), ("R", "F1")):
        out += [f"S[2,2]: pairs that {m1} and {m2} order differently", sb.disagreeing_pairs(m1, m2, S22).to_string(index=False),
                ""]
    return "\n".join(out)


def fixed_length_ok(n: int, K: int) -> bool:
    """§3.4.4: on runs of fixed length n (RB ≤ K) P is interval; for K ≥ 3 and n ≥ 2 R is not, and
    some pair is ordered oppositely by P and R."""
    runs = sb.universe([n], K)
    if not sb.is_equispaced(sb.image("P", runs)):
        return False
    if K >= 3 and n >= 2:  # the other measure: not interval, and some pair reversed
        return not sb.is_equispaced(sb.image("R", runs)) and sb.compare_orders("P", "R", runs).discordant > 0
    return True


def fixed_rb_ok(N: int, rb: int) -> bool:
    """§3.4.4: on topics with fixed RB (n ≤ N) R is interval; for N ≥ 3 and rb ≥ 2 P is not, and some
    pair is ordered oppositely by P and R."""
    runs = sb.universe(N, [rb])
    if not sb.is_equispaced(sb.image("R", runs)):
        return False
    if N >= 3 and rb >= 2:
        return not sb.is_equispaced(sb.image("P", runs)) and sb.compare_orders("P", "R", runs).discordant > 0
    return True


def section34_claims(max_NK: int) -> Part:
    """The claims of §3.4.1–3.4.4 on every S[N, K] with N, K ≤ ``max_NK`` (S[5, 5] for the reversal
    condition; N, K ≤ min(max_NK, 5) for the fixed-length and fixed-RB claims)."""
    items: dict[str, object] = {}
    notes: dict[str, str] = {}
    S22 = sb.universe(2, 2)
    NK = [(N, K) for N in range(1, max_NK + 1) for K in range(1, max_NK + 1)]
    U = {nk: sb.universe(*nk) for nk in NK}
    im = {(m, nk): sb.image(m, U[nk]) for m in sb.MEASURES for nk in NK}

    items["s3.4/S22/size"] = len(S22)
    items["s3.4.1/P[1,2,1]"] = sb.prec((1, 2, 1))
    items["s3.4.1/P[1,2,2]"] = sb.prec((1, 2, 2))
    items["s3.4.1/P[1,1,2]"] = sb.prec((1, 1, 2))
    items["s3.4.1/P_image/S[1,K]"] = same_for_all(fmt_set(im["P", (1, K)]) for K in range(1, max_NK + 1))
    items["s3.4.1/P_image/S[2,K]"] = same_for_all(fmt_set(im["P", (2, K)]) for K in range(1, max_NK + 1))
    items["s3.4.1/P_image/S[3,1]"] = fmt_set(im["P", (3, 1)])
    items["s3.4.1/P_image/S[3,K>=2]"] = same_for_all(fmt_set(im["P", (3, K)]) for K in range(2, max_NK + 1))
    items["s3.4.1/P_interval_iff_N<=2"] = yes_no(all(sb.is_equispaced(im["P", (N, K)]) == (N <= 2) for N, K in NK))
    items["s3.4.1/P_three_smallest"] = yes_no(all(
        im["P", (N, K)][:3] == [0, Fraction(1, N), Fraction(1, N - 1)] and not sb.is_equispaced(im["P", (N, K)][:3])
        for N, K in NK if N >= 3))

    items["s3.4.2/R_image/S[N,1]"] = same_for_all(fmt_set(im["R", (N, 1)]) for N in range(1, max_NK + 1))
    items["s3.4.2/R_image/S[N,2]"] = same_for_all(fmt_set(im["R", (N, 2)]) for N in range(1, max_NK + 1))
    items["s3.4.2/R_interval_iff_K<=2"] = yes_no(all(sb.is_equispaced(im["R", (N, K)]) == (K <= 2) for N, K in NK))
    items["s3.4.2/R_two_smallest_nonzero"] = yes_no(all(
        im["R", (N, K)][1:3] == [Fraction(1, K), Fraction(1, K - 1)] for N, K in NK if K >= 3))
    items["s3.4.2/R[1,2,1]"] = sb.recall((1, 2, 1))
    items["s3.4.2/R[1,1,2]"] = sb.recall((1, 1, 2))
    items["s3.4.2/P_R_reverse_iff_N,K>=2"] = yes_no(all(
        (sb.compare_orders("P", "R", U[N, K]).discordant > 0) == (N >= 2 and K >= 2) for N, K in NK))
    pos = [x for x in sb.universe(5, 5) if x[0] > 0]
    items["s3.4.2/reversal_condition"] = yes_no(all(
        (sb.prec(a) < sb.prec(b) and sb.recall(a) > sb.recall(b))
        == (Fraction(b[1], a[1]) < Fraction(b[0], a[0]) < Fraction(b[2], a[2])) for a in pos for b in pos))

    for N, K in [(1, 1), (2, 1), (1, 2), (2, 2)]:
        items[f"s3.4.3/F1_image/S[{N},{K}]"] = fmt_set(im["F1", (N, K)])
    items["s3.4.3/F1[1,2,1]"] = sb.f1((1, 2, 1))
    items["s3.4.3/F1[1,1,2]"] = sb.f1((1, 1, 2))
    items["s3.4.3/F1_interval_only_S11"] = yes_no(all(sb.is_equispaced(im["F1", (N, K)]) == (N == K == 1) for N, K in NK))
    items["s3.4.3/F1_three_smallest"] = yes_no(all(
        im["F1", (N, K)][:3] == [0, Fraction(2, N + K), Fraction(2, N + K - 1)] for N, K in NK if N >= 3 or K >= 3))
    f1_same = [(N, K, m) for N, K in NK if N >= 3 or K >= 3 for m in ("P", "R")
               if sb.compare_orders(m, "F1", U[N, K]).same_order]
    items["s3.4.3/F1_order_differs_from_P_and_R"] = yes_no(not f1_same)
    if f1_same:
        edge = all((K == 1 and m == "P") or (N == 1 and m == "R") for N, K, m in f1_same)
        both = [(N, K) for N, K in NK if (N >= 3 or K >= 3) and N >= 2 and K >= 2]
        holds = not any(N >= 2 and K >= 2 for N, K, _ in f1_same)
        notes["s3.4.3/F1_order_differs_from_P_and_R"] = (
            (f"the claim holds for N, K ≥ 2 ({len(both)} cases S[N,K] with N, K ≤ {max_NK} checked) and fails only for "
             "S[N,1], which F1 orders exactly as Prec, and S[1,K], which F1 orders exactly as Recall"
             if edge and holds else "F1 orders these as Prec or Recall")
            + ": " + ", ".join(f"S[{N},{K}] as {'Prec' if m == 'P' else 'Recall'}" for N, K, m in f1_same[:6])
            + (" ..." if len(f1_same) > 6 else ""))
    lines = [line("F1 orders like P or R on:", ", ".join(f"S[{N},{K}]~{m}" for N, K, m in f1_same))]

    c22 = sb.compare_orders("P", "R", S22)
    items["s3.4.4/S22_P_R_both_interval"] = yes_no(sb.is_equispaced(im["P", (2, 2)]) and sb.is_equispaced(im["R", (2, 2)]))
    items["s3.4.4/S22_P_R_different_order"] = yes_no(not c22.same_order and c22.tau_b < 1)
    lines.append(f"S[2,2]: P vs R tau_b = {c22.tau_b:.4f}")
    small = range(1, min(max_NK, 5) + 1)
    items["s3.4.4/fixed_length_P_interval"] = yes_no(all(fixed_length_ok(n, K) for n in small for K in small))
    items["s3.4.4/fixed_RB_R_interval"] = yes_no(all(fixed_rb_ok(N, rb) for N in small for rb in small))
    items["s3.4.4/S_n_RB_same_interval_scale"] = yes_no(all(
        all(sb.is_equispaced(sb.image(m, sb.universe([n], [rb]))) for m in sb.MEASURES)
        and all(sb.compare_orders(a, b, sb.universe([n], [rb])).same_order
                for a, b in (("P", "R"), ("P", "F1"), ("R", "F1")))
        for n in range(1, max_NK + 1) for rb in range(1, max_NK + 1)))
    return Part(items, notes, text="\n".join(lines))


def example11() -> Part:
    """Example 11: the images of Recall on runs of length 3 with RB = 1, 2, 3, their union, and the
    smallest common equi-spaced grid with the values no run takes."""
    rec_images = [sb.image("R", sb.universe([3], [rb])) for rb in (1, 2, 3)]
    union = sorted(set().union(*rec_images))
    grid = sb.common_grid(rec_images)
    impossible = fmt_set(sorted(set(grid) - set(union)))
    lines = [line("images:", " ".join(fmt_set(x) for x in rec_images)),
             line("union:", fmt_set(union), "equi-spaced:", sb.is_equispaced(union)),
             line("smallest common equi-spaced grid:", fmt_set(grid), "impossible values:", impossible)]
    items = {"ex11/union_equispaced": yes_no(sb.is_equispaced(union)), "ex11/common_grid": fmt_set(grid),
             "ex11/impossible_values": impossible}
    return Part(items, text="\n".join(lines))
