"""What every task hands the trainer: arrays to put on device, true positions, the objective."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from learnpe_jax.positions import Positions


def generator_params(data_config, defaults: dict) -> dict:
  """A data generator's parameters from ``config.data``: each field of ``defaults`` (name → default
  value), taken from the config where it is set, cast to the default's type."""
  return {k: type(v)(data_config.get(k, v)) for k, v in defaults.items()}


KINDS = ("classification", "regression", "sequence")  # TaskData.kind: training/objectives.py

# Every name a task may put in ``TaskData.extras``, and what it holds (N tokens).
EXTRAS = {
    "region_names": "str[N]: the brain regions' names (the brain task)",
    "fc": "float64[N, N]: group functional connectivity of the training data (brain, with an FC)",
    "fc_modularity": "float: Newman's Q of the FC communities, which are ``modules`` (brain)",
    "hemispheres": "int[N]: 0 left, 1 right (brain, with an FC)",
}


@dataclasses.dataclass
class LengthEval:
  """A held-out set at a token count n other than the model's (``TaskData.length_eval``): arrays
  like ``test``'s (``tokens`` [S, n, F], ``target`` [S, n], ``loss_mask`` [S, n]) and the
  positions of its n tokens, which the trained model is applied at. ``unit``: what a token is, for
  the names of the scores (``bits_per_{unit}``)."""

  arrays: dict[str, np.ndarray]
  positions: Positions
  unit: str = "token"


@dataclasses.dataclass
class TaskData:
  """A task's data, resident in memory (and, for training, on device).

  Attributes:
    name: task name.
    kind: one of ``KINDS`` (``training/objectives.py``): 'classification' (integer ``target``
      [S], cross-entropy), 'regression' (float ``target``, MSE on the ``loss_mask`` entries) or
      'sequence' (integer ``target`` [S, N], next-token cross-entropy on the ``loss_mask`` tokens,
      exact match; a causal decoder with readout 'tokens').
    train, test: dicts of arrays with a leading example axis: ``tokens`` float[S, N, F],
      ``target``, ``level`` int[S] (condition index, for per-level metrics), and optionally
      ``query_index`` int[S] (for the 'query' readout).
    positions: the *true* token positions (coords always set, for analysis).
    coords_known: whether the model may read ``positions.coords``.
    num_outputs: classes (classification), outputs per token (regression) or the vocabulary
      (sequence).
    level_names: names of the ``level`` values.
    modules: optional int[N] ground-truth module labels of the tokens.
    module_names: optional names of the module labels (``modules`` value c → ``module_names[c]``),
      for the figures.
    target_variance: regression only: Var(target) of the test split, for R² = 1 − MSE / Var.
    extra_eval: further evaluation sets beside ``test``, by name (e.g. the LST's ``human``: the
      108 puzzles of the human experiment), each a dict of arrays like ``test``; every eval scores
      them and writes ``{name}_accuracy`` (or ``{name}_neg_mse``) and per level.
    pe_measures: optional PE measures of a task's own, ``f(vectors_BNW) -> dict`` of one model's
      per-block PE vectors; merged into the per-model PE metrics (``measures.pe_metrics``).
    extras: what a task carries beyond these fields, by name; only the names of ``EXTRAS``
      (each with what it holds), so that every reader knows what it may find. The brain task's
      functional connectivity (``fc``, with ``hemispheres``) adds the PE's functional measures to
      the per-model PE metrics (``measures.pe_metrics``) and the FC figures of ``analyze``.
    length_eval: sequence tasks only: held-out sets at other token counts than the model's
      (``LengthEval``), by name, scored once after training with the trained parameters applied
      at each set's own positions (``training/length_eval.py``): next-token cross-entropy in
      bits per token and perplexity, the summary's ``perplexity_by_length``. A PE whose table has
      fewer rows than a set has tokens gives that set no score.
  """

  name: str
  kind: str
  train: dict[str, np.ndarray]
  test: dict[str, np.ndarray]
  positions: Positions
  coords_known: bool
  num_outputs: int
  level_names: tuple[str, ...]
  modules: np.ndarray | None = None
  module_names: tuple[str, ...] | None = None
  target_variance: float | None = None
  extra_eval: dict[str, dict[str, np.ndarray]] = dataclasses.field(default_factory=dict)
  pe_measures: Callable[[np.ndarray], dict] | None = None
  extras: dict[str, Any] = dataclasses.field(default_factory=dict)
  length_eval: dict[str, LengthEval] = dataclasses.field(default_factory=dict)

  def __post_init__(self):
    if self.kind not in KINDS:
      raise ValueError(f"TaskData.kind {self.kind!r}: one of {', '.join(KINDS)}")
    if self.length_eval and self.kind != "sequence":
      raise ValueError(f"TaskData.length_eval: a 'sequence' task's (this one is {self.kind!r})")
    unknown = sorted(set(self.extras) - set(EXTRAS))
    if unknown:
      raise ValueError(f"TaskData.extras {unknown}: declare them in tasks.base.EXTRAS")

  @property
  def num_tokens(self) -> int:
    return self.positions.num_tokens

  def split(self, name: str) -> dict[str, np.ndarray]:
    """The arrays of ``train``, ``test`` or an ``extra_eval`` set."""
    if name in ("train", "test"):
      return getattr(self, name)
    return self.extra_eval[name]

  @property
  def eval_sets(self) -> tuple[str, ...]:
    """What every eval scores: ``test`` and the ``extra_eval`` sets."""
    return ("test",) + tuple(self.extra_eval)

  @property
  def model_positions(self) -> Positions:
    """What the model sees: the true positions, or only the token index when coords are unknown."""
    if self.coords_known:
      return self.positions
    return Positions(index=self.positions.index, coords=None, grid_shape=self.positions.grid_shape)
