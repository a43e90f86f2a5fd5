import numpy as np
import pytest

from learnpe_jax.tasks.lst import generate as ls


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
  for grid, answer in zip(puzzles["grid"], puzzles["answer"], strict=True):
    assert (grid == ls.QUERY).sum() == 1
    assert ls.consistent_answers(grid).tolist() == [answer]


def test_generated_levels_follow_their_definitions(puzzles):
  assert np.bincount(puzzles["level"]).tolist() == [150, 150, 150]
  assert len({g.tobytes() for g in puzzles["grid"]}) == len(puzzles["grid"])
  for grid, answer, level in zip(puzzles["grid"], puzzles["answer"], puzzles["level"],
                                 strict=True):
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
  from learnpe_jax.tasks.lst import tfds_builder as latin_square_tfds
  data = latin_square_tfds.load(data_dir, num_per_level=60, seed=1, test_fraction=0.1)
  assert len(data["train"]["grid"]) == 162 and len(data["test"]["grid"]) == 18
  assert np.bincount(data["test"]["level"]).tolist() == [6, 6, 6]
  train = {g.tobytes() for g in data["train"]["grid"]}
  assert not train & {g.tobytes() for g in data["test"]["grid"]}
  again = latin_square_tfds.load(data_dir, num_per_level=60, seed=1, test_fraction=0.1)
  assert (np.sort(again["train"]["answer"]) == np.sort(data["train"]["answer"])).all()


def _load_small(data_dir: str) -> bytes:
  from learnpe_jax.tasks.lst import tfds_builder as latin_square_tfds
  return latin_square_tfds.load(data_dir, num_per_level=60, seed=2)["train"]["grid"].tobytes()


@pytest.mark.e2e
def test_processes_preparing_one_fresh_dataset_together_all_succeed(tmp_path):
  """The benchmark's lanes start together on a fresh data dir; without the lock in
  ``tfds_io.prepare`` the second process to finish fails renaming its temporary dir into place."""
  import concurrent.futures
  import multiprocessing
  with concurrent.futures.ProcessPoolExecutor(
      3, mp_context=multiprocessing.get_context("spawn")) as pool:
    grids = list(pool.map(_load_small, [str(tmp_path)] * 3))
  assert grids[0] == grids[1] == grids[2]


# --- The companion code's generator (generate_pluck) and its solver ----------------------------

import hashlib  # noqa: E402

from learnpe_jax.tasks.lst import task as lst, overlap as lst_overlap  # noqa: E402


def test_reveal_generator_is_unchanged():
  data = ls.generate(50, seed=0)
  digest = hashlib.sha256(b"".join(np.ascontiguousarray(data[k]).tobytes()
                                   for k in ("grid", "answer", "level"))).hexdigest()
  assert digest == "d02286cb58c9f58a31c71205043fb0a50de0144de25b412e1ba75873dd13ba49"


def can_be(grid: np.ndarray, i: int, j: int, c: int) -> bool:
  """The rule, cell by cell: cell (i, j) can hold the value v of cell c."""
  g = grid.reshape(4, 4)
  v = g.flat[c]
  if g[i, j] == v:
    return True
  if g[i, j] != ls.BLANK:
    return False
  others = [(i, m) for m in range(4)] + [(m, j) for m in range(4)]
  return not any(g[a, b] == v for a, b in others if a * 4 + b != c)


def pluckable_by_rule(grid: np.ndarray, c: int) -> bool:
  r, k = divmod(c, 4)
  in_col = any(can_be(grid, i, k, c) for i in range(4) if i != r)
  in_row = any(can_be(grid, r, j, c) for j in range(4) if j != k)
  return not (in_col and in_row)


@pytest.fixture(scope="module")
def plucked():
  return ls.generate_pluck(num_per_level=100, seed=5)


def test_pluck_puzzles_have_unique_answers_and_companion_levels(plucked):
  assert np.bincount(plucked["level"]).tolist() == [100, 100, 100]
  for grid, answer, level in zip(plucked["grid"], plucked["answer"], plucked["level"],
                                 strict=True):
    assert (grid == ls.QUERY).sum() == 1
    assert ls.consistent_answers(grid).tolist() == [answer]
    assert ls.companion_level(grid) == (level, answer)


def test_pluck_puzzles_are_minimal_by_the_rule(plucked):
  # A refused cell stays refused, so no given of the plucked puzzle (query blanked) is pluckable.
  for grid in plucked["grid"]:
    puzzle = np.where(grid == ls.QUERY, ls.BLANK, grid)
    assert not any(pluckable_by_rule(puzzle, c) for c in np.flatnonzero(puzzle))
    assert lst_overlap.givens(grid[None])[0] >= 4  # the givens fix the whole square


def test_pluck_follows_the_rule_cell_by_cell():
  rng = np.random.default_rng(0)
  squares = ls.all_latin_squares()[rng.integers(576, size=40)]
  order = np.argsort(rng.random((40, 16)), axis=1)
  got = ls.pluck(squares, order)
  for square, visit, puzzle in zip(squares, order, got, strict=True):
    expect = square.copy()
    for c in visit:
      if pluckable_by_rule(expect, c):
        expect[c] = ls.BLANK
    assert (puzzle == expect).all()


