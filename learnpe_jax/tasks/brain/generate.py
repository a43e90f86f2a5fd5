"""The default brain data: a seeded Gaussian generative model on the real atlas geometry (§2.3).

Parcels i with centroids x_i (mm) and networks n_i. The covariance is

    Σ = g_global · 11ᵀ                         (a global signal)
      + g_dist · exp(−‖x_i − x_j‖ / λ)          (distance decay; a valid kernel in R³)
      + g_net · 1[n_i = n_j]                    (same-network coupling)
      + U Uᵀ,  U ~ N(0, lowrank_scale² / r)^{N×r}   (a random low-rank part)
      + σ²_private · I,

rescaled to a correlation matrix C = D^{−1/2} Σ D^{−1/2}. ``g_net`` is calibrated (bisection) so
that the mean within-network correlation, over parcel pairs i < j with n_i = n_j, is
``within_between_ratio`` (default 2, as in resting-state fMRI) times the mean between-network one.
Each subject is an AR(1) time series with that stationary correlation:

    z_0 = L ε_0,   z_t = φ z_{t−1} + √(1 − φ²) · L ε_t,   ε_t ~ N(0, I),   L Lᵀ = C.

Streams: the low-rank part from ``seed``; train and test subjects from separate child seeds, so
test subjects are fresh samples.
"""

from __future__ import annotations

import numpy as np
import scipy.spatial.distance

# Generator parameters (config.data fields) and their defaults; they name the cached dataset.
from learnpe_jax.tasks.brain.defaults import GENERATOR_DEFAULTS  # noqa: F401


def covariance(coords_N3: np.ndarray, networks_N: np.ndarray, p: dict, g_net: float,
               lowrank_NR: np.ndarray) -> np.ndarray:
  d = scipy.spatial.distance.squareform(scipy.spatial.distance.pdist(coords_N3))
  same = (networks_N[:, None] == networks_N[None, :]).astype(np.float64)
  sigma = (p["g_global"] + p["g_dist"] * np.exp(-d / p["length_scale_mm"]) + g_net * same
           + lowrank_NR @ lowrank_NR.T + p["private_var"] * np.eye(len(d)))
  return sigma


def to_correlation(sigma_NN: np.ndarray) -> np.ndarray:
  sd = np.sqrt(np.diag(sigma_NN))
  return sigma_NN / sd[:, None] / sd[None, :]


def within_between(corr_NN: np.ndarray, networks_N: np.ndarray) -> tuple[float, float]:
  """Mean off-diagonal correlation within networks and between networks."""
  iu = np.triu_indices(len(corr_NN), 1)
  same = (networks_N[:, None] == networks_N[None, :])[iu]
  c = corr_NN[iu]
  return float(c[same].mean()), float(c[~same].mean())


def calibrate_g_net(coords_N3, networks_N, p, lowrank_NR, target: float) -> float:
  """g_net ≥ 0 with within/between mean correlation = ``target`` (bisection; ratio rises with
  g_net). Raises ValueError when even g_net = 0 gives a ratio above the target."""

  def ratio(g):
    w, b = within_between(to_correlation(covariance(coords_N3, networks_N, p, g, lowrank_NR)),
                          networks_N)
    return w / b

  lo, hi = 0.0, 1.0
  if ratio(lo) > target:
    raise ValueError(f"within/between ratio is {ratio(lo):.2f} > {target} already at g_net = 0")
  while ratio(hi) < target:
    hi *= 2
    if hi > 1e4:
      raise ValueError(f"cannot reach within/between ratio {target}")
  for _ in range(60):
    mid = 0.5 * (lo + hi)
    lo, hi = (mid, hi) if ratio(mid) < target else (lo, mid)
  return 0.5 * (lo + hi)


def model_correlation(coords_N3: np.ndarray, networks_N: np.ndarray, p: dict):
  """(C float[N, N], g_net) of the parameter set (g_net calibrated when the ratio is > 0)."""
  rng = np.random.default_rng(np.random.SeedSequence(p["seed"]).spawn(3)[0])
  n, r = len(coords_N3), int(p["lowrank_rank"])
  lowrank = rng.normal(scale=p["lowrank_scale"] / np.sqrt(max(r, 1)), size=(n, r))
  g_net = p["g_net"]
  if p["within_between_ratio"] > 0:
    g_net = calibrate_g_net(coords_N3, networks_N, p, lowrank, p["within_between_ratio"])
  return to_correlation(covariance(coords_N3, networks_N, p, g_net, lowrank)), g_net


def sample_subjects(corr_NN: np.ndarray, num_subjects: int, num_time_points: int, ar_coef: float,
                    rng: np.random.Generator) -> np.ndarray:
  """float32[S, T, N] AR(1) series with stationary correlation C (see module docstring)."""
  chol = np.linalg.cholesky(corr_NN)
  n = len(corr_NN)
  z = rng.normal(size=(num_subjects, n)) @ chol.T
  out = np.empty((num_subjects, num_time_points, n), np.float32)
  innov = np.sqrt(1 - ar_coef ** 2)
  for t in range(num_time_points):
    if t:
      z = ar_coef * z + innov * (rng.normal(size=(num_subjects, n)) @ chol.T)
    out[:, t] = z
  return out


def generate(coords_N3: np.ndarray, networks_N: np.ndarray, p: dict) -> dict[str, np.ndarray]:
  """{'train' [S_train, T, N], 'test' [S_test, T, N], 'correlation' [N, N], 'g_net'}."""
  corr, g_net = model_correlation(coords_N3, networks_N, p)
  _, train_ss, test_ss = np.random.SeedSequence(p["seed"]).spawn(3)
  return {"train": sample_subjects(corr, p["num_train_subjects"], p["num_time_points"],
                                   p["ar_coef"], np.random.default_rng(train_ss)),
          "test": sample_subjects(corr, p["num_test_subjects"], p["num_time_points"],
                                  p["ar_coef"], np.random.default_rng(test_ss)),
          "correlation": corr.astype(np.float32), "g_net": float(g_net)}
