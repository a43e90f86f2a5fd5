"""The model axis sharded over devices: each device trains a contiguous slice of the sweep.

A 1-D ``jax.sharding.Mesh`` named ``models`` spans the largest number of local devices that divides
the number of models (so the state's shapes, and checkpoints, do not depend on the device count;
a sweep of 18 models on 4 devices uses 3). Per-model arrays are sharded along their leading axis,
the dataset and scalars are replicated; XLA partitions the vmapped program (GSPMD) without any
communication between models.
"""

from __future__ import annotations

from absl import logging
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

AXIS = "models"


def model_mesh(num_models: int) -> Mesh:
  devices = jax.devices()
  used = max(d for d in range(1, len(devices) + 1) if num_models % d == 0)
  if used < len(devices):
    logging.warning("%d models over %d devices: using %d devices (the largest divisor).",
                    num_models, len(devices), used)
  return Mesh(np.array(devices[:used]), (AXIS,))


def per_model(mesh: Mesh) -> NamedSharding:
  return NamedSharding(mesh, P(AXIS))


def replicated(mesh: Mesh) -> NamedSharding:
  return NamedSharding(mesh, P())


def to_host(tree):
  """Pull (possibly sharded, possibly multi-process) arrays to numpy on every process."""
  if jax.process_count() > 1:
    from jax.experimental import multihost_utils
    return multihost_utils.process_allgather(tree, tiled=True)
  return jax.device_get(tree)


def any_process(flag: bool) -> bool:
  """True on every process when ``flag`` is True on any of them (one small all-gather when there
  are several processes): how the processes of a job agree to stop at the same step."""
  if jax.process_count() == 1:
    return bool(flag)
  from jax.experimental import multihost_utils
  return bool(np.any(multihost_utils.process_allgather(np.array([int(bool(flag))], np.int32))))


def barrier(name: str) -> None:
  """Wait until every process gets here (nothing with one process)."""
  if jax.process_count() > 1:
    from jax.experimental import multihost_utils
    multihost_utils.sync_global_devices(name)


def is_writer() -> bool:
  """Only process 0 writes files and prints; every process computes and checkpoints."""
  return jax.process_index() == 0


def initialize_distributed(coordinator_address=None, num_processes=None, process_id=None) -> None:
  """``jax.distributed.initialize``: auto-detected on TPU pods and SLURM, or given explicitly
  (e.g. two processes on one machine: ``localhost:12355``, 2, 0|1). On CPU, collectives use gloo."""
  if (jax.config.jax_platforms or "cpu") == "cpu":
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
  jax.distributed.initialize(coordinator_address=coordinator_address, num_processes=num_processes,
                             process_id=process_id)
  logging.info("Process %d of %d; %d local and %d global devices.", jax.process_index(),
               jax.process_count(), jax.local_device_count(), jax.device_count())
