"""Shared launcher helpers of ``analyze`` and ``evaluate`` (the same conventions as ``main``):
one-line errors with exit status 2, and INFO logging from learnpe_jax only."""

from __future__ import annotations

import logging as py_logging
import sys

from absl import flags
from absl import logging


def fail(message: str) -> None:
  print(f"error: {message}", file=sys.stderr)
  sys.exit(2)


def parse_flags(argv):
  """absl flag parsing whose errors are one line, exit 2."""
  try:
    return flags.FLAGS(argv)
  except flags.Error as e:
    fail(str(e).splitlines()[0])


class QuietLibraries:
  """Show INFO lines of learnpe_jax only; libraries (orbax, jax, tfds) speak from WARNING up."""

  def filter(self, record):
    return record.levelno >= py_logging.WARNING or "learnpe_jax" in record.pathname


def quiet_libraries() -> None:
  logging.get_absl_handler().addFilter(QuietLibraries())
