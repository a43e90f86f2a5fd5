"""Launcher: ``python -m learnpe_jax.main --config=configs/grid2d.py[:variant] --workdir=DIR``.

Overrides: ``--config.model.width=128``, ``--config.sweep.pe_init_scale='(0.1,1.0)'``. Every bad
input (unknown field or PE, value out of range, unusable workdir) exits with status 2 and one line.
"""

import sys

from absl import app
from absl import flags
from ml_collections import config_flags

from learnpe_jax import cli
from learnpe_jax.run.preemption import Preempted

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


def main(argv):
  cli.start(argv, hint="; use --config.field=value for overrides")
  from learnpe_jax.training import loop  # after flag parsing: keeps `--help` fast
  if _DISTRIBUTED.value:
    from learnpe_jax.training import sharding
    sharding.initialize_distributed(_COORDINATOR.value, _NUM_PROCESSES.value, _PROCESS_ID.value)
  try:
    config = _CONFIG.value
    config.get("task")  # config_flags reports a missing or broken file only on first use
  except OSError as e:
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    cli.fail(f"cannot load --config: {lines[-1]}")
  try:
    with cli.user_errors():
      loop.train_and_evaluate(config, _WORKDIR.value)
  except Preempted as e:
    print(f"stopped: {e}", file=sys.stderr)
    sys.exit(143)


if __name__ == "__main__":
  app.run(main, flags_parser=cli.parse_flags)
