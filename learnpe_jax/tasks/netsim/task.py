"""Experiment 2 as a ``TaskData``: the network simulation (``generate``, cached by
``tfds_builder``) with hidden node positions (docs/design.md, "The network simulation").

Activity is scaled by one scalar (the sd of the training trajectories), so targets have unit
variance. Tokens are nodes, one scalar per node embedded by the encoder's linear map; the task is
``data.mode`` 'next_step' or 'masked' (``timeseries``). Generalisation: the test split is made of
held-out trajectories run from fresh noise and fresh initial states (same W and b). True
coordinates and module labels ship with the dataset.
"""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.positions import Positions
from learnpe_jax.tasks.base import TaskData, generator_params
from learnpe_jax.tasks.netsim.generate import GENERATOR_DEFAULTS
from learnpe_jax.tasks.timeseries import make_split, target_variance


def load_task(config) -> TaskData:
  # tensorflow_datasets only when data are loaded
  from learnpe_jax.tasks.netsim import tfds_builder
  d = config.data
  p = generator_params(d, GENERATOR_DEFAULTS)
  raw = tfds_builder.load(os.path.expanduser(d.data_dir), p)
  scale = float(np.std(raw["train"])) or 1.0
  rng = np.random.default_rng(p["seed"] + 1)
  mode = d.get("mode", "next_step")
  splits = {name: make_split(raw[name] / scale, mode, d.get("context_steps", 1),
                             d.get("mask_fraction", 0.25), rng,
                             d.get(f"max_{name}_examples", 0))
            for name in ("train", "test")}
  modules = raw["modules"] if raw["modules"].min() >= 0 else None
  coords = raw["coords"]
  return TaskData(
      name="netsim", kind="regression", train=splits["train"], test=splits["test"],
      positions=Positions(index=np.arange(len(coords), dtype=np.int32), coords=coords),
      coords_known=bool(d.get("coords_known", True)), num_outputs=1, level_names=("all",),
      modules=modules, target_variance=target_variance(splits["test"]))
