"""Write notebooks/00_quickstart.ipynb (source of truth for its cells); `make notebooks` executes it."""
import nbformat as nbf
from pathlib import Path

cells = []
md = lambda s: cells.append(nbf.v4.new_markdown_cell(s))
code = lambda s, **kw: cells.append(nbf.v4.new_code_cell(s, **kw))

md("""# Quickstart — original vs interval-scaled scores on a handful of runs

**Data: simulated** (the `sim-t08` preset of `irscales.data.collection`, shaped like TREC-8 Ad hoc). The runs
are exported as TREC files and read back, so exactly the same code runs on your own runs: replace
`RUNS` and `QRELS` below by your paths (the reading options, e.g. `on_repeated_lines = "drop"`, are parameters
too; papermill: `-p RUNS runs/ -p QRELS qrels.txt`).

FFF21 §5 maps a measure M onto an interval scale by its *ranked version* φ(M): the rank of M's value
among all distinct values M takes over every possible run of length N; irscales shows it as (φ − 1)/(K − 1). φ keeps the order of runs on each
topic, but it changes the *spacing*, hence means across topics and the outcome of significance tests.""")
code("""full: bool = False       # True: more systems and a deeper cut-off
n_systems: int = 8       # simulated systems (when RUNS is None)
depth: int = 10          # cut-off: runs are evaluated at this depth
seed: int = 0            # seed of the simulated collection
RUNS: "Optional[str]" = None   # a directory of TREC run files; None: export a simulated collection
QRELS: "Optional[str]" = None  # the qrels file matching RUNS
# how the files are read (irscales.options.READING, the CLI's flags); None: irscales' default
negative: "Optional[str]" = None           # "error" | "zero"
on_missing_topic: "Optional[str]" = None   # "skip" | "error"
on_no_relevant: "Optional[str]" = None     # "skip" | "error" | "keep"
on_uneven_topics: "Optional[str]" = None   # "empty" | "pad" | "error"
on_repeated_lines: "Optional[str]" = None  # "error" | "drop"
score_precision: "Optional[str]" = None    # "float32" | "float64\"""", metadata={"tags": ["parameters"]})
code("""import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from irscales import evaluate
from irscales.data import load_preset
from irscales.figures import save_figure
from irscales.options import reading_given
from irscales import stats as S

if full:
    n_systems, depth = 20, 20
tmp = Path(tempfile.mkdtemp())
simulated = RUNS is None  # the label follows the data into every title and file name
if simulated:
    sim = load_preset("sim-t08", depth=30, seed=seed).subset(systems=list(range(0, 129, 129 // n_systems))[:n_systems])
    RUNS, QRELS = sim.to_trec(tmp)
MEASURES = ["AP", "RBP_p08", "DCG_b02", "RR", "RBP_p05"]
reading = reading_given(negative=negative, on_missing_topic=on_missing_topic, on_no_relevant=on_no_relevant,
                        on_uneven_topics=on_uneven_topics, on_repeated_lines=on_repeated_lines,
                        score_precision=score_precision)
ev = evaluate(QRELS, RUNS, MEASURES, depth=depth, ranked=True, progress=False, **reading)
tag = "simulated_" if simulated else ""
print(f"{len(ev.systems)} systems x {len(ev.topics)} topics, cut at N = {depth}; data: {'simulated (sim-t08)' if simulated else 'user runs'}")""")
md("""## The simulated data
What the default data looks like (the generative model is documented in `irscales.data.simulate`): recall bases per
topic, system effectiveness, and precision by rank (top-heavy runs). Skipped when you point the notebook at your
own runs.""")
code("""from irscales.data import simulate

if simulated:
    fig = simulate.plot_marginals(simulate.simulate("sim-t08", depth=30, seed=seed))
    print("saved", save_figure(fig, "quickstart", "simulated_sim-t08_marginals", formats=("png",), dpi=110))
    summary = simulate.marginals(simulate.simulate("sim-t08", depth=30, seed=seed))
    print(sorted(summary))""")
md("""## Scores and their interval-scaled versions
One call, `irscales.evaluate`, gives each measure's mean and the mean of its interval-scaled version: the
position φ of each run's score among all distinct values the measure takes over every run of length N (FFF21
eq. 2, ties `unq`), mapped onto [0, 1] by (φ − 1)/(K − 1), K the number of those values — 0 the lowest value
any run of length N takes, 1 the highest. The scale is the same for every topic (FFF21 §5.2.2): AP is placed by
SP = AP × RB, so the recall base does not enter and a perfect run on a topic with fewer than N relevant documents
is below 1. `ev.scale_table()` says how each scale was obtained and what it is over; RBP with p = 1/2 is an
affine image of the measure itself (its interval column repeats it, up to a factor).""")
code("""table = ev.means().sort_values(ev.given["AP"], ascending=False, kind="stable")  # AP as labelled: AP@10; ties: in system order
print(ev.scale_table()[["measure", "N", "K", "scale_over", "affine"]].to_string(index=False))
table.round(4)""")
code("""fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, key in zip(axes, ["AP", "RR"]):
    lab = ev.given[key]  # the column carries its N: AP@10
    ax.scatter(table[lab], table[lab + " (interval)"])
    for name, x, y in zip(table.index, table[lab], table[lab + " (interval)"]):
        ax.annotate(name.split("_")[-1], (x, y), fontsize=7)
    ax.set_xlabel(f"mean {key}")
    ax.set_ylabel(f"mean interval-scaled {key}, (φ − 1)/(K − 1)")
    ax.set_title(f"{'Simulated data: ' if simulated else ''}{key} vs its interval-scaled version, N={depth}")
fig.tight_layout()
print("saved", save_figure(fig, "quickstart", f"{tag}means_original_vs_ranked", formats=("png",), dpi=120))""")
md("""## Which system comparisons change?
Paired t tests and sign tests (α = 0.05) between every pair of systems, on each measure and on its
interval-scaled version (exact values: the same decisions on φ and on (φ − 1)/(K − 1)). A pair that is
significant with one and not with the other is a statement whose truth depends on the spacing of the scale
— exactly the kind of statement measurement theory calls *not meaningful* for an ordinal measure.
`ev.compare()` gives the full comparison table (letters, corrections, MM23's marks).""")
code("""changes = []
for key in MEASURES:
    orig = S.significance_tests(ev.values(key).to_numpy(), tests=("ttest", "sign"), systems=ev.systems)
    rank = S.significance_tests(ev.interval(key).to_numpy(), tests=("ttest", "sign"), systems=ev.systems)
    f = S.compare_significance(orig, rank).to_frame()
    f.insert(0, "measure", key)
    changes.append(f[["measure", "label", "pairs", "sig", "s2ns", "ns2s"]])
pd.concat(changes, ignore_index=True)""")
md("""Reading the table: `sig` counts significant pairs with the original measure, `s2ns` those that stop being
significant on the interval scale, `ns2s` those that become significant. RBP with p = 1/2 is already an interval
scale (FFF21 Example 12), so it never changes; the Sign test only looks at the order of the two systems on each
topic, which φ preserves, so it never changes for measures that do not depend on the recall base.""")

nb = nbf.v4.new_notebook(cells=cells)
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
Path(__file__).resolve().parents[1].joinpath("notebooks", "00_quickstart.ipynb").write_text(nbf.writes(nb))
