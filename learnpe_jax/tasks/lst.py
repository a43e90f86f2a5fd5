"""The LST as a ``TaskData``: tokens, targets, levels and the 4×4 grid positions."""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.positions import grid_positions
from learnpe_jax.tasks import latin_square as ls
from learnpe_jax.tasks.base import TaskData


def arrays_from_grids(grid: np.ndarray, answer: np.ndarray, level: np.ndarray,
                      cell_order: np.ndarray | None = None) -> dict[str, np.ndarray]:
  """Model arrays from puzzle codes; ``cell_order`` permutes the tokens (a fixed scrambled order)."""
  if cell_order is not None:
    grid = grid[:, cell_order]
  return {"tokens": ls.encode_tokens(grid),
          "target": (answer.astype(np.int32) - 1),
          "level": level.astype(np.int32),
          "query_index": np.argmax(grid == ls.QUERY, axis=1).astype(np.int32)}


def cell_order_of(config) -> np.ndarray | None:
  """A fixed permutation of the 16 cells when ``data.scramble_cells``; tokens follow that order."""
  if not config.data.get("scramble_cells", False):
    return None
  return np.random.default_rng(config.data.scramble_seed).permutation(ls.NUM_CELLS)


def load_task(config) -> TaskData:
  from learnpe_jax.tasks import latin_square_tfds
  data_dir = os.path.expanduser(config.data.data_dir)
  raw = latin_square_tfds.load(data_dir, config.data.num_per_level, config.data.seed,
                               config.data.test_fraction)
  order = cell_order_of(config)
  positions = grid_positions((ls.ORDER, ls.ORDER))
  if order is not None:
    positions = positions.replace(coords=positions.coords[order], grid_shape=None)
  return TaskData(
      name="lst", kind="classification",
      train=arrays_from_grids(**raw["train"], cell_order=order),
      test=arrays_from_grids(**raw["test"], cell_order=order),
      positions=positions, coords_known=True, num_outputs=ls.ORDER, level_names=ls.LEVELS)
