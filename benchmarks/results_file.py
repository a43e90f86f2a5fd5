"""The file a benchmark script writes: ``{"commands", "machine", "rows"}``, the command that made
it, the machine it ran on and its rows (``benchmarks/results/*.json``)."""

from __future__ import annotations

import json
import os
import platform

import jax


def write(out: str, script: str, argv: list[str], rows: list[dict]) -> None:
  """Write ``rows`` to ``out`` with the command ``python benchmarks/<script> <argv>``."""
  machine = {"backend": jax.default_backend(), "device": jax.devices()[0].device_kind,
             "cpu_count": os.cpu_count(), "jax": jax.__version__,
             "python": platform.python_version()}
  os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
  with open(out, "w") as f:
    command = " ".join([f"python benchmarks/{script}", *argv])
    json.dump({"commands": [command], "machine": machine, "rows": rows}, f, indent=1)
