"""Test-session settings. The library has no default for IRSCALES_SHARED (a user's clone needs nothing
beside it); a developer's or CI's checkout with the project's shared folder beside it runs the
optional real-data tests against it. Every such test skips with a one-line reason when it is absent."""

import os
from pathlib import Path

_BESIDE = Path(__file__).resolve().parents[2] / "shared"

if "IRSCALES_SHARED" not in os.environ and "IRSCALES_TREC" not in os.environ and (_BESIDE / "trec").is_dir():
    os.environ["IRSCALES_SHARED"] = str(_BESIDE)
