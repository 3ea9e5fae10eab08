"""Side by side, end to end: run files + qrels → per-topic values, irscales against trec_eval, pytrec_eval,
ir_measures and ranx (issue 32); prints ready-to-paste Markdown tables.

Every measurement is a whole process, as a user runs it: start, import, read the files, evaluate, write the
per-topic values (tab-separated, to a file). Five trec_eval measures per topic: map, P_10, ndcg_cut_10,
recip_rank, Rprec (irscales: ``irscales scores`` with trec_eval's recipe, ``--format tsv``). Peers, each
optional and skipped with a note when absent:

- ``trec_eval``   the C binary, when one is on PATH (one process per run file, as it is used; not in any
                  package registry reachable from here: build it from its public sources);
- pytrec_eval     its own readers ``parse_qrel`` / ``parse_run`` + ``RelevanceEvaluator.evaluate``;
- ir_measures     ``read_trec_qrels`` / ``read_trec_run`` + ``evaluator(...).iter_calc``;
- ranx            ``Qrels.from_file`` / ``Run.from_file`` + ``evaluate`` (not installed here: ``pip install
                  ranx`` to include it; its definitions may differ, its largest difference is printed).

irscales is measured **cold** (the first call on these files: an empty ``IRSCALES_CACHE``) and **warm** (the
cache of judged runs filled by an earlier call). numba's compiled reader is in numba's cache in both (it is
compiled once per installation; that one-time cost is measured once, with an empty ``NUMBA_CACHE_DIR`` and
``IRSCALES_AHEAD=0``: without the reader compiled ahead of time, which ``make install`` builds and cold and warm use).
Each case is measured ``--repeats`` times, interleaved (every repetition runs every case in turn); the tables
give medians of wall time, CPU time (user + system of the process and its children) and peak resident set
size (``getrusage``'s ``ru_maxrss`` of the process; the largest of trec_eval's processes). Values are checked
against irscales' and the largest difference is printed (trec_eval prints 4 decimals; version 10 and later
compare scores as doubles, so they are checked against irscales' ``--score-precision float64`` values).

Data:

- the 129 real TREC-8 ad hoc runs (``<IRSCALES_SHARED>/trec/T08``, gzipped there; gunzipped into a
  temporary folder first, as plain files are what the peers read), skipped with a note when absent;
- ``--synthetic DIR``: a **synthetic (generated, not real)** set of 500 runs × 250 topics × 1,000 documents
  (125 million lines, about 5 GB) written into DIR when it is not there yet (minutes; keep it in /tmp and
  delete it afterwards), measured once each for irscales (cold and warm) and the fastest peer of the T08
  table, with how each grows from the 129 × 50 TREC-8 runs.

Also printed: the size of the cache of judged runs against the gzipped runs (``gzip -6`` of each file).

Usage: python benchmarks/bench_trec_peers.py [--repeats 5] [--synthetic /tmp/irscales-synthetic] [--quick]
[--baseline ../main/src]
(``--quick``: 20 of the T08 runs, one repetition, no synthetic set). The machine is shared? Then say so
next to the figures: wall times are contended, peak memory is not.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
MEASURES = ("map", "P_10", "ndcg_cut_10", "recip_rank", "Rprec")

# runs the commands given (JSON: [[args, stdout file], ...]) one after the other and prints wall seconds,
# CPU seconds of the children and their peak resident set size (KiB)
_MEASURE = r"""
import json, resource, subprocess, sys, time
cmds = json.loads(sys.argv[1])
t0 = time.perf_counter()
for args, out in cmds:
    with open(out, "ab") as fh:
        rc = subprocess.call(args, stdout=fh, stderr=subprocess.DEVNULL)
    if rc:
        print(json.dumps({"error": f"exit code {rc}: {' '.join(args[:4])} ..."})); sys.exit(0)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss}))
"""

_PYTREC = r"""
import glob, sys, pytrec_eval
runs, qrels = sys.argv[1], sys.argv[2]
with open(qrels) as fh:
    q = pytrec_eval.parse_qrel(fh)
