"""The Latin Square Task (LST) of Ito et al. (ICML 2025), DESIGN.md §2.1.

A puzzle is a partial 4×4 Latin square (codes: 0 blank, 1–4 shapes, 5 the query cell "?") whose
query cell has exactly one consistent answer: among all 576 Latin squares of order 4 that agree with
the given cells, every one holds the same shape at "?". The solver labels the reasoning it needs:

  binary      the query's row alone, or its column alone, already holds the other three shapes;
  ternary     not binary, but row and column together exclude three shapes;
  quaternary  row and column together exclude fewer than three; the answer needs cells outside them.

Generation (seeded): draw a random complete square and a query cell, reveal each other cell with a
probability drawn per puzzle from ``reveal_range``, keep the puzzle if its answer is unique and its
level still needs puzzles, drop duplicates. Tokens are the 16 cells in row-major order.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

ORDER = 4
NUM_CELLS = ORDER * ORDER
BLANK, QUERY = 0, 5
LEVELS = ("binary", "ternary", "quaternary")


@functools.lru_cache(maxsize=None)
def all_latin_squares(order: int = ORDER) -> np.ndarray:
  """int8[S, order²]: every Latin square of ``order`` with symbols 1..order (576 for order 4)."""
  perms = [np.array(p, np.int8) + 1 for p in itertools.permutations(range(order))]
  squares = []

  def extend(rows):
    if len(rows) == order:
      squares.append(np.concatenate(rows))
      return
    for p in perms:
      if all((p != r).all() for r in rows):
        extend(rows + [p])

  extend([])
  return np.stack(squares)


def consistent_answers(grid: np.ndarray) -> np.ndarray:
  """The shapes (1..4) that some completion of ``grid`` (int[16] codes) puts at the query cell."""
  squares = all_latin_squares()
  given = (grid >= 1) & (grid <= ORDER)
  match = (squares[:, given] == grid[given]).all(axis=1)
  query = int(np.flatnonzero(grid == QUERY)[0])
  return np.unique(squares[match, query])


def line_shapes(grid: np.ndarray, query: int) -> tuple[set, set]:
  r, c = divmod(query, ORDER)
  g = grid.reshape(ORDER, ORDER)
  keep = lambda xs: {int(x) for x in xs if 1 <= x <= ORDER}
  return keep(g[r]), keep(g[:, c])


def complexity(grid: np.ndarray) -> int:
  """0 binary, 1 ternary, 2 quaternary (module docstring); ``grid`` must have a unique answer."""
  row, col = line_shapes(grid, int(np.flatnonzero(grid == QUERY)[0]))
  if len(row) == ORDER - 1 or len(col) == ORDER - 1:
    return 0
  if len(row | col) == ORDER - 1:
    return 1
  return 2


def random_latin_square(rng: np.random.Generator) -> np.ndarray:
  squares = all_latin_squares()
  return squares[rng.integers(len(squares))]


def generate(num_per_level: int = 3000, seed: int = 0, reveal_range=(0.25, 0.9),
             max_tries: int = 10_000_000) -> dict[str, np.ndarray]:
  """``num_per_level`` unique puzzles per level: {'grid': int8[S,16], 'answer': int8[S] (1..4),
  'level': int8[S]}, levels in blocks (binary first)."""
  rng = np.random.default_rng(seed)
  found = [dict() for _ in LEVELS]
  for _ in range(max_tries):
    if all(len(f) >= num_per_level for f in found):
      break
    square = random_latin_square(rng)
    query = rng.integers(NUM_CELLS)
    reveal = rng.random(NUM_CELLS) < rng.uniform(*reveal_range)
    grid = np.where(reveal, square, BLANK).astype(np.int8)
    grid[query] = QUERY
    if len(consistent_answers(grid)) != 1:
      continue
    level = complexity(grid)
    key = grid.tobytes()
    if len(found[level]) < num_per_level and key not in found[level]:
      found[level][key] = square[query]
  else:
    raise RuntimeError(f"could not find {num_per_level} puzzles per level in {max_tries} tries")
  grids, answers, levels = [], [], []
  for level, puzzles in enumerate(found):
    for key, answer in puzzles.items():
      grids.append(np.frombuffer(key, np.int8))
      answers.append(answer)
      levels.append(level)
  return {"grid": np.stack(grids), "answer": np.array(answers, np.int8),
          "level": np.array(levels, np.int8)}


def stratified_split(levels: np.ndarray, test_fraction: float, seed: int) -> np.ndarray:
  """bool[S]: True for test examples; ``test_fraction`` of every level, chosen at random."""
  rng = np.random.default_rng(seed)
  is_test = np.zeros(len(levels), bool)
  for level in np.unique(levels):
    idx = rng.permutation(np.flatnonzero(levels == level))
    is_test[idx[:int(round(test_fraction * len(idx)))]] = True
  return is_test


def encode_tokens(grid: np.ndarray) -> np.ndarray:
  """float32[..., 16, 5]: one-hot of the 4 shapes and "?"; a blank cell is all zeros."""
  return (grid[..., None] == np.arange(1, 6)).astype(np.float32)
