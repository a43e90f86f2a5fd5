"""Train/test overlap of LST puzzle sets, exactly and up to symmetry and relabelling.

Two puzzles are the same *up to symmetry* when one becomes the other by one of the 8 symmetries of
the square (rotations, reflections; the query cell moves with the grid) followed by a renaming of
the 4 shapes. ``canonical_form`` picks one representative per class: in each of the 8 transformed
grids the shapes are renamed 1, 2, ... in order of first appearance (row-major), and the smallest of
the 8 results (lexicographic over the 16 codes) is the key.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.tasks.lst import generate as ls


def symmetries() -> np.ndarray:
  """int[8, 16]: cell permutations of the dihedral group; ``grid[:, p]`` is the transformed grid."""
  cells = np.arange(ls.NUM_CELLS).reshape(ls.ORDER, ls.ORDER)
  return np.stack([np.rot90(c, k).ravel() for c in (cells, cells.T) for k in range(4)])


def _keys(grid: np.ndarray) -> np.ndarray:
  """S16[S]: the 16 codes as ASCII digits (b"0012...")."""
  return np.ascontiguousarray((np.asarray(grid) + ord("0")).astype(np.uint8)).view("S16")[:, 0]


def exact_keys(grid: np.ndarray) -> np.ndarray:
  """S16[S]: one key per puzzle (int[S,16]), equal only for identical puzzles."""
  return _keys(grid)


def relabel(grid: np.ndarray) -> np.ndarray:
  """int8[S,16]: the shapes of every puzzle renamed 1, 2, ... by first appearance (row-major)."""
  grid = np.asarray(grid)
  shapes = np.arange(1, ls.ORDER + 1)
  is_shape = grid[:, :, None] == shapes  # [S, 16, 4]
  first = np.where(is_shape.any(1), np.argmax(is_shape, axis=1), ls.NUM_CELLS)  # [S, 4]
  rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1)  # absent shapes rank last
  lut = np.concatenate([np.full((len(grid), 1), ls.BLANK), rank + 1,
                        np.full((len(grid), 1), ls.QUERY)], axis=1)  # [S, 6]: old code -> new
  return np.take_along_axis(lut, grid.astype(np.int64), axis=1).astype(np.int8)


def canonical_form(grid: np.ndarray) -> np.ndarray:
  """S16[S]: one key per puzzle (int[S,16]), equal exactly for puzzles that are the same up to the
  8 symmetries of the square and a renaming of the shapes (module docstring)."""
  grid = np.asarray(grid)
  forms = np.stack([relabel(grid[:, p]) for p in symmetries()])  # [8, S, 16]
  weights = (ls.QUERY + 1) ** np.arange(ls.NUM_CELLS - 1, -1, -1, dtype=np.int64)
  code = forms.astype(np.int64) @ weights  # base-6 number, ordered like the 16 codes
  best = forms[np.argmin(code, axis=0), np.arange(len(grid))]
  return _keys(best)


def givens(grid: np.ndarray) -> np.ndarray:
  """int[S]: the number of shapes shown (codes 1–4) per puzzle."""
  grid = np.asarray(grid)
  return ((grid >= 1) & (grid <= ls.ORDER)).sum(1)


def _percent(count: int, total: int) -> float:
  return 100.0 * count / total if total else 0.0


def overlap_report(train: dict, test: dict, level_names=ls.LEVELS) -> dict:
  """How many test puzzles also occur in training, exactly and up to symmetry (overall and per
  level), and the givens per puzzle (mean, per level, per split). ``train``/``test``: {'grid':
  int[S,16], 'level': int[S]}."""
  keys = {"exact": exact_keys, "symmetry": canonical_form}
  in_train = {kind: np.isin(fn(test["grid"]), fn(train["grid"])) for kind, fn in keys.items()}
  report = {"splits": {}, "test_in_train": {}}
  for kind, hit in in_train.items():
    by_level = {}
    for lv, name in enumerate(level_names):
      mask = test["level"] == lv
      by_level[name] = {"count": int(hit[mask].sum()), "of": int(mask.sum()),
                        "percent": _percent(int(hit[mask].sum()), int(mask.sum()))}
    report["test_in_train"][kind] = {"count": int(hit.sum()), "of": len(hit),
                                     "percent": _percent(int(hit.sum()), len(hit)),
                                     "by_level": by_level}
  for split, data in (("train", train), ("test", test)):
    n = givens(data["grid"])
    report["splits"][split] = {
        "puzzles": len(n),
        "puzzles_by_level": {name: int((data["level"] == lv).sum())
                             for lv, name in enumerate(level_names)},
        "distinct_exact": len(np.unique(exact_keys(data["grid"]))),
        "distinct_symmetry": len(np.unique(canonical_form(data["grid"]))),
        "givens_mean": float(n.mean()) if len(n) else 0.0,
        "givens_by_level": {name: float(n[data["level"] == lv].mean())
                            for lv, name in enumerate(level_names) if (data["level"] == lv).any()},
    }
  return report
