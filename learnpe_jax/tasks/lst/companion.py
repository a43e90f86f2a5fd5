"""The companion's own 9,000 LST training puzzles and its train/test split (``data.generator=
'companion'``).

The files ``tasks/lst/data/generated_puzzle_data_{binary,ternary,quaternary}_dist80.csv`` are the
puzzles the companion's released models were trained and tested on (ljhearne/LSTNN_public,
``processed_data/``, MIT; provenance, checksums and notice in ``tasks/lst/data/README.md``), 3,000 per
level. Every row is checked by ``puzzle_csv.read_puzzles`` (a valid partial Latin square, one
query, an answer consistent with the grid). The level is the companion's ``condition`` column.

The split is the companion's (its ``lstnn/curricula.py``, curriculum "All"): the three files
concatenated in the order binary, ternary, quaternary, then
    train_test_split(range(9000), condition, stratify=condition, test_size=0.1, random_state=42)
(scikit-learn): 8,100 training and 900 test puzzles, 300 per level. The training split keeps the
order that call returns.
"""

from __future__ import annotations

import importlib.resources

import numpy as np
import sklearn.model_selection

from learnpe_jax.tasks.lst import generate as ls

FILES = tuple(f"generated_puzzle_data_{level}_dist80.csv" for level in ls.LEVELS)
NUM_PER_LEVEL = 3000
TEST_FRACTION = 0.1
SPLIT_RANDOM_STATE = 42


def path(file_name: str) -> str:
  return str(importlib.resources.files("learnpe_jax.tasks.lst") / "data" / file_name)


def puzzles() -> dict[str, np.ndarray]:
  """{'grid': int8[9000, 16], 'answer': int8[9000], 'level': int8[9000]}, the three files in order
  binary, ternary, quaternary, each row validated."""
  from learnpe_jax.tasks.lst.puzzle_csv import read_puzzles
  grids, answers, levels = [], [], []
  for level, name in enumerate(FILES):
    data = read_puzzles(path(name))
    wrong = {c for c in data["condition"].tolist() if c.lower() != ls.LEVELS[level]}
    if wrong:
      raise ValueError(f"{name}: condition column holds {sorted(wrong)}, expected "
                       f"{ls.LEVELS[level].capitalize()}")
    grids.append(data["grid"])
    answers.append(data["answer"])
    levels.append(np.full(len(data["answer"]), level, np.int8))
  return {"grid": np.concatenate(grids), "answer": np.concatenate(answers),
          "level": np.concatenate(levels)}


def split_indices(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """(train, test) indices into ``puzzles()``: the companion's stratified split."""
  train, test = sklearn.model_selection.train_test_split(
      np.arange(len(level)), stratify=level, test_size=TEST_FRACTION,
      random_state=SPLIT_RANDOM_STATE)
  return np.asarray(train), np.asarray(test)
