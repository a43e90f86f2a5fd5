"""``python -m experiments.claims --all``: every claim, then RESULTS.md (``suite``)."""

import sys

from experiments.claims import suite

sys.exit(suite.main())
