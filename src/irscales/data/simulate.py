"""Simulated TREC-like collections: the embedded default when real runs are not available.

Everything computed from these collections is **simulated**; the collections carry that in their
provenance (``simulated: <preset> seed=<s>``) and the analyses say so in titles and file names.
The presets are *shaped like* the papers' data (numbers of topics and systems, grade scales,
Grid of Points design of Fer17 §3.2) but are not those data: they cannot reproduce published
numbers, only the analyses.

Generative model (issue 7). For topic t and system s, with an explicit ``numpy.random.Generator``:

Topics
    recall base  RB_t = clip(round(exp(N(log m_k, s_k))), 1, RB_max)   (track k's median m_k)
                 except, with probability ``sparse`` (0.12), RB_t ~ U{1, …, 30}: topics with fewer
                 relevant documents than the cut-offs 5, 10, 20, 30 (FFF21 §6).
    grades       graded tracks split RB_t into n_2 ~ Binomial(RB_t, h_t), h_t ~ Beta(2, 5),
                 highly relevant and n_1 = RB_t − n_2 relevant documents (3-level scale 0, 1, 2).
    judged non-relevant  J_t = round(exp(N(log 800, 0.5)))  (pool depth effects, export only).
    competitors  M_t = round(exp(N(log 20000, 0.5))) not relevant documents matching the query.
    ease         b_t ~ N(0, σ_b) (topic difficulty is −b_t).
Systems
    TREC-like presets: a_s ~ N(μ_a, σ_a); a fraction ``weak`` of runs (broken or exploratory
    submissions) has a_s ~ N(μ_a − Δ, σ_a): a wide spread of effectiveness.
    Grid of Points (Fer17 §3.2): a_s = μ + α_stop + β_lug + γ_model + (αβ) + (βγ) + (αγ)
    + corpus × lug + corpus × model + ε_s: additive component effects plus interactions, with
    α ~ N(0.05, 0.05) and −0.25 for no stop list; β = 0 for no LUG, ~ N(0.15, 0.08) for the five
    stemmers, −0.3 … −0.9 (+ N(0, 0.05)) for 4- … 10-grams; γ ~ N(0, 0.3); interaction standard
    deviations 0.08 (stop × LUG), 0.12 (LUG × model), 0.05 (stop × model), 0.15 (corpus × LUG,
    corpus × model), ε_s 0.05.
Runs
    location μ_st = a_s + b_t + e_st, with a system × topic interaction e_st ~ N(0, σ_e) (for the
    grid e_st = lug × topic + model × topic + stop × topic + ε_st with standard deviations 0.3,
    0.25, 0.1 and 0.2, so systems sharing components agree across topics).
    Document scores: a relevant document of grade g scores N(μ_st + δ (g − 1), 1), a not relevant
    one N(0, 1); the run ranks documents by score, which makes rankings top-heavy for good
    systems. Only the top ``depth`` documents of each group matter, and the top k of n iid normals
    are drawn exactly through uniform order statistics (k exponential spacings plus one
    Gamma(n − k + 1) remainder), so the cost is O(S · T · depth), not O(S · T · M_t).
Real recall bases (optional, single-track presets such as sim-t26 / sim-t27)
    ``simulate(..., qrels=path)`` takes the topics, their recall bases and grade counts (n_1, n_2)
    and the judged not relevant counts J_t from a real qrels file (e.g. the TREC 2017 Common Core
    qrels) instead of drawing them; everything else (systems, runs) is simulated as above, so the
    result is still simulated and says so. Without ``qrels`` nothing changes.
    Short runs: a fraction ``short`` of systems returns, on a fraction U(0.1, 0.5) of topics,
    L_st = round(exp(U(0, log 1000))) documents instead of 1000; the arrays are padded with not
    relevant documents (FFF21 §5.1).

:func:`marginals` returns the per-topic and per-system summaries a notebook plots.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtri

from irscales.data.trec import read_qrels
from irscales.data._trec_arrays import topic_key

__all__ = ["Simulation", "simulate", "marginals", "plot_marginals"]

GOP_STOP = ("nostop", "indri", "lucene", "snowball", "smart", "terrier")
GOP_LUG = ("nolug", "krovetz", "lovins", "porter", "snowballPorter", "weakPorter",
           "4grams", "5grams", "6grams", "7grams", "8grams", "9grams", "10grams")
GOP_MODEL = ("bb2", "bm25", "dfiz", "dfree", "dirichletlm", "dlh", "dph", "hiemstralm", "ifb2",
             "inb2", "inl2", "inexpb2", "jskls", "lemurtfidf", "lgd", "pl2", "tfidf")

NOMINAL_RUN_LENGTH = 1000  # TREC ad hoc runs return up to 1000 documents per topic


@dataclass(frozen=True)
class Track:
    """One topic set: its topic ids, corpus, grade scale and recall-base distribution."""

    name: str
    topics: tuple[str, ...]
    corpus: str
    max_grade: int = 1
    rb_median: float = 60.0
    rb_sigma: float = 0.9
    rb_max: int = 600
    ease_mean: float = 0.0


@dataclass(frozen=True)
class Preset:
    """A simulated collection design. ``n_systems=None`` means the Grid of Points (1,326)."""

    name: str
    description: str
    tracks: tuple[Track, ...]
    n_systems: int | None
    mu_a: float = 1.8
    sigma_a: float = 0.55
    weak: float = 0.12
    weak_shift: float = 1.6
    sigma_b: float = 0.7
    sigma_e: float = 0.5
    grade_boost: float = 0.7
    sparse: float = 0.12
    short: float = 0.08


def _ids(a: int, b: int, skip: tuple[int, ...] = ()) -> tuple[str, ...]:
    return tuple(str(i) for i in range(a, b + 1) if i not in skip)


# Topic ids: the TREC ranges documented in Fer17 §3.1 and FFF21 §6 where the papers give them
# (TREC-8 401-450, Robust 2004 301-450 and 601-700 without 672). For Common Core 2017/2018 the
# ids are plain 1..50. T13 uses 49 of 701-750 (Fer17 §3.1); which one is dropped is our choice.
PRESETS: dict[str, Preset] = {
    "sim-t08": Preset("sim-t08", "simulated, shaped like TREC-8 Ad hoc (T08): 50 topics, 129 runs, binary",
                      (Track("T08", _ids(401, 450), "disks45", 1, 70, 0.9),), 129),
    "sim-t26": Preset("sim-t26", "simulated, shaped like TREC 2017 Common Core (T26): 50 topics, 75 runs, "
                      "3-level graded", (Track("T26", _ids(1, 50), "nyt", 2, 120, 0.9),), 75),
    "sim-t27": Preset("sim-t27", "simulated, shaped like TREC 2018 Common Core (T27): 50 topics, 72 runs, "
                      "3-level graded", (Track("T27", _ids(1, 50), "wapo", 2, 80, 0.9),), 72),
    "sim-r04": Preset("sim-r04", "simulated, shaped like TREC 2004 Robust (R04): 249 topics, 110 runs, binary",
                      (Track("R04", _ids(301, 450) + _ids(601, 700, skip=(672,)), "disks45", 1, 50, 1.0),),
                      110),
    "sim-gop": Preset(
        "sim-gop", "simulated Grid of Points (Fer17 §3.2): 6 stop lists x 13 LUGs x 17 models = 1,326 "
        "systems on 3 corpora with 7 topic sets (349 topics)",
        (Track("T07", _ids(351, 400), "disks45", 1, 70, 0.9, ease_mean=0.0),
         Track("T08", _ids(401, 450), "disks45", 1, 70, 0.9, ease_mean=0.1),
         Track("T09", _ids(451, 500), "wt10g", 2, 40, 1.0, ease_mean=-0.4),
         Track("T10", _ids(501, 550), "wt10g", 2, 40, 1.0, ease_mean=-0.3),
         Track("T13", _ids(701, 749), "gov2", 2, 180, 0.8, ease_mean=0.3),
         Track("T14", _ids(751, 800), "gov2", 2, 180, 0.8, ease_mean=0.4),
         Track("T15", _ids(801, 850), "gov2", 2, 150, 0.8, ease_mean=0.3)),
        None, mu_a=1.9, sigma_a=0.0, weak=0.0, sigma_b=0.6, sigma_e=0.2, short=0.02),
}


@dataclass(kw_only=True)
class Simulation:
    """Raw output of :func:`simulate` (wrapped by :class:`irscales.data.collection.Collection`)."""

    preset: str
    seed: int
    depth: int
    max_grade: int
    rel: np.ndarray            # int8 [system, topic, rank]
    judgments: np.ndarray      # int64 [topic, grade]: judged documents per grade
    run_lengths: np.ndarray    # int64 [system, topic]: documents retrieved (nominal 1000)
    topics: list[str]
    systems: list[str]
    topic_labels: dict[str, list[str]]
    system_labels: dict[str, list[str]]
    latent: dict[str, np.ndarray] = field(default_factory=dict)
    qrels_source: str | None = None  # the real qrels the topics' judgment counts come from, if any


def _top_normals(rng: np.random.Generator, n: int, k: int, loc: np.ndarray) -> np.ndarray:
    """The k largest of n iid N(loc_s, 1) draws, for every s, in decreasing order: shape (S, k).

    Uniform order statistics: the k smallest of n uniforms are S_i / (S_k + G), S_i the partial
    sums of k Exp(1) variables and G ~ Gamma(n − k + 1) the rest of the n + 1 spacings.
    """
    k = min(k, n)
    if k == 0:
        return np.empty((loc.shape[0], 0))
    e = rng.standard_exponential((loc.shape[0], k))
    s = np.cumsum(e, axis=1)
    g = rng.standard_gamma(n - k + 1, size=loc.shape[0])
    v = s / (s[:, -1:] + g[:, None])
    return loc[:, None] - ndtri(v)


def _system_effects(p: Preset, rng: np.random.Generator, corpora: list[str]):
    """System effects a_s (per corpus for the grid) and, for the grid, component labels and the
    component × topic interaction scales."""
    if p.n_systems is not None:
        weak = rng.random(p.n_systems) < p.weak
        a = rng.normal(p.mu_a, p.sigma_a, p.n_systems) - p.weak_shift * weak
        systems = [f"sim{p.name[4:]}_{i:03d}" for i in range(1, p.n_systems + 1)]
        return {c: a for c in corpora}, systems, {}, None
    ns, nl, nm = len(GOP_STOP), len(GOP_LUG), len(GOP_MODEL)
    stop = rng.normal(0.05, 0.05, ns)
    stop[0] = -0.25  # no stop list hurts (Fer17 §3.2 lists it as a component like the others)
    lug = np.concatenate([[0.0], rng.normal(0.15, 0.08, 5), -np.linspace(0.3, 0.9, 7) + rng.normal(0, 0.05, 7)])
    model = rng.normal(0.0, 0.3, nm)
    sl = rng.normal(0, 0.08, (ns, nl))
    lm = rng.normal(0, 0.12, (nl, nm))
    sm = rng.normal(0, 0.05, (ns, nm))
    i, j, k = (x.ravel() for x in np.meshgrid(np.arange(ns), np.arange(nl), np.arange(nm), indexing="ij"))
    base = p.mu_a + stop[i] + lug[j] + model[k] + sl[i, j] + lm[j, k] + sm[i, k] + rng.normal(0, 0.05, i.size)
    per_corpus = {}
    for c in corpora:
        cl, cm = rng.normal(0, 0.15, nl), rng.normal(0, 0.15, nm)
        per_corpus[c] = base + cl[j] + cm[k]
    systems = [f"{GOP_STOP[a]}_{GOP_LUG[b]}_{GOP_MODEL[c]}" for a, b, c in zip(i, j, k)]
    labels = {"stop": [GOP_STOP[a] for a in i], "lug": [GOP_LUG[b] for b in j], "model": [GOP_MODEL[c] for c in k]}
    return per_corpus, systems, labels, (i, j, k)


def qrels_grade_counts(qrels, max_grade: int) -> tuple[list[str], np.ndarray]:
    """Judged documents per topic and grade of a qrels file (path) or frame of
    :func:`irscales.data.trec.read_qrels`: (topic ids in numeric order, int64 array [topic, grade 0..max_grade]).

    Negative grades count as judged not relevant (as trec_eval reads them). Topics without a relevant
    document are left out, as :meth:`~irscales.data.collection.Collection.from_trec` leaves them out by
    default; a grade above ``max_grade`` (the preset's scale) is an error.
    """
    q = qrels if isinstance(qrels, pd.DataFrame) else read_qrels(qrels, negative="zero")
    src = q.attrs.get("path", "qrels") if isinstance(qrels, pd.DataFrame) else str(qrels)
    top = int(q["rel"].max()) if len(q) else 0
    if top > max_grade:
        raise ValueError(f"{src}: grades up to {top}, but the preset's scale is 0..{max_grade}")
    grades = np.clip(q["rel"].to_numpy(np.int64), 0, None)
    topics = sorted(set(map(str, q["topic"])), key=topic_key)
    index = {t: i for i, t in enumerate(topics)}
    counts = np.zeros((len(topics), max_grade + 1), dtype=np.int64)
    np.add.at(counts, (np.array([index[str(t)] for t in q["topic"]], dtype=np.int64), grades), 1)
    keep = counts[:, 1:].sum(1) > 0
    if not keep.any():
        raise ValueError(f"{src}: no topic has a relevant document")
    return [t for t, k in zip(topics, keep) if k], counts[keep]


def simulate(preset: str | Preset, depth: int = 100, seed: int = 0,
             rng: np.random.Generator | None = None, qrels=None) -> Simulation:
    """Simulate a preset at cut-off ``depth`` (see the module docstring for the model).

    Deterministic: the same (preset, depth, seed) gives the same arrays. ``rng`` overrides
    ``seed`` (its state is consumed). ``qrels`` (a real qrels file or frame, single-track presets
    only): the topics and their judgment counts per grade come from it (:func:`qrels_grade_counts`)
    instead of the model; systems and runs stay simulated.
    """
    if isinstance(preset, str) and preset not in PRESETS:
        raise KeyError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    p = PRESETS[preset] if isinstance(preset, str) else preset
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    real_counts = None
    qrels_source = None
    if qrels is not None:
        if len(p.tracks) != 1:
            raise ValueError(f"qrels= needs a single-track preset; {p.name} has {len(p.tracks)} tracks")
        tr0 = p.tracks[0]
        real_topics, real_counts = qrels_grade_counts(qrels, tr0.max_grade)
        qrels_source = Path(qrels.attrs.get("path", "qrels frame") if isinstance(qrels, pd.DataFrame)
                            else qrels).name
        p = replace(p, tracks=(replace(tr0, topics=tuple(real_topics)),))
    rng = rng if rng is not None else np.random.default_rng(seed)
    corpora = sorted({t.corpus for t in p.tracks})
    a_by_corpus, systems, sys_labels, comp = _system_effects(p, rng, corpora)
    S = len(systems)
    max_grade = max(t.max_grade for t in p.tracks)

    topics, t_track, t_corpus = [], [], []
    for tr in p.tracks:
        topics += list(tr.topics)
        t_track += [tr.name] * len(tr.topics)
        t_corpus += [tr.corpus] * len(tr.topics)
    T = len(topics)

    short_sys = rng.random(S) < p.short
    short_frac = rng.uniform(0.1, 0.5, S)
    rel = np.zeros((S, T, depth), dtype=np.int8)
    judgments = np.zeros((T, max_grade + 1), dtype=np.int64)
    run_lengths = np.full((S, T), NOMINAL_RUN_LENGTH, dtype=np.int64)
    ease = np.zeros(T)
    ti = 0
    for tr in p.tracks:
        a = a_by_corpus[tr.corpus]
        for _ in tr.topics:
            if real_counts is not None:
                judgments[ti] = real_counts[ti]
                n1 = int(real_counts[ti, 1])
                n2 = int(real_counts[ti, 2]) if tr.max_grade >= 2 else 0
            else:
                if rng.random() < p.sparse:
                    rb = int(rng.integers(1, 31))
                else:
                    rb = int(np.clip(round(np.exp(rng.normal(np.log(tr.rb_median), tr.rb_sigma))), 1, tr.rb_max))
                n2 = int(rng.binomial(rb, rng.beta(2, 5))) if tr.max_grade >= 2 else 0
                n1 = rb - n2
                judgments[ti, 0] = round(np.exp(rng.normal(np.log(800), 0.5)))
                judgments[ti, 1] = n1
                if tr.max_grade >= 2:
                    judgments[ti, 2] = n2
            m = int(round(np.exp(rng.normal(np.log(20000), 0.5))))
            b = rng.normal(tr.ease_mean, p.sigma_b)
            ease[ti] = b
            if comp is None:
                e = rng.normal(0, p.sigma_e, S)
            else:
                i, j, k = comp
                e = (rng.normal(0, 0.1, len(GOP_STOP))[i] + rng.normal(0, 0.3, len(GOP_LUG))[j]
                     + rng.normal(0, 0.25, len(GOP_MODEL))[k] + rng.normal(0, p.sigma_e, S))
            loc = a + b + e
            parts = [_top_normals(rng, n2, depth, loc + p.grade_boost),
                     _top_normals(rng, n1, depth, loc),
                     _top_normals(rng, m, depth, np.zeros(S))]
            grades = np.concatenate([np.full(parts[0].shape[1], 2), np.full(parts[1].shape[1], 1),
                                     np.zeros(parts[2].shape[1], dtype=int)]).astype(np.int8)
            scores = np.concatenate(parts, axis=1)
            order = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
            rel[:, ti, :] = grades[order]
            # short runs: truncate, the rest is padding with not relevant documents (FFF21 §5.1)
            cut = short_sys & (rng.random(S) < short_frac)
            lengths = np.rint(np.exp(rng.uniform(0, np.log(NOMINAL_RUN_LENGTH), S))).astype(np.int64)
            run_lengths[cut, ti] = lengths[cut]
            mask = np.arange(depth)[None, :] >= lengths[:, None]
            rel[:, ti, :][cut[:, None] & mask] = 0
            ti += 1

    latent = {"topic_ease": ease, "short_system": short_sys}
    if comp is None:
        latent["system_effect"] = a_by_corpus[corpora[0]]
    else:
        for c in corpora:
            latent[f"system_effect_{c}"] = a_by_corpus[c]
    return Simulation(preset=p.name, seed=seed, depth=depth, max_grade=max_grade, rel=rel,
                      judgments=judgments, run_lengths=run_lengths, topics=topics, systems=systems,
                      topic_labels={"track": t_track, "corpus": t_corpus},
                      system_labels=sys_labels, latent=latent, qrels_source=qrels_source)


def marginals(sim: Simulation, k: int = 10) -> dict[str, pd.DataFrame]:
    """Per-topic and per-system summaries of a simulation, for the notebook plot of the model.

    ``topics``: recall base, highly relevant count, judged not relevant, latent ease, mean P@k
    over systems. ``systems``: latent effect, mean P@k and mean AP@depth over topics, share of
    short runs. (P@k = hits in the top k / k; AP@depth = Σ precision at relevant ranks / RB.)
    """
    b = sim.rel > 0
    rb = sim.judgments[:, 1:].sum(1)
    pk = b[..., :k].sum(-1) / k
    cum = np.cumsum(b, -1) / np.arange(1, sim.depth + 1)
    ap = (cum * b).sum(-1) / np.maximum(rb, 1)[None, :]
    topics = pd.DataFrame({
        "topic": sim.topics, "track": sim.topic_labels["track"], "rb": rb,
        "highly_relevant": sim.judgments[:, 2] if sim.max_grade >= 2 else 0,
        "judged_not_relevant": sim.judgments[:, 0], "ease": sim.latent["topic_ease"],
        f"mean_P@{k}": pk.mean(0)})
    eff = sim.latent.get("system_effect")
    if eff is None:
        eff = np.mean([v for kk, v in sim.latent.items() if kk.startswith("system_effect_")], axis=0)
    systems = pd.DataFrame({"system": sim.systems, "effect": eff, f"mean_P@{k}": pk.mean(1),
                            f"mean_AP@{sim.depth}": ap.mean(1),
                            "short_runs": (sim.run_lengths < NOMINAL_RUN_LENGTH).mean(1)})
    for name, vals in sim.system_labels.items():
        systems[name] = vals
    return {"topics": topics, "systems": systems}


def plot_marginals(sim: Simulation, k: int = 10):
    """Figure of the model's marginals (issue 7): recall bases with the cut-offs 5/10/20/30,
    per-system and per-topic mean P@k (effectiveness spread, topic difficulty) and precision by
    rank for the best, median and worst thirds of the systems (top-heaviness). The title says
    "simulated". Returns a matplotlib Figure (the caller saves it, e.g. under figures_dir())."""
    import matplotlib.pyplot as plt

    m = marginals(sim, k=k)
    fig, ax = plt.subplots(2, 2, figsize=(10, 7))
    rb = m["topics"]["rb"].to_numpy()
    bins = np.unique(np.geomspace(1, max(rb.max(), 2) + 1, 30).astype(int))
    ax[0, 0].hist(rb, bins=bins, color="C0")
    ax[0, 0].set_xscale("log")
    for c in (5, 10, 20, 30):
        ax[0, 0].axvline(c, color="grey", ls=":", lw=1)
    ax[0, 0].set(title=f"recall base per topic ({(rb < 30).sum()} of {len(rb)} below 30)",
                 xlabel="relevant documents (log scale)", ylabel="topics")
    ax[0, 1].hist(m["systems"][f"mean_P@{k}"], bins=30, color="C1")
    ax[0, 1].set(title=f"system effectiveness: mean P@{k} over topics", xlabel=f"mean P@{k}", ylabel="systems")
    ax[1, 0].hist(m["topics"][f"mean_P@{k}"], bins=30, color="C2")
    ax[1, 0].set(title=f"topic difficulty: mean P@{k} over systems", xlabel=f"mean P@{k}", ylabel="topics")
    order = np.argsort(-m["systems"][f"mean_P@{k}"].to_numpy())
    thirds = np.array_split(order, 3)
    ranks = np.arange(1, sim.depth + 1)
    for name, idx in zip(("best third", "middle third", "worst third"), thirds):
        ax[1, 1].plot(ranks, (sim.rel[idx] > 0).mean(axis=(0, 1)), label=name)
    ax[1, 1].set(title="precision at each rank (top-heaviness)", xlabel="rank", ylabel="share relevant")
    ax[1, 1].legend()
    fig.suptitle(f"simulated collection {sim.preset} (seed={sim.seed}, depth={sim.depth}): "
                 "marginals of the generative model")
    fig.tight_layout()
    return fig
