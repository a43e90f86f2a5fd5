import numpy as np
import pytest

from learnpe_jax.errors import DataError
from learnpe_jax.tasks.lst import generate as ls
from learnpe_jax.tasks.lst import puzzle_csv

GOOD = [1, 2, 3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]


def test_round_trip_with_conditions(tmp_path):
  data = ls.generate(num_per_level=10, seed=0)
  cond = np.array([ls.LEVELS[l] for l in data["level"]])
  path = tmp_path / "p.csv"
  puzzle_csv.write_puzzles(str(path), data["grid"], data["answer"], cond)
  back = puzzle_csv.read_puzzles(str(path))
  assert (back["grid"] == data["grid"]).all() and (back["answer"] == data["answer"]).all()
  assert (back["condition"] == cond).all()


def test_reads_rows_without_header(tmp_path):
  path = tmp_path / "p.csv"
  path.write_text(",".join(map(str, GOOD + [4])) + "\n")
  back = puzzle_csv.read_puzzles(str(path))
  assert back["grid"].tolist() == [GOOD] and back["answer"].tolist() == [4]
  assert back["condition"].tolist() == ["all"]


@pytest.mark.parametrize("row, message", [
    (GOOD + [3], "row 1: answer 3 is inconsistent"),
    ([1, 1, 3, 5] + [0] * 12 + [4], "row 1: not a Latin square: row 0 repeats a shape"),
    ([1, 2, 3, 4] + [0] * 12 + [4], "row 1: needs exactly one query cell"),
    (GOOD[:10] + [4], "row 1: expected 17 fields"),
    ([7] + GOOD[1:] + [4], "row 1: cell codes must be 0..5"),
    (["a"] * 17, "no puzzle rows after the header"),
])
def test_malformed_rows_name_file_row_and_problem(tmp_path, row, message):
  path = tmp_path / "bad.csv"
  path.write_text(",".join(map(str, row)) + "\n")
  with pytest.raises(DataError, match="bad.csv") as e:
    puzzle_csv.read_puzzles(str(path))
  assert message in str(e.value) and "\n" not in str(e.value)


def test_empty_and_missing_files(tmp_path):
  (tmp_path / "empty.csv").write_text("")
  with pytest.raises(DataError, match="empty.csv: empty puzzle file"):
    puzzle_csv.read_puzzles(str(tmp_path / "empty.csv"))
  with pytest.raises(DataError, match="cannot read"):
    puzzle_csv.read_puzzles(str(tmp_path / "missing.csv"))
