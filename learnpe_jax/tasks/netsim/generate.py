"""The network simulation's generator (docs/design.md, "The network simulation"): a nonlinear
stochastic network with hidden node positions.

Nodes i = 1..N have hidden positions x_i (random points in the unit square/cube, or a lattice
scaled to it) and, optionally, module labels m_i (spatially contiguous: k-means of the positions;
or random). The coupling matrix is

    A_ij = g_dist · exp(−‖x_i − x_j‖ / λ) + g_module · 1[m_i = m_j],   A_ii = 0,
    coupling_sign 'balanced' (default): A_ij ← A_ij − (1/(N−1)) Σ_k A_ik  (local excitation and
                  uniform inhibition, a neural-field "Mexican hat": many spatial modes, not one
                  dominant all-positive mode; activity correlations still fall with distance);
                  'positive': A as is; 'random': A_ij ← s_ij A_ij with symmetric signs s_ij = ±1;
    W = ρ · A / spectral_radius(A).

The spectral-radius normalisation keeps the dynamics stable: for ρ < 1 the linearised map is a
contraction; for ρ > 1 (the default, 1.5) the origin is unstable and the network settles into
noisy, spatially patterned states whose amplitude tanh bounds (|a| ≤ 1 + noise), so neighbours
carry information about a node's next state. The activity follows

    a_{t+1} = (1 − α) · a_t + α · tanh(W a_t + b) + σ_noise · ε_t,   ε_t ~ N(0, I),  b ~ N(0, σ_b²)

from a_0 ~ N(0, I), discarding ``burn_in`` steps. The test trajectories are run from fresh noise
and fresh initial states (same W and b). ``tfds_builder`` caches the result; ``task`` makes the
task of it.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.errors import ConfigError
# The generator's parameters (config.data fields) with their defaults; they name the cached dataset.
from learnpe_jax.tasks.netsim.defaults import GENERATOR_DEFAULTS  # noqa: F401

LAYOUTS = ("random", "lattice")
MODULE_ASSIGNMENTS = ("spatial", "random")
COUPLING_SIGNS = ("balanced", "positive", "random")


def node_positions(num_nodes: int, dim: int, layout: str, rng: np.random.Generator) -> np.ndarray:
  """float[N, dim] in [0, 1]^dim: uniform random points, or a lattice of side N^(1/dim)."""
  if layout == "random":
    return rng.uniform(size=(num_nodes, dim))
  side = int(round(num_nodes ** (1.0 / dim)))
  if side ** dim != num_nodes:
    raise ConfigError("data.num_nodes", num_nodes, f"a perfect {dim}-th power for a lattice layout")
  grid = np.stack(np.meshgrid(*[np.arange(side)] * dim, indexing="ij"), -1).reshape(-1, dim)
  return grid / max(side - 1, 1)


def node_modules(coords_ND: np.ndarray, num_modules: int, assignment: str,
                 rng: np.random.Generator) -> np.ndarray | None:
  """int[N] module labels (None when ``num_modules`` = 0): k-means of the positions ('spatial'),
  or a random balanced assignment ('random')."""
  n = len(coords_ND)
  if num_modules <= 0:
    return None
  if assignment == "random":
    return rng.permutation(np.arange(n) % num_modules).astype(np.int32)
  import sklearn.cluster
  km = sklearn.cluster.KMeans(n_clusters=num_modules, n_init=10,
                              random_state=int(rng.integers(2**31)))
  return km.fit_predict(coords_ND).astype(np.int32)


def coupling_matrix(coords_ND: np.ndarray, modules_N: np.ndarray | None, p: dict,
                    rng: np.random.Generator) -> np.ndarray:
  """W float[N, N] = ρ · A / spectral_radius(A) (see module docstring)."""
  d = np.linalg.norm(coords_ND[:, None] - coords_ND[None], axis=-1)
  a = p["g_dist"] * np.exp(-d / p["length_scale"])
  if modules_N is not None:
    a = a + p["g_module"] * (modules_N[:, None] == modules_N[None, :])
  np.fill_diagonal(a, 0.0)
  if p["coupling_sign"] == "balanced":
    a = a - a.sum(1, keepdims=True) / max(len(a) - 1, 1)
    np.fill_diagonal(a, 0.0)
  elif p["coupling_sign"] == "random":
    s = np.triu(rng.choice([-1.0, 1.0], size=a.shape), 1)
    a = a * (s + s.T)
  radius = np.max(np.abs(np.linalg.eigvals(a)))
  return p["spectral_radius"] * a / max(radius, 1e-12)


def simulate(w_NN: np.ndarray, b_N: np.ndarray, num_trajectories: int, length: int, p: dict,
             rng: np.random.Generator) -> np.ndarray:
  """float[R, T, N] trajectories of a_{t+1} = (1−α) a_t + α tanh(W a_t + b) + σ ε_t."""
  n = len(b_N)
  a = rng.normal(size=(num_trajectories, n))
  out = np.empty((num_trajectories, length, n), np.float32)
  for t in range(p["burn_in"] + length):
    a = ((1 - p["alpha"]) * a + p["alpha"] * np.tanh(a @ w_NN.T + b_N)
         + p["noise_sd"] * rng.normal(size=a.shape))
    if t >= p["burn_in"]:
      out[:, t - p["burn_in"]] = a
  return out


def generate(p: dict) -> dict[str, np.ndarray]:
  """The whole dataset of one parameter set: network, train and held-out test trajectories.

  Returns {'coords' [N, D], 'modules' [N] (−1 everywhere when there are none), 'coupling' [N, N],
  'bias' [N], 'train' [R_train, T, N], 'test' [R_test, T, N]} (trajectories unscaled).
  Streams: the network from ``seed``; train and test noise from separate child seeds, so the test
  trajectories are driven by noise the training set never saw.
  """
  for field, allowed in (("layout", LAYOUTS), ("module_assignment", MODULE_ASSIGNMENTS),
                         ("coupling_sign", COUPLING_SIGNS)):
    if p[field] not in allowed:
      raise ConfigError(f"data.{field}", p[field], f"one of {', '.join(allowed)}")
  if p["dim"] not in (1, 2, 3):
    raise ConfigError("data.dim", p["dim"], "1, 2 or 3")
  net_ss, train_ss, test_ss = np.random.SeedSequence(p["seed"]).spawn(3)
  rng = np.random.default_rng(net_ss)
  coords = node_positions(p["num_nodes"], p["dim"], p["layout"], rng)
  modules = node_modules(coords, p["num_modules"], p["module_assignment"], rng)
  w = coupling_matrix(coords, modules, p, rng)
  b = p["bias_sd"] * rng.normal(size=p["num_nodes"])
  train = simulate(w, b, p["num_train_trajectories"], p["trajectory_length"], p,
                   np.random.default_rng(train_ss))
  test = simulate(w, b, p["num_test_trajectories"], p["trajectory_length"], p,
                  np.random.default_rng(test_ss))
  return {"coords": coords.astype(np.float32),
          "modules": (np.full(len(coords), -1) if modules is None else modules).astype(np.int32),
          "coupling": w.astype(np.float32), "bias": b.astype(np.float32),
          "train": train, "test": test}