ev = pytrec_eval.RelevanceEvaluator(q, {"map", "P_10", "ndcg_cut_10", "recip_rank", "Rprec"})
out = sys.stdout
for f in sorted(glob.glob(runs + "/*")):
    with open(f) as fh:
        res = ev.evaluate(pytrec_eval.parse_run(fh))
    name = f.rsplit("/", 1)[-1]
    for topic, vals in res.items():
        for m, v in vals.items():
            out.write(f"{name}\t{topic}\t{m}\t{v!r}\n")
"""

_IR_MEASURES = r"""
import glob, sys, ir_measures
from ir_measures import AP, P, RR, Rprec, nDCG
runs, qrels = sys.argv[1], sys.argv[2]
names = {str(AP): "map", str(P @ 10): "P_10", str(nDCG @ 10): "ndcg_cut_10", str(RR): "recip_rank", str(Rprec): "Rprec"}
ev = ir_measures.evaluator([AP, P @ 10, nDCG @ 10, RR, Rprec], ir_measures.read_trec_qrels(qrels))
out = sys.stdout
for f in sorted(glob.glob(runs + "/*")):
    name = f.rsplit("/", 1)[-1]
    for m in ev.iter_calc(ir_measures.read_trec_run(f)):
        out.write(f"{name}\t{m.query_id}\t{names[str(m.measure)]}\t{m.value!r}\n")
"""

_RANX = r"""
import glob, sys
from ranx import Qrels, Run, evaluate
runs, qrels = sys.argv[1], sys.argv[2]
q = Qrels.from_file(qrels, kind="trec")
names = {"map": "map", "precision@10": "P_10", "ndcg@10": "ndcg_cut_10", "mrr": "recip_rank", "r-precision": "Rprec"}
out = sys.stdout
for f in sorted(glob.glob(runs + "/*")):
    run = Run.from_file(f, kind="trec")
    res = evaluate(q, run, list(names), return_mean=False)
    topics = list(run.keys())
    for m, vals in res.items():
        for topic, v in zip(topics, vals):
            out.write(f"{f.rsplit('/', 1)[-1]}\t{topic}\t{names[m]}\t{float(v)!r}\n")
"""


def _have(module: str) -> bool:
    return subprocess.call([sys.executable, "-c", f"import {module}"], stderr=subprocess.DEVNULL) == 0


def _irscales(runs: Path, qrels: Path, depth: int) -> list[str]:
    return [sys.executable, "-m", "irscales.cli", "scores", str(runs), "--qrels", str(qrels), "--measures",
            ",".join(MEASURES), "--negative", "zero", "--on-missing-topic", "skip", "--on-no-relevant", "keep",
            "--depth", str(depth), "--format", "tsv"]


def cases(runs: Path, qrels: Path, depth: int, work: Path, baseline: Path | None = None) -> dict[str, dict]:
    """name -> {cmds(out), env, before()}: how to run each case (peers only when available; ``baseline``:
    irscales from another source tree too, e.g. the main branch before a change)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: Python's modules from their cached bytecode
    out = {}
    for name, src in (("irscales", None), ("baseline irscales", baseline)):
        if name != "irscales" and src is None:
            continue
        e = {**env, "PYTHONPATH": str(src)} if src else env
        cold, warm = work / f"cache-cold-{name[0]}", work / f"cache-warm-{name[0]}"
        cmds = lambda o: [[_irscales(runs, qrels, depth), o]]  # noqa: E731
        out[f"{name} cold"] = {"cmds": cmds, "env": {**e, "IRSCALES_CACHE": str(cold)},
                               "before": (lambda d: lambda: shutil.rmtree(d, ignore_errors=True))(cold)}
        out[f"{name} warm"] = {"cmds": cmds, "env": {**e, "IRSCALES_CACHE": str(warm)}, "before": lambda: None}
    te = shutil.which("trec_eval")
    if te:
        ms = [a for m in ("map", "P.10", "ndcg_cut.10", "recip_rank", "Rprec") for a in ("-m", m)]
        out["trec_eval"] = {"cmds": lambda o: [[[te, "-q", *ms, str(qrels), str(f)], f"{o}.{f.name}"]
                                               for f in sorted(runs.iterdir())],
                            "env": env, "before": lambda: None}
    for name, code, module in (("pytrec_eval", _PYTREC, "pytrec_eval"), ("ir_measures", _IR_MEASURES, "ir_measures"),
                               ("ranx", _RANX, "ranx")):
        if _have(module):
            out[name] = {"cmds": (lambda c: lambda o: [[[sys.executable, "-c", c, str(runs), str(qrels)], o]])(code),
                         "env": env, "before": lambda: None}
    return out


