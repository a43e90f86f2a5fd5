"""Launcher: ``python -m learnpe_jax.main --config=configs/grid2d.py[:variant] --workdir=DIR``.

Overrides: ``--config.model.width=128``, ``--config.sweep.pe_init_scale='(0.1,1.0)'``. Every bad
input (unknown field or PE, value out of range, unusable workdir) exits with status 2 and one line.
"""

import sys

from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags

from learnpe_jax.errors import UserError

_CONFIG = config_flags.DEFINE_config_file("config", None, "Config file, e.g. configs/grid2d.py.",
                                          lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "Directory for checkpoints, metrics and summary.")
flags.mark_flags_as_required(["config", "workdir"])


def _fail(message: str) -> None:
  print(f"error: {message}", file=sys.stderr)
  sys.exit(2)


def parse_flags(argv):
  """absl flag parsing whose errors (e.g. an unknown --config.field) are one line, exit 2."""
  try:
    return flags.FLAGS(argv)
  except flags.Error as e:
    _fail(str(e).splitlines()[0])
  except (KeyError, AttributeError, ValueError, TypeError) as e:
    _fail(f"bad config or override: {str(e).strip(chr(34) + chr(39))}")


class _QuietLibraries:
  """Show INFO lines of learnpe_jax only; libraries (orbax, jax, tfds) speak from WARNING up."""

  def filter(self, record):
    import logging as py_logging
    return record.levelno >= py_logging.WARNING or "learnpe_jax" in record.pathname


def main(argv):
  logging.get_absl_handler().addFilter(_QuietLibraries())
  if len(argv) > 1:
    _fail(f"unexpected arguments {argv[1:]}; use --config.field=value for overrides")
  from learnpe_jax import train  # after flag parsing: keeps `--help` fast
  try:
    train.train_and_evaluate(_CONFIG.value, _WORKDIR.value)
  except UserError as e:
    logging.flush()
    _fail(str(e))


if __name__ == "__main__":
  app.run(main, flags_parser=parse_flags)
