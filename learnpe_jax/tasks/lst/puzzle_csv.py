"""Read a user's LST puzzle file.

CSV, one puzzle per row: 16 cell codes in row-major order (0 blank, 1–4 shapes, 5 the query cell)
then the answer (1–4), and optionally a ``condition`` column (any text). A header row is optional
(detected when its first field is not a number). Every row is checked: 16 codes in 0..5, exactly one
query cell, no shape twice in a row or column, an answer in 1..4 that is consistent with the grid.
A malformed row raises ``DataError`` naming the file, the row and the problem.

The companion's own puzzle files (``ID, LST_num, condition, puzzles, solutions``: the 16 codes as
one digit string, the answer, the level as Binary/Ternary/Quaternary; ``tasks/lst/data/generated_
puzzle_data_*_dist80.csv``) are read too, recognised by their header, and checked the same way.
"""

from __future__ import annotations

import csv
import os

import numpy as np

from learnpe_jax.errors import DataError
from learnpe_jax.tasks.lst import generate as ls


def _check_row(grid: np.ndarray, answer: int) -> str | None:
  if ((grid < 0) | (grid > ls.QUERY)).any():
    return f"cell codes must be 0..5, got {grid.tolist()}"
  if (grid == ls.QUERY).sum() != 1:
    return f"needs exactly one query cell (code 5), found {(grid == ls.QUERY).sum()}"
  g = grid.reshape(ls.ORDER, ls.ORDER)
  for axis_name, lines in (("row", g), ("column", g.T)):
    for i, line in enumerate(lines):
      shapes = line[(line >= 1) & (line <= ls.ORDER)]
      if len(shapes) != len(set(shapes.tolist())):
        return f"not a Latin square: {axis_name} {i} repeats a shape"
  if not 1 <= answer <= ls.ORDER:
    return f"answer must be 1..4, got {answer}"
  answers = ls.consistent_answers(grid)
  if answer not in answers:
    allowed = "no completion exists" if len(answers) == 0 else f"consistent: {answers.tolist()}"
    return f"answer {answer} is inconsistent with the grid ({allowed})"
  return None


COMPANION_HEADER = ["id", "lst_num", "condition", "puzzles", "solutions"]


def _companion_rows(name: str, rows: list[list[str]]) -> list[list[str]]:
  """Rows of the companion's format as this module's rows (16 codes, answer, condition)."""
  out = []
  for i, row in enumerate(rows):
    if len(row) != len(COMPANION_HEADER):
      raise DataError(f"{name} row {i + 2}: expected 5 fields ({', '.join(COMPANION_HEADER)}), "
                      f"got {len(row)}")
    digits = row[3].strip()
    if len(digits) != ls.NUM_CELLS or not digits.isdigit():
      raise DataError(f"{name} row {i + 2}: 'puzzles' must be 16 digits, got {digits!r}")
    out.append(list(digits) + [row[4].strip(), row[2].strip()])
  return out


def read_puzzles(path: str) -> dict[str, np.ndarray]:
  """{'grid': int8[S,16], 'answer': int8[S], 'condition': str[S]} from a puzzle CSV (this
  project's format or the companion's)."""
  name = os.path.basename(path)
  try:
    with open(path, newline="") as f:
      rows = [r for r in csv.reader(f) if any(c.strip() for c in r)]
  except OSError as e:
    raise DataError(f"{path}: cannot read puzzle file ({e.strerror})") from None
  except UnicodeDecodeError:
    raise DataError(f"{path}: not a text CSV file") from None
  if not rows:
    raise DataError(f"{name}: empty puzzle file (expected rows of 16 cell codes and an answer)")
  header = None
  if rows and not rows[0][0].strip().lstrip("-").isdigit():
    header, rows = [c.strip().lower() for c in rows[0]], rows[1:]
  if not rows:
    raise DataError(f"{name}: no puzzle rows after the header")
  if header == COMPANION_HEADER:
    rows = _companion_rows(name, rows)
    header = [f"c{i}" for i in range(ls.NUM_CELLS)] + ["answer", "condition"]
  has_condition = header is not None and "condition" in header
  width = ls.NUM_CELLS + 1 + (1 if has_condition or len(rows[0]) == ls.NUM_CELLS + 2 else 0)
  grids, answers, conditions = [], [], []
  for i, row in enumerate(rows):
    row_no = i + 1 + (header is not None)
    if len(row) != width:
      raise DataError(f"{name} row {row_no}: expected {width} fields (16 cells, answer"
                      f"{', condition' if width == 18 else ''}), got {len(row)}")
    try:
      values = [int(v) for v in row[:ls.NUM_CELLS + 1]]
    except ValueError:
      raise DataError(f"{name} row {row_no}: cell codes and answer must be integers") from None
    grid, answer = np.array(values[:ls.NUM_CELLS], np.int64), values[ls.NUM_CELLS]
    problem = _check_row(grid, answer)
    if problem:
      raise DataError(f"{name} row {row_no}: {problem}")
    grids.append(grid.astype(np.int8))
    answers.append(answer)
    conditions.append(row[ls.NUM_CELLS + 1].strip() if width == 18 else "all")
  return {"grid": np.stack(grids), "answer": np.array(answers, np.int8),
          "condition": np.array(conditions)}


def write_puzzles(path: str, grid: np.ndarray, answer: np.ndarray, condition=None) -> None:
  """Write puzzles in the format ``read_puzzles`` reads (with a header row)."""
  with open(path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow([f"c{i}" for i in range(ls.NUM_CELLS)] + ["answer"]
               + (["condition"] if condition is not None else []))
    for i in range(len(grid)):
      w.writerow(list(map(int, grid[i])) + [int(answer[i])]
                 + ([condition[i]] if condition is not None else []))
