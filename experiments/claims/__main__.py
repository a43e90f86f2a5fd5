"""``python -m experiments.claims --all``: every claim, then RESULTS.md (``suite``)."""

from __future__ import annotations

import sys

from experiments.claims import suite

sys.exit(suite.main())
