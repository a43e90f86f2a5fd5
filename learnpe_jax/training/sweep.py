"""The model axis: which hyperparameters vary per model, and their per-model arrays.

The models of a run are the product ``sweep.pe_init_scale × sweep.seeds [× sweep.learning_rate]``
(σ outermost, seed innermost). Every per-model scalar is an array with a leading model axis, so one
compiled program trains them all (``jax.vmap``). A model's randomness comes only from its seed: its
parameters (the PE's unit draw included) from ``fold_in(PRNGKey(seed), 0)`` and its batches from
``fold_in(PRNGKey(seed), 1)``. Two models with the same seed and different σ therefore start from the
same unit draw and see the same batches, which isolates the effect of σ.
"""

from __future__ import annotations

import dataclasses
import itertools

import jax
import numpy as np


@dataclasses.dataclass(frozen=True)
class ModelAxis:
  records: tuple[dict, ...]  # one dict per model: {'pe_init_scale', 'seed', 'learning_rate'}

  @property
  def size(self) -> int:
    return len(self.records)

  def array(self, field: str, dtype=np.float32) -> np.ndarray:
    return np.array([r[field] for r in self.records], dtype)

  def keys(self, stream: int) -> jax.Array:
    """uint32[M, 2]: per-model PRNG keys of stream 0 (init) or 1 (data)."""
    return jax.vmap(lambda s: jax.random.fold_in(jax.random.PRNGKey(s), stream))(
        self.array("seed", np.uint32))


def model_axis(config) -> ModelAxis:
  learning_rates = list(config.sweep.learning_rate or [config.optim.learning_rate])
  records = tuple(
      {"pe_init_scale": float(s), "seed": int(seed), "learning_rate": float(lr)}
      for s, lr, seed in itertools.product(config.sweep.pe_init_scale, learning_rates,
                                           config.sweep.seeds))
  return ModelAxis(records)