def measure(case: dict, out: Path) -> dict:
    case["before"]()
    for f in out.parent.glob(out.name + "*"):
        f.unlink()
    cmds = [[a, str(o)] for a, o in case["cmds"](str(out))]
    res = subprocess.run([sys.executable, "-c", _MEASURE, json.dumps(cmds)], env=case["env"], capture_output=True,
                         text=True, check=True)
    got = json.loads(res.stdout)
    if "error" in got:
        raise RuntimeError(got["error"])
    got["rss"] /= 1024  # KiB -> MiB
    return got


def _values(out: Path, kind: str, tags: dict[str, str]) -> dict[tuple, float]:
    """(system, topic, measure) -> value from a case's output."""
    vals = {}
    files = sorted(out.parent.glob(out.name + ".*")) if kind == "trec_eval" else [out]
    for f in files:
        for line in f.read_text().splitlines():
            parts = line.split("\t")
            if kind == "irscales":
                if parts[0] == "system" or parts[1] == "all":
                    continue
                name = parts[2].rsplit("@", 1)[0]  # a whole-run name carries its N (map@1000, issue 48)
                vals[(parts[0], parts[1], name if name in MEASURES else parts[2])] = float(parts[3])
            elif kind == "trec_eval":
                m, topic, v = (p.strip() for p in parts)
                if topic != "all":  # one output file per run: <out>.<run file name>
                    vals[(tags[f.name[len(out.name) + 1:]], topic, m)] = float(v)
            else:
                vals[(tags[parts[0]], parts[1], parts[2])] = float(parts[3])
    return vals


def trec_eval_major() -> int | None:
    """The major version of the ``trec_eval`` on PATH (``-v`` prints "trec_eval version 10.0-rc2"), or None."""
    te = shutil.which("trec_eval")
    if not te:
        return None
    res = subprocess.run([te, "-v"], capture_output=True, text=True)
    text = res.stdout + res.stderr  # 10.0 prints its version on standard error
    digits = text.rsplit("version", 1)[-1].strip().split(".", 1)[0]
    return int(digits) if digits.isdigit() else None


def check(outputs: dict[str, Path], tags: dict[str, str], float64: Path | None = None) -> dict[str, str]:
    """The largest difference of each peer's values from irscales' (and keys missing on either side).
    trec_eval ≥ 10 compares scores as doubles: it is checked against ``float64``, irscales' values with
    ``--score-precision float64`` (runs such as TREC-8's uwmt8a0 have scores that differ only beyond float32)."""
    ref = _values(outputs["irscales cold"], "irscales", tags)
    ref64 = _values(float64, "irscales", tags) if float64 else ref
    warm = _values(outputs["irscales warm"], "irscales", tags)
    notes = {"irscales warm": "identical to cold" if warm == ref else "DIFFERS from cold"}
    for name, out in outputs.items():
        if name.startswith("irscales"):
            continue
        if name.startswith("baseline"):
            notes[name] = "identical" if _values(out, "irscales", tags) == ref else "DIFFERS"
            continue
        got = _values(out, "trec_eval" if name == "trec_eval" else "peer", tags)
        base = ref64 if name == "trec_eval" else ref
        common = base.keys() & got.keys()
        worst = max((abs(base[k] - got[k]) for k in common), default=float("nan"))
        miss = len(base.keys() - got.keys()) + len(got.keys() - base.keys())
        notes[name] = f"max \\|difference\\| {worst:.1e}" + (f", {miss} values on one side only" if miss else "")
        if name == "trec_eval":
            notes[name] += (" (it prints 4 decimals" + (", scores as doubles: against `--score-precision float64`"
                                                        if float64 else "") + ")")
    return notes


def _tags(runs: Path) -> dict[str, str]:
    """File name -> run tag (the sixth field of its first line): irscales names systems by their tag."""
    out = {}
    for f in runs.iterdir():
        with open(f, "rb") as fh:
            out[f.name] = fh.readline().split()[5].decode()
    return out


