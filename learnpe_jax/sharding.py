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


def model_mesh(num_models: int, devices=None) -> Mesh:
  devices = list(devices if devices is not None else jax.devices())
  used = max(d for d in range(1, len(devices) + 1) if num_models % d == 0)
  if used < len(devices):
    logging.warning("%d models over %d devices: using %d devices (the largest divisor).",
                    num_models, len(devices), used)
  return Mesh(np.array(devices[:used]), (AXIS,))


def per_model(mesh: Mesh) -> NamedSharding:
  return NamedSharding(mesh, P(AXIS))


def replicated(mesh: Mesh) -> NamedSharding:
  return NamedSharding(mesh, P())