def test_pluck_generation_is_seeded(plucked):
  again = ls.generate_pluck(num_per_level=100, seed=5)
  other = ls.generate_pluck(num_per_level=100, seed=6)
  assert all((plucked[k] == again[k]).all() for k in plucked)
  assert not (plucked["grid"] == other["grid"]).all()


def test_companion_solver_on_hand_made_puzzles_and_vectorised():
  quaternary_row = np.array([5, 0, 0, 0,  # row 0 empty; shape 2 in columns 1, 2, 3
                             0, 2, 0, 0,
                             0, 0, 0, 2,
                             0, 0, 2, 0], np.int8)
  assert ls.companion_level(quaternary_row) == (2, 2)
  unknown = np.array([5, 0, 0, 0] + [0] * 12, np.int8)
  assert ls.companion_level(unknown) == (None, None)
  grids = np.concatenate([ls.generate(40, seed=1)["grid"], quaternary_row[None], unknown[None]])
  level, answer = ls.companion_levels(grids)
  for g, lv, a in zip(grids, level, answer, strict=True):
    assert ls.companion_level(g) == ((None, None) if lv < 0 else (lv, a))


def human_puzzles_path():
  """The 108 human-experiment puzzles shipped in the package (``learnpe_jax/tasks/lst/data/``)."""
  return lst.human_puzzles_path()


def test_companion_solver_labels_the_108_human_puzzles():
  from learnpe_jax.tasks.lst import puzzle_csv
  human = puzzle_csv.read_puzzles(human_puzzles_path())
  assert len(human["grid"]) == 108
  for grid, answer, condition in zip(human["grid"], human["answer"], human["condition"],
                                     strict=True):
    level, solved = ls.companion_level(grid)
    assert level is not None and ls.LEVELS[level] == condition and solved == answer


def test_plain_split_is_sklearns_train_test_split():
  from sklearn.model_selection import train_test_split
  assert ls.plain_split(9000, 0.1, seed=0).sum() == 900
  is_test = ls.plain_split(180, 0.1, seed=42)
  assert is_test.sum() == 18
  _, test = train_test_split(np.arange(180) * 7, test_size=0.1, random_state=42)
  assert sorted(np.flatnonzero(is_test) * 7) == sorted(test)


def test_tfds_pluck_config_and_names(data_dir):
  from learnpe_jax.tasks.lst import tfds_builder as latin_square_tfds
  assert latin_square_tfds.builder_config(3000, 0, 0.1).name == "n3000_seed0_test100"
  assert latin_square_tfds.builder_config(3000, 0, 0.1, "pluck").name == "n3000_seed0_test100_pluck"
  with pytest.raises(ValueError, match="generator"):
    latin_square_tfds.builder_config(3000, 0, 0.1, "sudoku")
  data = latin_square_tfds.load(data_dir, num_per_level=60, seed=1, test_fraction=0.1,
                                generator="pluck")
  assert len(data["train"]["grid"]) == 162 and len(data["test"]["grid"]) == 18
  expect = ls.generate_pluck(60, seed=1)
  is_test = ls.plain_split(180, 0.1, seed=1)
  key = lambda g: sorted(x.tobytes() for x in g)
  assert key(data["test"]["grid"]) == key(expect["grid"][is_test])


def test_canonical_form_ignores_symmetry_and_relabelling():
  rng = np.random.default_rng(0)
  grids = ls.generate_pluck(20, seed=2)["grid"]
  keys = lst_overlap.canonical_form(grids)
  for sym in lst_overlap.symmetries():
    names = np.concatenate([[0], rng.permutation(4) + 1, [5]]).astype(np.int8)
    assert (lst_overlap.canonical_form(names[grids[:, sym]]) == keys).all()
  a = np.array([1, 2, 0, 5] + [0] * 12, np.int8)
  b = np.array([1, 0, 2, 5] + [0] * 12, np.int8)  # same givens, another place: not a symmetry
  different = lst_overlap.canonical_form(np.stack([a, b]))
  assert different[0] != different[1]


def test_overlap_report_counts_a_hand_made_example():
  a = np.array([1, 2, 3, 5] + [0] * 12, np.int8)
  a_turned = np.rot90(np.where(a > 0, np.array([0, 3, 4, 1, 2, 5])[a], 0).reshape(4, 4)).ravel()
  b = np.array([5, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0], np.int8)
  c = np.array([1, 2, 0, 5, 0, 0, 0, 3] + [0] * 8, np.int8)
  train = {"grid": np.stack([a, b]), "level": np.array([0, 2])}
  test = {"grid": np.stack([a, a_turned, c]), "level": np.array([0, 0, 1])}
  report = lst_overlap.overlap_report(train, test)
  assert report["test_in_train"]["exact"]["count"] == 1
  assert report["test_in_train"]["symmetry"]["count"] == 2
  assert report["test_in_train"]["symmetry"]["by_level"]["binary"] == {
      "count": 2, "of": 2, "percent": 100.0}
  assert report["test_in_train"]["symmetry"]["by_level"]["ternary"]["count"] == 0
  assert report["splits"]["train"]["givens_by_level"] == {"binary": 3.0, "quaternary": 3.0}
  assert report["splits"]["test"]["givens_mean"] == 3.0
  assert report["splits"]["test"]["distinct_symmetry"] == 2
