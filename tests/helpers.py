"""Shared test helpers: run the launcher as a user would."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main_command(workdir, *overrides, config="configs/grid2d.py:smoke"):
  return [sys.executable, "-m", "learnpe_jax.main", f"--config={config}", f"--workdir={workdir}",
          *map(str, overrides)]


def run_main(workdir, *overrides, config="configs/grid2d.py:smoke", timeout=900):
  """``python -m learnpe_jax.main`` in a subprocess; returns the CompletedProcess."""
  return subprocess.run(main_command(workdir, *overrides, config=config), cwd=ROOT,
                        capture_output=True, text=True, timeout=timeout)


def start_main(workdir, *overrides, config="configs/grid2d.py:smoke"):
  return subprocess.Popen(main_command(workdir, *overrides, config=config), cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
