"""Experiment 2: a nonlinear stochastic network with hidden node positions (docs/design.md, "The
network simulation").

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

from a_0 ~ N(0, I), discarding ``burn_in`` steps. Activity is then scaled by one scalar (the sd of
the training trajectories), so targets have unit variance.

Tasks (tokens = nodes, one scalar per node embedded by the encoder's linear map):
  'next_step'  tokens = the last ``context_steps`` states a_{t−k+1..t} (F = k); target a_{t+1}.
  'masked'     tokens = (a_t ⊙ (1 − m), m) (F = 2) with a random mask m of ``mask_fraction`` of the
               nodes; target a_t, scored on the masked nodes only (``loss_mask`` = m).
Generalisation: the test split is made of held-out trajectories run from fresh noise and fresh
initial states (same W and b). True coordinates and module labels ship with the dataset.
"""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.errors import ConfigError
from learnpe_jax.positions import Positions
from learnpe_jax.tasks.base import TaskData

TASK_MODES = ("next_step", "masked")
LAYOUTS = ("random", "lattice")
MODULE_ASSIGNMENTS = ("spatial", "random")
COUPLING_SIGNS = ("balanced", "positive", "random")

# The generator's parameters (config.data fields) with their defaults; they name the cached dataset.
GENERATOR_DEFAULTS = {
    "num_nodes": 64, "dim": 2, "layout": "random", "num_modules": 4, "module_assignment": "spatial",
    "length_scale": 0.2, "g_dist": 1.0, "g_module": 0.5, "coupling_sign": "balanced",
    "spectral_radius": 1.5, "alpha": 1.0, "bias_sd": 0.1, "noise_sd": 0.3,
    "num_train_trajectories": 10, "num_test_trajectories": 10, "trajectory_length": 200,
    "burn_in": 100, "seed": 0,
}


def generator_params(data_config) -> dict:
  """The generator's parameters from ``config.data`` (missing fields take their defaults)."""
  return {k: type(v)(data_config.get(k, v)) for k, v in GENERATOR_DEFAULTS.items()}


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


# ---- examples from trajectories (shared with the brain task) ------------------------------------

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


def load_task(config) -> TaskData:
  from learnpe_jax.tasks import netsim_tfds
  d = config.data
  p = generator_params(d)
  raw = netsim_tfds.load(os.path.expanduser(d.data_dir), p)
  scale = float(np.std(raw["train"])) or 1.0
  rng = np.random.default_rng(p["seed"] + 1)
  mode = d.get("mode", "next_step")
  splits = {name: make_split(raw[name] / scale, mode, d.get("context_steps", 1),
                             d.get("mask_fraction", 0.25), rng,
                             d.get(f"max_{name}_examples", 0))
            for name in ("train", "test")}
  modules = raw["modules"] if raw["modules"].min() >= 0 else None
  coords = raw["coords"]
  return TaskData(
      name="netsim", kind="regression", train=splits["train"], test=splits["test"],
      positions=Positions(index=np.arange(len(coords), dtype=np.int32), coords=coords),
      coords_known=bool(d.get("coords_known", True)), num_outputs=1, level_names=("all",),
      modules=modules, target_variance=target_variance(splits["test"]))
