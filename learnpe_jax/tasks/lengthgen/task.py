"""Length generalisation as a ``TaskData`` (``config.task='lengthgen'``; ``generate`` for the
problems): a causal decoder predicts every next token of  x SEP y  and is scored on the answer y by
exact match, per length n (``level`` = n − 1), trained on n ≤ L and tested on n ≤ 2L.

Tokens are one-hot vectors over the vocabulary (the encoder's linear map embeds them); positions
are the token indices 0..T−1, also given as 1-D coordinates so that coordinate PEs serve them.
``config.data``: ``problem`` (one of ``generate.PROBLEMS``), ``max_train_length`` (L),
``num_train``, ``num_test_per_length``, ``seed``, ``data_dir``.
"""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.errors import ConfigError
from learnpe_jax.positions import Positions
from learnpe_jax.tasks.base import TaskData, generator_params
from learnpe_jax.tasks.lengthgen import generate as gen


def validate_data(d) -> None:
  """The data fields, checked before anything is generated."""
  from learnpe_jax.tasks.lengthgen.tfds_builder import GENERATOR_DEFAULTS
  if d.get("problem") not in gen.PROBLEMS:
    raise ConfigError("data.problem", d.get("problem"), f"one of {', '.join(gen.PROBLEMS)}")
  for field in ("max_train_length", "num_train", "num_test_per_length"):
    value = d.get(field, GENERATOR_DEFAULTS[field])
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
      raise ConfigError(f"data.{field}", value, "an integer ≥ 1")
  longest = 2 * d.get("max_train_length", GENERATOR_DEFAULTS["max_train_length"])
  if d.get("problem") == "lego" and longest > gen.NAMES:
    raise ConfigError("data.max_train_length", longest // 2,
                      f"at most {gen.NAMES // 2} for lego (test lengths to 2L, one of its "
                      f"{gen.NAMES} names per variable)")


def arrays(split: dict[str, np.ndarray], vocab_size: int) -> dict[str, np.ndarray]:
  """Model arrays: ``tokens`` float32 one-hot [S, T, V], ``target`` int32 [S, T], ``loss_mask``
  float32 [S, T] (the answer positions), ``level`` int32 [S]."""
  return {"tokens": np.eye(vocab_size, dtype=np.float32)[split["inputs"]],
          "target": split["target"].astype(np.int32),
          "loss_mask": split["mask"].astype(np.float32),
          "level": split["level"].astype(np.int32)}


def load_task(config) -> TaskData:
  from learnpe_jax.tasks.lengthgen import tfds_builder
  validate_data(config.data)
  params = generator_params(config.data, tfds_builder.GENERATOR_DEFAULTS)
  raw = tfds_builder.load(os.path.expanduser(config.data.data_dir), params)
  num_tokens = raw["train"]["inputs"].shape[1]
  index = np.arange(num_tokens, dtype=np.int32)
  max_length = 2 * params["max_train_length"]
  vocab = gen.vocab_size(params["problem"])
  return TaskData(
      name="lengthgen", kind="sequence", train=arrays(raw["train"], vocab),
      test=arrays(raw["test"], vocab),
      positions=Positions(index=index, coords=index[:, None].astype(np.float32)),
      coords_known=True, num_outputs=vocab,
      level_names=tuple(f"n={n}" for n in range(1, max_length + 1)))
