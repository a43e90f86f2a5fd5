"""Examples from time series, shared by the tasks whose tokens are nodes or regions with a signal
over time (netsim, brain): next-step pairs, masked states, their per-split arrays; and the checks
and per-region z-scoring of a set of series (brain, HCP).

Modes (``config.data.mode``):
  'next_step'  tokens = the last ``context_steps`` states a_{t−k+1..t} (F = k); target a_{t+1}.
  'masked'     tokens = (a_t ⊙ (1 − m), m) (F = 2) with a random mask m of ``mask_fraction`` of the
               nodes; target a_t, scored on the masked nodes only (``loss_mask`` = m).
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.errors import ConfigError, DataError

TASK_MODES = ("next_step", "masked")


def next_step_examples(traj_RTN: np.ndarray, context_steps: int) -> dict[str, np.ndarray]:
  """Tokens float[S, N, k] = (a_{t−k+1}, …, a_t) per node, target float[S, N] = a_{t+1}."""
  r, t, n = traj_RTN.shape
  k = context_steps
  if t <= k:
    raise ValueError(f"trajectories of {t} time points are too short for {k} context steps + 1")
  windows = np.stack([traj_RTN[:, i:t - k + i] for i in range(k)], -1)  # [R, T−k, N, k]
  return {"tokens": windows.reshape(-1, n, k).astype(np.float32),
          "target": traj_RTN[:, k:].reshape(-1, n).astype(np.float32)}


def masked_examples(states_SN: np.ndarray, mask_fraction: float,
                    rng: np.random.Generator) -> dict[str, np.ndarray]:
  """Tokens float[S, N, 2] = (a ⊙ (1 − m), m), target a, loss_mask m: ⌈f·N⌉ nodes masked per
  example, chosen uniformly at random."""
  s, n = states_SN.shape
  k = max(1, int(np.ceil(mask_fraction * n)))
  order = np.argsort(rng.random((s, n)), axis=1)
  mask = np.zeros((s, n), np.float32)
  np.put_along_axis(mask, order[:, :k], 1.0, axis=1)
  tokens = np.stack([states_SN * (1 - mask), mask], -1).astype(np.float32)
  return {"tokens": tokens, "target": states_SN.astype(np.float32), "loss_mask": mask}


def make_split(traj_RTN: np.ndarray, mode: str, context_steps: int, mask_fraction: float,
               rng: np.random.Generator, max_examples: int = 0) -> dict[str, np.ndarray]:
  """Model arrays of one split (with ``level`` = 0): next-step pairs or masked states."""
  if mode == "next_step":
    out = next_step_examples(traj_RTN, context_steps)
  elif mode == "masked":
    out = masked_examples(traj_RTN.reshape(-1, traj_RTN.shape[-1]), mask_fraction, rng)
  else:
    raise ConfigError("data.mode", mode, f"one of {', '.join(TASK_MODES)}")
  if max_examples and len(out["target"]) > max_examples:
    keep = np.sort(rng.choice(len(out["target"]), max_examples, replace=False))
    out = {k: v[keep] for k, v in out.items()}
  out["level"] = np.zeros(len(out["target"]), np.int32)
  return out


def target_variance(split: dict[str, np.ndarray]) -> float:
  """Var of the scored target entries (all, or those with loss_mask = 1): R² = 1 − MSE / Var."""
  target = split["target"]
  if "loss_mask" in split:
    return float(np.var(target[split["loss_mask"] > 0]))
  return float(np.var(target))


# ---- a set of series: checks and per-region z-scoring ---------------------------------------

def validate_timeseries(x: np.ndarray, path: str, names, need_time_points: int) -> np.ndarray:
  """float64[S, T, N] from a T×N or S×T×N array (a file's, at ``path``); a one-line DataError that
  names the file for each problem: not numbers, a wrong shape, NaN/Inf, fewer than 2 regions or
  ``need_time_points`` time points, region names that do not match N, a constant region."""
  if x.dtype.kind not in "biuf":
    raise DataError(f"{path}: expected numbers, got an array of dtype {x.dtype}")
  if x.ndim == 2:
    x = x[None]
  if x.ndim != 3 or min(x.shape) == 0:
    raise DataError(f"{path}: expected a T×N or subjects×T×N array, got shape {x.shape}")
  x = x.astype(np.float64)
  s, t, n = x.shape
  bad = ~np.isfinite(x)
  if bad.any():
    i = np.argwhere(bad)[0]
    raise DataError(f"{path}: {int(bad.sum())} NaN/Inf value(s) (first at subject {i[0]}, "
                    f"time {i[1]}, region {i[2]})")
  if n < 2:
    raise DataError(f"{path}: {n} region(s); need at least 2 (is the array N×T instead of T×N?)")
  if t < need_time_points:
    raise DataError(f"{path}: {t} time points per subject; the task needs at least "
                    f"{need_time_points} (is the array N×T instead of T×N?)")
  if names is not None and len(names) != n:
    raise DataError(f"{path}: {len(names)} region names for {n} regions")
  const = np.ptp(x, axis=1) == 0  # [S, N]
  if const.any():
    si, ri = np.argwhere(const)[0]
    region = names[ri] if names is not None else ri
    raise DataError(f"{path}: region {region} is constant over time (subject {si}); "
                    f"{int(const.any(0).sum())} constant region(s) in all")
  return x


def zscore(x_STN: np.ndarray, ref_STN: np.ndarray | None = None) -> np.ndarray:
  """float32 x z-scored per series and region with the mean and sd over time of ``ref_STN``
  (default: x itself; e.g. a held-out segment with its training segment's statistics)."""
  ref = x_STN if ref_STN is None else ref_STN
  mu, sd = ref.mean(1, keepdims=True), ref.std(1, keepdims=True)
  return ((x_STN - mu) / np.maximum(sd, 1e-12)).astype(np.float32)


def min_time_points(mode: str, context_steps: int) -> int:
  """Per subject (or per segment): masked needs 2 (to z-score), next_step context + 2."""
  return context_steps + 2 if mode == "next_step" else 2
