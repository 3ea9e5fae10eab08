"""Every pytest run in this checkout — the tests, nbval on the stored notebooks, or nbval on one notebook alone —
writes its figures and tables into a temporary folder of the session, never into the tracked ``figures/``
(issue 52: ``make test`` leaves ``git status`` as it found it; the Makefile checks that).

``IRSCALES_FIGURES`` is set before any test or notebook kernel starts (kernels inherit it, so do pytest-xdist
workers); a value already set is kept (``make test``'s fresh-clone pass sets its own). The folder is named
``figures`` because notebooks print what they wrote relative to its parent's parent (``wrote figures/fff21/…``),
and nbval compares that text. Tests that read the committed tables read ``repo_root() / "figures"``.
"""

import os
import shutil
import tempfile
from pathlib import Path


def pytest_configure(config):
    if os.environ.get("IRSCALES_FIGURES"):
        return
    session = Path(tempfile.mkdtemp(prefix="irscales-test-"))
    os.environ["IRSCALES_FIGURES"] = str(session / "figures")
    config.add_cleanup(lambda: shutil.rmtree(session, ignore_errors=True))
