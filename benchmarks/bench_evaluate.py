"""The one call and the comparison report on a TREC track, side by side with the same work in ranx (issue 28).

Each step runs in its own process, so its wall time includes Python's start and imports and its peak memory
is the process's own (``VmHWM``; the runs and qrels are read as plain files, gunzipped first):

* irscales ``evaluate`` plain at depth 1000 (AP, P@10, nDCG@10, RR), cold (empty parsed-run cache) and warm;
* the same with interval-scaled values at depth 20 (``ranked=True``);
* ``Evaluation.compare`` (paired t tests, Holm, every pair) at depth 20, original and interval scale;
* ranx: ``Qrels.from_file`` + ``Run.from_file`` for every run, ``evaluate`` with the same four measures, and
  ``compare`` (Student's t, Holm) — when ranx is installed (it is not a dependency: ``pip install ranx``);
  otherwise the rows say it was skipped.

The track: ``--trec DIR`` (a folder with ``runs/`` and one ``qrels*`` file), default the real TREC-8 runs
under ``IRSCALES_TREC`` / ``IRSCALES_SHARED/trec`` (129 runs × 50 topics); without them the script says so
and stops. ``--runs K`` uses the first K runs only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

MEASURES = "AP,P@10,nDCG@10,RR"
RANX_METRICS = ["map@1000", "precision@10", "ndcg@10", "mrr@1000"]

STEP = textwrap.dedent("""
    import json, resource, sys, time
    t0 = time.perf_counter()
    kind, runs, qrels, cache = sys.argv[1], sys.argv[2:-2], sys.argv[-2], sys.argv[-1]
    out = {}
    if kind.startswith("irscales"):
        import os
        os.environ["IRSCALES_CACHE"] = cache
        from irscales import evaluate
        if kind == "irscales-plain":
            ev = evaluate(qrels, runs, "%(m)s", depth=1000, progress=False)
            out["means"] = ev.means().shape[0]
        elif kind == "irscales-interval":
            ev = evaluate(qrels, runs, "%(m)s", depth=20, ranked=True, progress=False)
            out["means"] = ev.means().shape[0]
        else:
            ev = evaluate(qrels, runs, "%(m)s", depth=20, ranked=True, progress=False)
            t = ev.compare(test="t", correction="holm")
            out["pairs"] = len(t.pairs)
    else:
        from ranx import Qrels, Run, compare, evaluate as rx_evaluate
        q = Qrels.from_file(qrels, kind="trec")
        rs = []
        for i, f in enumerate(runs):
            r = Run.from_file(f, kind="trec"); r.name = f"r{i}"; rs.append(r)
        if kind == "ranx-evaluate":
            out["n"] = len([rx_evaluate(q, r, %(rx)r) for r in rs])
        else:
            rep = compare(q, rs, metrics=%(rx)r, stat_test="student", max_p=0.05, make_comparable=True)
            out["n"] = len(rep.model_names)
    out["seconds"] = time.perf_counter() - t0
    try:  # the process's own high-water mark (ru_maxrss can carry the parent's across fork + exec)
        out["peak_mb"] = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
""") % {"m": MEASURES, "rx": RANX_METRICS}


def _track(args) -> tuple[list[str], str] | None:
    if args.trec:
        d = Path(args.trec)
    else:
        from irscales import paths

        t = paths.trec_track("T08")
        if t is None:
            return None
        d = t.runs.parent
    runs = sorted(str(p) for p in (d / "runs").iterdir())
    qrels = [p for p in d.iterdir() if p.name.lower().startswith("qrels")]
    return runs[: args.runs] if args.runs else runs, str(qrels[0])


def _plain(runs: list[str], qrels: str, dst: Path) -> tuple[list[str], str]:
    """Plain copies of gzipped run and qrels files (others are used where they are)."""
    dst.mkdir(parents=True, exist_ok=True)
    out = []
    for f in [*runs, qrels]:
        raw = Path(f).read_bytes()
        if raw[:2] != b"\x1f\x8b":
            out.append(f)
            continue
        plain = dst / Path(f).name.removesuffix(".gz")
        plain.write_bytes(gzip.decompress(raw))
        out.append(str(plain))
    return out[:-1], out[-1]


def _step(kind: str, runs: list[str], qrels: str, cache: str, files: list[str]) -> dict:
    p = subprocess.run([sys.executable, "-c", STEP, kind, *runs, qrels, cache], capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trec", help="a track folder with runs/ and a qrels file (default: the real TREC-8 runs)")
    ap.add_argument("--runs", type=int, default=0, help="use the first K runs only")
    ap.add_argument("--quick", action="store_true", help="the first 10 runs")
    args = ap.parse_args()
    if args.quick and not args.runs:
        args.runs = 10
    found = _track(args)
    if found is None:
        print("no TREC-8 runs here (IRSCALES_TREC or IRSCALES_SHARED/trec): skipped")
        return 0
    runs, qrels = found
    try:
        import ranx  # noqa: F401
        has_ranx = True
    except ImportError:
        has_ranx = False
    cache = tempfile.mkdtemp(prefix="irscales-bench-")
    rows = []
    try:
        runs, qrels = _plain(runs, qrels, Path(cache) / "plain")  # ranx reads no gzip: every tool reads plain files
        steps = [("irscales-plain", "evaluate, depth 1000, cold"), ("irscales-plain", "evaluate, depth 1000, warm"),
                 ("irscales-interval", "evaluate ranked=True, depth 20 (warm)"),
                 ("irscales-compare", "evaluate + compare (t, Holm, all pairs, both scales), depth 20")]
        for kind, what in steps:
            rows.append(("irscales", what, _step(kind, runs, qrels, cache, runs)))
        for kind, what in (("ranx-evaluate", "Qrels/Run.from_file + evaluate, 4 metrics"),
                           ("ranx-compare", "Qrels/Run.from_file + compare (student, Holm), 4 metrics")):
            rows.append(("ranx", what, _step(kind, runs, qrels, cache, runs) if has_ranx else {"error": "ranx not installed"}))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"{len(runs)} runs, {qrels}; each step a fresh process (imports included); load average "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| tool | step | wall s | peak MB |\n|---|---|---:|---:|")
    for tool, what, r in rows:
        if "error" in r:
            print(f"| {tool} | {what} | — | — ({r['error']}) |")
        else:
            print(f"| {tool} | {what} | {r['seconds']:.1f} | {r['peak_mb']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
