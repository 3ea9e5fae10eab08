"""The tables a test run wrote into its own figures folder are the committed ones (issue 52).

``make test`` runs every notebook into a temporary folder, then the notebooks that read data again with every data
setting hidden (they fall back to their simulated inputs) into another; after each pass, each CSV there that the
repository also commits under ``figures/`` must be the same bytes, or the committed file is stale (the code changed and the
table was not regenerated: ``make reproduce`` would rewrite it). A CSV the repository does not commit is
ignored.

    python scripts/figures_match.py WRITTEN_FIGURES [COMMITTED_FIGURES]
"""

from __future__ import annotations

import sys
from pathlib import Path


def mismatches(written: Path, committed: Path) -> tuple[list[str], int]:
    """The CSVs under ``written`` whose committed namesake differs, and how many were compared."""
    differ, compared = [], 0
    for f in sorted(written.rglob("*.csv")):
        twin = committed / f.relative_to(written)
        if twin.is_file():
            compared += 1
            if f.read_bytes() != twin.read_bytes():
                differ.append(str(f.relative_to(written)))
    return differ, compared


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    written = Path(argv[0])
    committed = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "figures"
    if not written.is_dir():
        print(f"figures_match: {written}: no such folder (nothing was written)", file=sys.stderr)
        return 0
    differ, compared = mismatches(written, committed)
    if differ:
        print(f"figures_match: {len(differ)} of {compared} committed tables differ from what the notebooks write "
              "now (regenerate them: make reproduce FULL=False without the shared folder, then commit):",
              file=sys.stderr)
        for name in differ:
            print(f"  figures/{name}", file=sys.stderr)
        return 1
    print(f"figures_match: the {compared} committed tables this pass wrote again are the same bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