def gunzipped(src: Path, dst: Path, limit: int | None) -> tuple[Path, int]:
    """Plain copies of the (gzipped) run files of ``src`` in ``dst``; and their gzipped size."""
    dst.mkdir(parents=True, exist_ok=True)
    gz = 0
    for f in sorted(src.iterdir())[:limit]:
        raw = f.read_bytes()
        data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        gz += len(raw) if raw[:2] == b"\x1f\x8b" else len(gzip.compress(data, 6))
        (dst / f.name.removesuffix(".gz")).write_bytes(data)
    return dst, gz


def table(results: dict[str, list[dict]], notes: dict[str, str], what: str) -> str:
    med = {k: {x: statistics.median(r[x] for r in v) for x in ("wall", "cpu", "rss")} for k, v in results.items()}
    cold, warm = med["irscales cold"], med["irscales warm"]
    # the CPU ratios are what a shared machine can measure (its wall times are contended)
    lines = [f"| {what} | wall s | CPU s | peak RSS MiB | ÷ irscales cold (wall) | ÷ irscales warm (wall) | "
             "÷ irscales cold (CPU) | ÷ irscales warm (CPU) | values |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, m in med.items():
        lines.append(f"| {name} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss']:,.0f} | {m['wall'] / cold['wall']:.2f}× | "
                     f"{m['wall'] / warm['wall']:.2f}× | {m['cpu'] / cold['cpu']:.2f}× | {m['cpu'] / warm['cpu']:.2f}× | "
                     f"{notes.get(name, '')} |")
    return "\n".join(lines)


def run_set(name: str, runs: Path, qrels: Path, depth: int, repeats: int, work: Path, only=None, baseline=None):
    work.mkdir(parents=True, exist_ok=True)
    all_cases = cases(runs, qrels, depth, work, baseline)
    if only is not None:
        all_cases = {k: v for k, v in all_cases.items() if k.startswith("irscales") or k in only}
    # prime: numba's cache (a first call compiles the reader) and the warm caches of judged (parsed) runs
    for k in all_cases:
        if k.endswith("warm"):
            measure(all_cases[k], work / "prime")
    results: dict[str, list[dict]] = {k: [] for k in all_cases}
    outputs = {}
    order = list(all_cases)
    for rep in range(repeats):
        for k in order[rep % len(order):] + order[:rep % len(order)]:  # interleaved, a different case first each time
            out = work / f"out-{k.replace(' ', '-')}"
            results[k].append(measure(all_cases[k], out))
            outputs[k] = out
            print(f"  {name}: {k} rep {rep + 1}: {results[k][-1]['wall']:.2f} s", file=sys.stderr)
    float64 = None
    if "trec_eval" in outputs and (trec_eval_major() or 0) >= 10:
        float64 = work / "out-irscales-float64"
        case = all_cases["irscales cold"]  # its own cache, emptied after: the warm cache's size stays one precision's
        float64.unlink(missing_ok=True)
        measure({**case, "cmds": lambda o: [[_irscales(runs, qrels, depth) + ["--score-precision", "float64"], o]]},
                float64)
        case["before"]()
    notes = check(outputs, _tags(runs), float64)
    return results, notes


def first_call(runs: Path, qrels: Path, depth: int, work: Path) -> dict:
    """irscales' first call where nothing is compiled yet: numba compiles the reader (an empty NUMBA_CACHE_DIR, and
    not the module ``make install`` compiles ahead of time: IRSCALES_AHEAD=0)."""
    nb = work / "numba-cache"
    shutil.rmtree(nb, ignore_errors=True)
    case = {"cmds": lambda o: [[_irscales(runs, qrels, depth), o]], "before": lambda: None,
            "env": {**os.environ, "IRSCALES_CACHE": str(work / "cache-first"), "NUMBA_CACHE_DIR": str(nb),
                   "IRSCALES_AHEAD": "0"}}
    return measure(case, work / "out-first")


# ------------------------------------------------------------------------------------------ synthetic set


def synthetic(directory: Path, runs: int = 500, topics: int = 250, docs: int = 1000, seed: int = 0) -> tuple[Path, Path]:
    """A **synthetic (generated, not real)** set: ``runs`` runs × ``topics`` topics × ``docs`` documents drawn
    from a pool of 5,000 per topic (runs overlap, as real runs do), scores descending with 1 in 10 tied
    with the one above, and qrels of 400 judged documents per topic (grades 0-2, about 1 in 5 relevant).
    Lines have fixed-width fields, written with numpy (about a minute per 100 runs)."""
    rundir, qrels = directory / "runs", directory / "qrels.txt"
    done = directory / "complete"
    if done.exists():
        return rundir, qrels
    rundir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    pool = rng.choice(10**7, size=(topics, 5000), replace=False) if topics * 5000 <= 10**7 else \
        rng.integers(0, 10**7, (topics, 5000))
    tnames = np.arange(1001, 1001 + topics)
    judged = pool[:, :400]
    grade = rng.choice(3, size=judged.shape, p=[0.8, 0.12, 0.08])
    with open(qrels, "w") as fh:
        for t, row, g in zip(tnames, judged, grade):
            fh.writelines(f"{t} 0 D{d:07d} {x}\n" for d, x in zip(row.tolist(), g.tolist()))
    for s in range(runs):
        pick = rng.permuted(pool, axis=1)[:, :docs]  # (topics, docs)
        step = rng.integers(1, 40, (topics, docs))
        step[rng.random((topics, docs)) < 0.1] = 0  # ties with the document above
        score = 999_999 - np.cumsum(step, axis=1)  # ten-thousandths, descending
        rank = np.tile(np.arange(1, docs + 1), (topics, 1))
        _write_fixed(rundir / f"input.synth{s:03d}", np.repeat(tnames, docs), pick.ravel(), rank.ravel(),
                     score.ravel(), f"synth{s:03d}")
    done.write_text("ok\n")
    return rundir, qrels


def _digits(x: np.ndarray, width: int) -> np.ndarray:
    """(n, width) ASCII digits of non-negative integers, zero-padded."""
    p = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return (48 + (x[:, None] // p) % 10).astype(np.uint8)


def _write_fixed(path: Path, topic, doc, rank, score, tag: str) -> None:
    """Lines ``TTTT Q0 DNNNNNNN RRRR SS.SSSS tag`` (fixed widths) written as one byte matrix."""
    n = len(topic)
    parts = [_digits(topic, 4), np.frombuffer(b" Q0 D", np.uint8)[None].repeat(n, 0), _digits(doc, 7),
             np.full((n, 1), 32, np.uint8), _digits(rank, 4), np.full((n, 1), 32, np.uint8),
             _digits(score // 10000, 2), np.full((n, 1), 46, np.uint8), _digits(score % 10000, 4),
             np.frombuffer(f" {tag}\n".encode(), np.uint8)[None].repeat(n, 0)]
    path.write_bytes(np.concatenate(parts, axis=1).tobytes())


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--synthetic", type=Path, help="folder of the synthetic set (generated there if absent)")
    ap.add_argument("--quick", action="store_true", help="20 T08 runs, one repetition, no synthetic set")
    ap.add_argument("--baseline", type=Path, help="the src folder of another checkout (e.g. main before a change): "
                    "its irscales is measured too, on the TREC-8 runs")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeats, args.synthetic = 1, None
    load0 = os.getloadavg()
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shared = Path(os.environ.get("IRSCALES_SHARED") or HERE.parent.parent / "shared")
    t08 = shared / "trec" / "T08"
    print(f"# irscales against trec_eval, pytrec_eval, ir_measures, ranx — {stamp}\n")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs ({_cpu()}), {_ram()}, {platform.python_implementation()} "
          f"{platform.python_version()}, numpy {np.__version__}; load average {load0[0]:.2f} / {load0[1]:.2f} at the "
          "start\n")
    missing = [n for n, m in (("trec_eval", None), ("pytrec_eval", "pytrec_eval"), ("ir_measures", "ir_measures"),
                              ("ranx", "ranx")) if (shutil.which(n) is None if m is None else not _have(m))]
    if missing:
        print(f"not measured (not installed / not on PATH): {', '.join(missing)}\n")
    with tempfile.TemporaryDirectory(prefix="irscales-peers-") as tmp:
        tmp = Path(tmp)
        t08_result = None
        if (t08 / "runs").is_dir():
            runs, gz = gunzipped(t08 / "runs", tmp / "t08" / "runs", 20 if args.quick else None)
            qrels = tmp / "t08" / "qrels.txt"
            qrels.write_bytes(gzip.decompress((t08 / "qrels.trec8.adhoc.gz").read_bytes()))
            n_lines = sum(f.read_bytes().count(b"\n") for f in runs.iterdir())
            text = _du(runs)
            results, notes = run_set("T08", runs, qrels, 1000, args.repeats, tmp / "t08", baseline=args.baseline)
            first = first_call(runs, qrels, 1000, tmp / "t08")
            cache = _du(tmp / "t08" / "cache-warm-i")
            n_runs = len(list(runs.iterdir()))
            print(f"## {n_runs} real TREC-8 ad hoc runs: {n_lines:,} lines, {text / 2**20:.0f} MiB of run text "
                  f"({gz / 2**20:.0f} MiB gzipped); medians of {args.repeats}, interleaved\n")
            print(table(results, notes, "whole process"))
            print(f"\nirscales' first call with nothing compiled (numba compiles the reader, then reads cold): "
                  f"{first['wall']:.2f} s wall, {first['cpu']:.2f} s CPU, {first['rss']:,.0f} MiB peak.")
            print(f"Cache of judged runs after the calls: {cache / 2**20:.2f} MiB, {cache / gz:.1%} of the gzipped runs "
                  f"({gz / 2**20:.0f} MiB).")
            print(f"Peak memory of irscales cold: {statistics.median(r['rss'] for r in results['irscales cold']):,.0f} MiB "
                  f"for {text / 2**20:.0f} MiB of run text.\n")
            t08_result = ({k: v for k, v in results.items() if not k.startswith("baseline")}, n_lines, text)
        else:
            print(f"(the TREC-8 runs are not under {t08}: that table is skipped)\n")
        if args.synthetic:
            t0 = time.perf_counter()
            runs, qrels = synthetic(args.synthetic)
            made = time.perf_counter() - t0
            n_lines, text = 125_000_000, _du(runs)
            fastest = None
            if t08_result:
                peers = {k: statistics.median(r["wall"] for r in v) for k, v in t08_result[0].items()
                         if not k.startswith(("irscales", "baseline"))}
                fastest = min(peers, key=peers.get) if peers else None
            work = tmp / "synthetic"
            results, notes = run_set("synthetic", runs, qrels, 1000, 1, work, only={fastest} if fastest else set())
            cache = _du(work / "cache-warm-i")
            gz_sample = sum(len(gzip.compress(f.read_bytes(), 6)) for f in sorted(runs.iterdir())[:10])
            gz = gz_sample * len(list(runs.iterdir())) / 10
            print(f"## Synthetic (generated, not real) set: 500 runs × 250 topics × 1,000 documents, {n_lines:,} lines, "
                  f"{text / 2**30:.1f} GiB of run text (generated in {made:.0f} s{' earlier' if made < 1 else ''}); "
                  "one measurement each\n")
            print(table(results, notes, "whole process"))
            print(f"\nCache of judged runs: {cache / 2**20:.1f} MiB; the gzipped runs ≈ {gz / 2**30:.2f} GiB (10 files "
                  "gzipped, × 50).")
            if t08_result:
                base, l8, t8 = t08_result
                print(f"\nGrowth from the 129 × 50 TREC-8 runs ({n_lines / l8:.1f}× the lines, "
                      f"{text / t8:.1f}× the text):\n")
                print("| case | time × | peak memory × |\n|---|---:|---:|")
                for k, v in results.items():
                    b = {x: statistics.median(r[x] for r in base[k]) for x in ("wall", "rss")}
                    print(f"| {k} | {v[0]['wall'] / b['wall']:.1f}× | {v[0]['rss'] / b['rss']:.1f}× |")
    load1 = os.getloadavg()
    print(f"\nload average {load1[0]:.2f} / {load1[1]:.2f} at the end "
          f"({'a busy machine: wall times are upper bounds' if max(load0[0], load1[0]) > 1.2 else 'an idle machine'})")
    return 0


def _cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _ram() -> str:
    try:
        return f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB RAM"
    except (ValueError, OSError):
        return "? RAM"


if __name__ == "__main__":
    sys.exit(main())
