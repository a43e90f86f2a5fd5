"""Launcher: ``python -m learnpe_jax.main --config=configs/grid2d.py[:variant] --workdir=DIR``.

Overrides: ``--config.model.width=128``, ``--config.sweep.pe_init_scale='(0.1,1.0)'``. Every bad
input (unknown field or PE, value out of range, unusable workdir) exits with status 2 and one line.
"""

import re
import sys

from absl import app
from absl import flags
from absl import logging
from ml_collections import config_flags

from learnpe_jax.errors import UserError
from learnpe_jax.preemption import Preempted

_CONFIG = config_flags.DEFINE_config_file("config", None, "Config file, e.g. configs/grid2d.py.",
                                          lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "Directory for checkpoints, metrics and summary.")
_DISTRIBUTED = flags.DEFINE_bool(
    "distributed", False, "Call jax.distributed.initialize() first (TPU pods and SLURM are "
    "auto-detected; elsewhere give the three flags below). Every process runs the same command.")
_COORDINATOR = flags.DEFINE_string("coordinator_address", None, "host:port of process 0.")
_NUM_PROCESSES = flags.DEFINE_integer("num_processes", None, "Number of processes.")
_PROCESS_ID = flags.DEFINE_integer("process_id", None, "This process's index.")
flags.mark_flags_as_required(["config", "workdir"])


def _fail(message: str) -> None:
  print(f"error: {message}", file=sys.stderr)
  sys.exit(2)


def _unknown_field_message(text: str, argv) -> str:
  """'unknown config field model.widht (did you mean "width"?)' from ml_collections' KeyError."""
  suggestion = re.search(r'Did you mean \\?"(\w+)\\?" instead of \\?"(\w+)', text)
  key = re.search(r"""Key \\?["'](\w+)|^\W*(\w+)""", text)
  field = suggestion.group(2) if suggestion else (key.group(1) or key.group(2)) if key else "?"
  flag = next((a.split("=")[0].lstrip("-") for a in argv[1:]
               if a.split("=")[0].endswith(f".{field}")), field)
  hint = f' (did you mean "{suggestion.group(1)}"?)' if suggestion else ""
  return f"unknown config field {flag.removeprefix('config.')}{hint}"


def parse_flags(argv):
  """absl flag parsing whose errors (e.g. an unknown --config.field) are one line, exit 2."""
  try:
    return flags.FLAGS(argv)
  except flags.Error as e:
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    # A config file's own exception is the last line of a traceback-shaped message.
    _fail(lines[-1] if len(lines) > 1 and "Traceback" in str(e) else lines[0])
  except (KeyError, AttributeError) as e:
    _fail(_unknown_field_message(str(e), argv))
  except (ValueError, TypeError) as e:
    _fail(f"bad config override: {' '.join(str(e).split())}")


class _QuietLibraries:
  """Show INFO lines of learnpe_jax only; libraries (orbax, jax, tfds) speak from WARNING up."""

  BENIGN = ("Using custom data configuration",)  # tfds, for every generated dataset variant

  def filter(self, record):
    import logging as py_logging
    if str(record.msg).startswith(self.BENIGN):
      return False
    if "orbax" in record.pathname:  # checkpoint problems surface as our own one-line errors
      return record.levelno >= py_logging.CRITICAL
    return record.levelno >= py_logging.WARNING or "learnpe_jax" in record.pathname


def main(argv):
  logging.get_absl_handler().addFilter(_QuietLibraries())
  if len(argv) > 1:
    _fail(f"unexpected arguments {argv[1:]}; use --config.field=value for overrides")
  from learnpe_jax import train  # after flag parsing: keeps `--help` fast
  if _DISTRIBUTED.value:
    from learnpe_jax import sharding
    sharding.initialize_distributed(_COORDINATOR.value, _NUM_PROCESSES.value, _PROCESS_ID.value)
  try:
    config = _CONFIG.value
    config.get("task")  # config_flags reports a missing or broken file only on first use
  except OSError as e:
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    _fail(f"cannot load --config: {lines[-1]}")
  try:
    train.train_and_evaluate(config, _WORKDIR.value)
  except UserError as e:
    logging.flush()
    _fail(str(e))
  except Preempted as e:
    print(f"stopped: {e}", file=sys.stderr)
    sys.exit(143)


if __name__ == "__main__":
  app.run(main, flags_parser=parse_flags)
