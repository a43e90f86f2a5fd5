"""The LST as a ``TaskData``: tokens, targets, levels and the 4×4 grid positions.

Data (``config.data``): ``generator`` 'reveal' (this project's generator), 'pluck' (the companion
code's way of making puzzles; ``tasks/lst/generate.py``), each ``num_per_level`` puzzles per level
and a 90/10 split, or 'companion' (the companion's own 9,000 puzzles and split, shipped;
``tasks/lst/companion.py``; ``num_per_level`` and ``test_fraction`` must stay 3000 and 0.1,
``seed`` is unused). Beside the test split every eval scores ``eval_puzzles``: 'human' (default) = the 108 puzzles
of the study's human fMRI experiment, shipped in ``tasks/lst/data/lst_human_108.csv`` (MIT, the
companion repository ljhearne/LSTNN_public; provenance in ``tasks/lst/data/README.md``), out of
distribution for every model; a path = a user's puzzle CSV (``tasks/lst/puzzle_csv.py``) scored as the
set ``puzzles``; '' = none.
"""

from __future__ import annotations

import importlib.resources
import os

import numpy as np

from learnpe_jax.errors import ConfigError
from learnpe_jax.positions import grid_positions
from learnpe_jax.tasks.base import TaskData
from learnpe_jax.tasks.lst import generate as ls
from learnpe_jax.tasks.lst.generate import GENERATORS


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
  if not config.data.scramble_cells:
    return None
  return np.random.default_rng(config.data.scramble_seed).permutation(ls.NUM_CELLS)


HUMAN_PUZZLES = "lst_human_108.csv"


def human_puzzles_path() -> str:
  """The shipped CSV of the 108 human-experiment puzzles (36 unique × 3 rotations)."""
  return str(importlib.resources.files("learnpe_jax.tasks.lst") / "data" / HUMAN_PUZZLES)


def eval_puzzle_set(eval_puzzles: str) -> tuple[str, str] | None:
  """(set name, CSV path) of ``data.eval_puzzles``: ('human', shipped file), ('puzzles', a user's
  file), or None for ''."""
  if not eval_puzzles:
    return None
  if eval_puzzles == "human":
    return "human", human_puzzles_path()
  return "puzzles", os.path.expanduser(eval_puzzles)


def puzzle_arrays(path: str, cell_order=None) -> dict[str, np.ndarray]:
  """Model arrays of a puzzle CSV; its ``condition`` column gives the level when every value names
  one (binary/ternary/quaternary, any case), else every puzzle gets level −1 (overall score only)."""
  from learnpe_jax.tasks.lst.puzzle_csv import read_puzzles
  puzzles = read_puzzles(path)
  names = [c.lower() for c in puzzles["condition"].tolist()]
  if all(n in ls.LEVELS for n in names):
    level = np.array([ls.LEVELS.index(n) for n in names], np.int32)
  else:
    level = np.full(len(names), -1, np.int32)
  return arrays_from_grids(puzzles["grid"], puzzles["answer"], level, cell_order=cell_order)


def validate_data(d) -> None:
  """The LST's data fields, checked before any puzzle is generated."""
  if d.generator not in GENERATORS:
    raise ConfigError("data.generator", d.generator, f"one of {', '.join(GENERATORS)}")
  if d.generator == "companion":  # the companion's fixed files and split
    from learnpe_jax.tasks.lst import companion
    for field, fixed in (("num_per_level", companion.NUM_PER_LEVEL),
                         ("test_fraction", companion.TEST_FRACTION)):
      if d[field] != fixed:
        raise ConfigError(f"data.{field}", d[field],
                          f"{fixed} with data.generator='companion' (its files and split are "
                          "fixed)")
  path = d.eval_puzzles
  if not isinstance(path, str):
    raise ConfigError("data.eval_puzzles", path, "'human', '' or the path of a puzzle CSV")
  if path not in ("", "human") and not os.path.isfile(os.path.expanduser(path)):
    raise ConfigError("data.eval_puzzles", path,
                      "'human' (the shipped 108 puzzles), '' (none) or an existing puzzle CSV")


def load_task(config) -> TaskData:
  from learnpe_jax.tasks.lst import tfds_builder
  validate_data(config.data)
  data_dir = os.path.expanduser(config.data.data_dir)
  raw = tfds_builder.load(data_dir, config.data.num_per_level, config.data.seed,
                          config.data.test_fraction, generator=config.data.generator)
  order = cell_order_of(config)
  extra = eval_puzzle_set(config.data.eval_puzzles)
  extra_eval = {} if extra is None else {extra[0]: puzzle_arrays(extra[1], order)}
  positions = grid_positions((ls.ORDER, ls.ORDER))
  if order is not None:
    positions = positions.replace(coords=positions.coords[order], grid_shape=None)
  return TaskData(
      name="lst", kind="classification",
      train=arrays_from_grids(**raw["train"], cell_order=order),
      test=arrays_from_grids(**raw["test"], cell_order=order),
      positions=positions, coords_known=True, num_outputs=ls.ORDER, level_names=ls.LEVELS,
      extra_eval=extra_eval)
