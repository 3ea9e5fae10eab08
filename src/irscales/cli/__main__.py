"""``python -m irscales.cli``: the ``irscales`` command."""
import sys

from irscales.cli import main

sys.exit(main())
