import numpy as np
import pytest

from learnpe_jax.tasks import latin_square as ls


def test_there_are_576_latin_squares_of_order_4_and_all_are_latin():
  squares = ls.all_latin_squares().reshape(-1, 4, 4)
  assert len(squares) == 576
  assert len({s.tobytes() for s in squares}) == 576
  for axis in (1, 2):
    assert (np.sort(squares, axis=axis) == np.arange(1, 5).reshape(
        (1, 4, 1) if axis == 1 else (1, 1, 4))).all()


@pytest.fixture(scope="module")
def puzzles():
  return ls.generate(num_per_level=150, seed=3)


def test_generated_puzzles_have_unique_consistent_answers(puzzles):
  for grid, answer in zip(puzzles["grid"], puzzles["answer"]):
    assert (grid == ls.QUERY).sum() == 1
    assert ls.consistent_answers(grid).tolist() == [answer]


def test_generated_levels_follow_their_definitions(puzzles):
  assert np.bincount(puzzles["level"]).tolist() == [150, 150, 150]
  assert len({g.tobytes() for g in puzzles["grid"]}) == len(puzzles["grid"])
  for grid, answer, level in zip(puzzles["grid"], puzzles["answer"], puzzles["level"]):
    row, col = ls.line_shapes(grid, int(np.flatnonzero(grid == ls.QUERY)[0]))
    binary = len(row) == 3 or len(col) == 3
    ternary = not binary and len(row | col) == 3
    assert level == (0 if binary else 1 if ternary else 2)
    if level < 2:  # the excluded shapes name the answer
      assert {1, 2, 3, 4} - (row | col) == {answer}
    else:  # row and column leave several candidates; the answer is still one of them
      assert answer not in row | col and len({1, 2, 3, 4} - (row | col)) >= 2


def test_generation_is_seeded(puzzles):
  again = ls.generate(num_per_level=150, seed=3)
  other = ls.generate(num_per_level=150, seed=4)
  assert all((puzzles[k] == again[k]).all() for k in puzzles)
  assert not (puzzles["grid"] == other["grid"]).all()


def test_hand_made_puzzles_get_the_right_level():
  binary = np.array([1, 2, 3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], np.int8)
  assert ls.consistent_answers(binary).tolist() == [4] and ls.complexity(binary) == 0
  ternary = np.array([1, 2, 0, 5, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0], np.int8)
  assert ls.consistent_answers(ternary).tolist() == [4] and ls.complexity(ternary) == 1
  # Row 0 has only shape 1; column 3 has nothing. Shape 2 must go at (0,3): cells (0,1) and (0,2)
  # are blocked by 2s in their columns.
  quaternary = np.array([1, 0, 0, 5,
                         0, 2, 0, 0,
                         0, 0, 2, 0,
                         0, 0, 0, 0], np.int8)
  assert ls.consistent_answers(quaternary).tolist() == [2] and ls.complexity(quaternary) == 2


def test_stratified_split_takes_a_tenth_of_every_level():
  levels = np.repeat([0, 1, 2], [300, 200, 100])
  is_test = ls.stratified_split(levels, 0.1, seed=0)
  assert [is_test[levels == l].sum() for l in range(3)] == [30, 20, 10]


def test_tokens_are_one_hot_with_blank_all_zero():
  grid = np.array([0, 1, 2, 3, 4, 5] + [0] * 10, np.int8)
  tokens = ls.encode_tokens(grid)
  assert tokens.shape == (16, 5)
  assert tokens[0].sum() == 0 and (tokens[1:6] == np.eye(5)).all()


def test_tfds_builder_round_trips_and_is_cached(data_dir):
  from learnpe_jax.tasks import latin_square_tfds
  data = latin_square_tfds.load(data_dir, num_per_level=60, seed=1, test_fraction=0.1)
  assert len(data["train"]["grid"]) == 162 and len(data["test"]["grid"]) == 18
  assert np.bincount(data["test"]["level"]).tolist() == [6, 6, 6]
  train = {g.tobytes() for g in data["train"]["grid"]}
  assert not train & {g.tobytes() for g in data["test"]["grid"]}
  again = latin_square_tfds.load(data_dir, num_per_level=60, seed=1, test_fraction=0.1)
  assert (np.sort(again["train"]["answer"]) == np.sort(data["train"]["answer"])).all()
