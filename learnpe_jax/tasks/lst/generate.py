"""The Latin Square Task (LST) of Ito et al. (ICML 2025); docs/design.md, "The Latin Square Task".

A puzzle is a partial 4×4 Latin square (codes: 0 blank, 1–4 shapes, 5 the query cell "?") whose
query cell has exactly one consistent answer: among all 576 Latin squares of order 4 that agree with
the given cells, every one holds the same shape at "?". The solver labels the reasoning it needs:

  binary      the query's row alone, or its column alone, already holds the other three shapes;
  ternary     not binary, but row and column together exclude three shapes;
  quaternary  row and column together exclude fewer than three; the answer needs cells outside them.

Generation (seeded): draw a random complete square and a query cell, reveal each other cell with a
probability drawn per puzzle from ``reveal_range``, keep the puzzle if its answer is unique and its
level still needs puzzles, drop duplicates. Tokens are the 16 cells in row-major order.

A second generator, ``generate_pluck``, makes puzzles the way the companion code does (minimal
"hidden single" puzzles labelled by its solver, ``companion_level``); see its docstring.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

ORDER = 4
NUM_CELLS = ORDER * ORDER
BLANK, QUERY = 0, 5
LEVELS = ("binary", "ternary", "quaternary")
# Where a run's puzzles come from: this module's ``generate``, its ``generate_pluck``, or the
# companion's own shipped puzzles (``lst_companion``).
GENERATORS = ("reveal", "pluck", "companion")


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


# --- The companion code's generator ------------------------------------------------------------
# Ito et al. 2025's companion code (ljhearne/LSTNN_public, lstnn/generate_sudoku.py and
# lstnn/verify_LST.py) makes its puzzles differently from ``generate``; what follows is an own
# implementation of the algorithm it describes, not a copy.


def companion_level(grid: np.ndarray) -> tuple[int | None, int | None]:
  """(level 0/1/2 or None, answer or None) by the companion's solver (lstnn/verify_LST.py).

  With S(line) the shapes in a line of ``grid`` (int[16] codes) and the query at row r, column k:
    binary      |S(row r)| = 3 ("binary-row"), else |S(column k)| = 3 ("binary-col");
    ternary     |S(row r) ∪ S(column k)| = 3;
    quaternary  by row: candidates C = {1..4} − S(row r), B = the other blank cells (code 0) of
                row r; the first q ∈ C (in order 1..4) that occurs |C| − 1 times in the columns of B,
                for |C| ∈ {3, 4}, is the answer ("quaternary-row"); then the same by column with
                the rows of column k's other blank cells ("quaternary-col");
    else        (None, None): the solver does not know the puzzle.
  """
  g = np.asarray(grid).reshape(ORDER, ORDER)
  r, k = divmod(int(np.flatnonzero(g.ravel() == QUERY)[0]), ORDER)
  shapes = set(range(1, ORDER + 1))
  row, col = line_shapes(g.ravel(), r * ORDER + k)
  for line in (row, col):
    if len(line) == ORDER - 1:
      return 0, (shapes - line).pop()
  if len(row | col) == ORDER - 1:
    return 1, (shapes - (row | col)).pop()
  for lines, i in ((g, r), (g.T, k)):  # by row, then by column (a row of the transpose)
    line = lines[i]
    candidates = sorted(shapes - {int(x) for x in line if 1 <= x <= ORDER})
    others = np.flatnonzero(line == BLANK)  # the query cell holds 5, so it is not among them
    if len(candidates) not in (ORDER, ORDER - 1):
      continue
    for q in candidates:
      if (lines[:, others] == q).sum() == len(candidates) - 1:
        return 2, q
  return None, None


def companion_levels(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """``companion_level`` of every puzzle of ``grid`` (int[S,16]), vectorised: (level int8[S], -1 for
  None; answer int8[S], 0 for None)."""
  grid = np.asarray(grid)
  n = len(grid)
  g = grid.reshape(n, ORDER, ORDER)
  at = np.arange(n)
  r, k = np.divmod(np.argmax(grid == QUERY, axis=1), ORDER)
  shapes = np.arange(1, ORDER + 1)
  in_row = (g[at, r][:, :, None] == shapes).any(1)  # [S, 4]: shape q+1 occurs in row r
  in_col = (g[at, :, k][:, :, None] == shapes).any(1)
  level = np.full(n, -1, np.int8)
  answer = np.zeros(n, np.int8)

  def settle(mask, known):  # the one shape not in ``known`` answers the puzzles of ``mask``
    mask = mask & (level < 0)
    answer[mask] = np.argmin(known[mask], axis=1) + 1
    return mask

  level[settle(in_row.sum(1) == ORDER - 1, in_row)] = 0
  level[settle(in_col.sum(1) == ORDER - 1, in_col)] = 0
  level[settle((in_row | in_col).sum(1) == ORDER - 1, in_row | in_col)] = 1
  for lines, line_at, in_line in ((g, r, in_row), (g.transpose(0, 2, 1), k, in_col)):
    others = lines[at, line_at] == BLANK  # [S, 4]: the line's other blank cells
    # in_cross[s, j, q]: shape q+1 occurs in the cross line j (a column for the row rule)
    in_cross = (lines.transpose(0, 2, 1)[..., None] == shapes).any(2)
    count = (in_cross & others[:, :, None]).sum(1)  # [S, 4]
    num_candidates = ORDER - in_line.sum(1)
    hit = ~in_line & (count == num_candidates[:, None] - 1) & (num_candidates[:, None] >= ORDER - 1)
    mask = hit.any(1) & (level < 0)
    answer[mask] = np.argmax(hit[mask], axis=1) + 1
    level[mask] = 2
  return level, answer


def pluckable(puzzle: np.ndarray, cell: np.ndarray) -> np.ndarray:
  """bool[S]: whether ``cell`` (int[S]) of each puzzle (int[S,16]; a filled cell) may be blanked.

  With v the cell's value at row r, column k, another cell "can be v" when it holds v, or it is
  blank and no cell of its row or column other than ``cell`` holds v. The cell is pluckable unless
  both some other cell of column k and some other cell of row r can be v (it is a hidden single).
  """
  puzzle = np.asarray(puzzle)
  n = len(puzzle)
  g = puzzle.reshape(n, ORDER, ORDER)
  at = np.arange(n)
  r, k = np.divmod(np.asarray(cell), ORDER)
  v = g[at, r, k]
  has_v = g == v[:, None, None]
  # Other cells of row r cannot hold v (v is at (r, k)); (r, j) can be v if blank and column j has
  # no v. Likewise (i, k) in column k. The cell itself is not blank, so it never counts.
  row_can = (g[at, r] == BLANK) & ~has_v.any(1)
  col_can = (g[at, :, k] == BLANK) & ~has_v.any(2)
  return ~(row_can.any(1) & col_can.any(1))


def pluck(square: np.ndarray, order: np.ndarray) -> np.ndarray:
  """int8[S,16]: each complete ``square`` (int[S,16]) with its cells visited once in ``order``
  (int[S,16]) and blanked when ``pluckable``; a refused cell is not retried. A refused cell stays
  refused (blanking other cells only adds cells that can be v), so every given that is left is not
  pluckable, and the square is the only completion (each blank is a hidden single in turn)."""
  puzzle = np.array(square, np.int8)
  at = np.arange(len(puzzle))
  for cell in np.asarray(order).T:
    go = pluckable(puzzle, cell)
    puzzle[at[go], cell[go]] = BLANK
  return puzzle


def unique_answers(grid: np.ndarray, answer: np.ndarray, chunk: int = 4096) -> np.ndarray:
  """bool[S]: ``consistent_answers(grid[i])`` is exactly ``[answer[i]]``, vectorised."""
  squares = all_latin_squares()
  ok = np.zeros(len(grid), bool)
  for start in range(0, len(grid), chunk):
    g, a = np.asarray(grid[start:start + chunk]), np.asarray(answer[start:start + chunk])
    given = (g >= 1) & (g <= ORDER)
    match = ((squares[None] == g[:, None]) | ~given[:, None]).all(-1)  # [chunk, 576]
    at_query = squares[:, np.argmax(g == QUERY, axis=1)].T  # [chunk, 576]
    ok[start:start + chunk] = match.any(1) & ~(match & (at_query != a[:, None])).any(1)
  return ok


def generate_pluck(num_per_level: int = 3000, seed: int = 0, batch: int = 4096,
                   max_batches: int = 10_000) -> dict[str, np.ndarray]:
  """``num_per_level`` puzzles per level made as the companion code of Ito et al. 2025 does
  (ljhearne/LSTNN_public, lstnn/generate_sudoku.py and lstnn/verify_LST.py); same dict as
  ``generate``, levels in blocks (binary first), duplicates kept (the companion keeps them).

  1. A random complete square (uniform over the 576; the companion fills row by row with random
     choices and restarts on a dead end, which is not exactly uniform).
  2. Pluck: visit the 16 cells once in a random order and blank each ``pluckable`` one (``pluck``;
     the companion plucks towards a minimal puzzle, its n=0). The companion's check compares a row
     index with ``c/4`` (a float), so it lets every cell outside column 0 go; this implements the
     intended hidden-single rule.
  3. The query is a random blank cell; the answer is the square's value there.
  4. The level is ``companion_level``; a puzzle is kept when it has one, the solver's answer is
     the true one, and (an extra check here) ``consistent_answers`` is exactly that answer.
  Seeded: ``seed`` and ``batch`` fix the output. 3,000 per level take about 2 s on one core.
  """
  rng = np.random.default_rng(seed)
  squares = all_latin_squares()
  found = [[] for _ in LEVELS]
  counts = np.zeros(len(LEVELS), int)
  at = np.arange(batch)
  for _ in range(max_batches):
    if (counts >= num_per_level).all():
      break
    square = squares[rng.integers(len(squares), size=batch)]
    order = np.argsort(rng.random((batch, NUM_CELLS)), axis=1)
    grid = pluck(square, order)
    keys = np.where(grid == BLANK, rng.random((batch, NUM_CELLS)), -1.0)
    query = np.argmax(keys, axis=1)  # a uniform blank cell (the first cell visited is always one)
    answer = square[at, query]
    grid[at, query] = QUERY
    level, solved = companion_levels(grid)
    keep = (level >= 0) & (solved == answer)
    keep[keep] = unique_answers(grid[keep], answer[keep])
    for lv in range(len(LEVELS)):
      idx = np.flatnonzero(keep & (level == lv))[:max(num_per_level - counts[lv], 0)]
      found[lv].append((grid[idx], answer[idx]))
      counts[lv] += len(idx)
  else:
    raise RuntimeError(f"could not find {num_per_level} puzzles per level in {max_batches} batches")
  grids = [g for f in found for g, _ in f]
  answers = [a for f in found for _, a in f]
  levels = [np.full(num_per_level, lv, np.int8) for lv in range(len(LEVELS))]
  return {"grid": np.concatenate(grids).astype(np.int8),
          "answer": np.concatenate(answers).astype(np.int8), "level": np.concatenate(levels)}


def plain_split(num: int, test_fraction: float, seed: int) -> np.ndarray:
  """bool[num]: True for test examples; ``sklearn.model_selection.train_test_split`` of the indices
  with ``test_size=test_fraction`` and ``random_state=seed`` (the companion's split, not stratified;
  the companion uses random_state=42)."""
  from sklearn.model_selection import train_test_split
  _, test = train_test_split(np.arange(num), test_size=test_fraction, random_state=seed)
  is_test = np.zeros(num, bool)
  is_test[test] = True
  return is_test
