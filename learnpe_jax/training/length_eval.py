"""Scores at other lengths than the trained one (``TaskData.length_eval``): the trained parameters
applied to each held-out set at that set's own positions (positions 0 … n−1 for n tokens), the
next-token cross-entropy of its scored tokens in bits per token and as perplexity.

The training arrays keep one token count (the model's, N); a set of n > N tokens is scored here,
once, after training (``report.run_summary``), so that training never pays for the longest length.
The model is the trainer's (built for N tokens), so every PE is used as it was trained: a PE that
reads its positions as numbers (sinusoids, RoPE, ALiBi, …) is evaluated at the new ones; one that
looks rows of a table up by the index (the learned table, ``PositionalEncoding.index_rows``) has
no row for positions ≥ its rows and gives that set no score (``None``, with the reason), never a
score from clamped or reused rows. Dropout is off (``model.pe_dropout_at_eval`` is not applied).

Per model and set (``perplexity_by_length[name]``):
  tokens                      n, the set's token count (context length)
  multiple                    n / N
  bits_per_{unit}             mean over the scored tokens of −log₂ p(target)
  perplexity                  2 ** bits_per_{unit}
  bits_per_{unit}_beyond_train  the same over the positions ≥ N only (when n > N): the tokens
                              whose position the training sequences never had
  scored                      how many tokens were scored
  no_score                    (instead of the scores) why the set has none

Inference-time RoPE context extension (``model.eval_rope_scaling``, e.g. ('linear', 'ntk',
'yarn')): a rotary PE trained without scaling is scored a second time on each set longer than N
with each method at factor n / N and trained length N (``pe/rope_scaling.py``), the same
parameters in a model whose PE alone differs; those sets are named ``{name}+{method}``.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import optax

from learnpe_jax.tasks.base import LengthEval
from learnpe_jax.training import sharding
from learnpe_jax.training.compiled import _pad_for_eval


def batch_size(trainer, num_tokens: int, num_examples: int) -> int:
  """``train.eval_batch_size`` at the model's token count N, scaled by (N / n)² at n tokens (the
  attention's memory), at least 1 and at most the set."""
  n_model = trainer.task.num_tokens
  scaled = trainer.config.train.eval_batch_size * n_model * n_model // (num_tokens * num_tokens)
  return max(1, min(num_examples, scaled))


def _token_losses(trainer, params, evalset: LengthEval, model=None):
  """(float[M, n] summed cross-entropy in nats per position, float[n] scored tokens per position)
  of every model (``model``: another module with the trained parameters' tree; default the
  trainer's)."""
  model = model or trainer.model
  arrays = {k: evalset.arrays[k] for k in ("tokens", "target", "loss_mask")}
  n = arrays["target"].shape[1]
  data = _pad_for_eval(arrays, batch_size(trainer, n, len(arrays["target"])))
  data = jax.device_put(data, sharding.replicated(trainer.mesh))
  positions = jax.tree.map(jnp.asarray, evalset.positions)

  def one(p):
    def on_batch(batch):
      logits = model.apply({"params": p}, batch["tokens"], positions)
      ce = optax.softmax_cross_entropy_with_integer_labels(logits, batch["target"])
      weight = batch["loss_mask"].astype(jnp.float32) * batch["valid"][:, None]
      return (ce * weight).sum(0), weight.sum(0)
    ce, weight = jax.lax.map(on_batch, data)
    return ce.sum(0), weight.sum(0)

  run = jax.jit(jax.vmap(one), out_shardings=sharding.per_model(trainer.mesh))
  ce, weight = sharding.to_host(run(params))
  return ce, weight[0]


def no_score_reason(trainer, evalset: LengthEval) -> str | None:
  """Why the trained model cannot score ``evalset`` (its PE's table has too few rows), or None."""
  n = evalset.positions.num_tokens
  rows = trainer.model.pe.index_rows(evalset.positions)
  if rows is not None and rows < n:
    return (f"PE {trainer.config.model.pe.name!r} looks positions up in a table of {rows} rows: "
            f"no score at positions {rows} … {n - 1}")
  return None


def scaled_model(trainer, method: str, factor: float):
  """The trainer's model with its rotary PE scaled by ``method`` at ``factor`` from the trained
  length (the task's token count): the same parameter tree, only the PE's frequencies differ."""
  from learnpe_jax.training.compiled import build_model
  config = trainer.config.copy_and_resolve_references()
  with config.unlocked():
    config.model.pe.rope_scaling = method
    config.model.pe.rope_scaling_factor = float(factor)
    config.model.pe.original_max_positions = trainer.task.num_tokens
  return build_model(config, trainer.task)


def _scores(trainer, params, evalset: LengthEval, head: dict, rows: list[dict], name: str,
            model=None) -> None:
  """Score ``evalset`` with every model into ``rows[i][name]``."""
  n_model = trainer.task.num_tokens
  bits = f"bits_per_{evalset.unit}"
  ce, weight = _token_losses(trainer, params, evalset, model)
  scored = float(weight.sum())
  for i, row in enumerate(rows):
    mean_bits = float(ce[i].sum()) / scored / math.log(2)
    row[name] = dict(head, **{bits: mean_bits, "perplexity": 2.0 ** mean_bits})
    beyond = float(weight[n_model:].sum())
    if beyond > 0:
      row[name][f"{bits}_beyond_train"] = float(ce[i, n_model:].sum()) / beyond / math.log(2)
    row[name]["scored"] = int(scored)


def perplexity_by_length(trainer, params) -> list[dict]:
  """Per model: {set name: its scores} for every set of ``trainer.task.length_eval`` (and
  ``{name}+{method}`` for each ``model.eval_rope_scaling`` method on the sets longer than N)."""
  rows = [{} for _ in range(trainer.axis.size)]
  n_model = trainer.task.num_tokens
  methods = tuple(trainer.config.model.eval_rope_scaling)
  for name, evalset in trainer.task.length_eval.items():
    n = evalset.positions.num_tokens
    head = {"tokens": n, "multiple": n / n_model}
    reason = no_score_reason(trainer, evalset)
    if reason is not None:
      bits = f"bits_per_{evalset.unit}"
      for row in rows:
        row[name] = dict(head, **{bits: None, "perplexity": None, "no_score": reason})
      continue
    _scores(trainer, params, evalset, head, rows, name)
    if n > n_model:
      for method in methods:
        _scores(trainer, params, evalset, dict(head, rope_scaling=method), rows,
                f"{name}+{method}", scaled_model(trainer, method, n / n_model))
  return rows


def bits_name(summary_row: dict, name: str) -> str | None:
  """The ``bits_per_{unit}`` key of a summary row's set ``name`` (None when it has none)."""
  entry = summary_row.get("perplexity_by_length", {}).get(name, {})
  return next((k for k in entry if k.startswith("bits_per_") and not k.endswith("_beyond_train")),
              None)

