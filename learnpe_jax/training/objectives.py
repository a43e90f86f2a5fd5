"""Losses and metrics per task kind: classification (cross-entropy), regression (MSE) and sequence
(next-token cross-entropy on the scored tokens, exact match).

``per_example(kind, outputs, batch)`` returns (loss[B], score[B]):
  classification  loss = CE(outputs, target),   score = 1[argmax outputs = target]
  regression      loss = mean over the scored entries of (outputs − target)²,  score = −loss
                  where the scored entries are those with ``batch['loss_mask']`` = 1 (all if absent),
                  e.g. only the masked nodes in masked-node reconstruction.
  sequence        loss = mean over the scored tokens (``loss_mask`` = 1) of CE(outputs_t, target_t),
                  score = 1 when every scored token's argmax is its target (exact match)
R² = 1 − MSE / Var(target) is derived from the MSE in ``report.py``.
"""

from __future__ import annotations

import jax.numpy as jnp
import optax


def per_example(kind: str, outputs, batch):
  target = batch["target"]
  if kind == "classification":
    loss = optax.softmax_cross_entropy_with_integer_labels(outputs, target)
    return loss, (jnp.argmax(outputs, -1) == target).astype(jnp.float32)
  if kind == "sequence":
    mask = batch["loss_mask"].astype(jnp.float32)
    token_loss = optax.softmax_cross_entropy_with_integer_labels(outputs, target)
    loss = (token_loss * mask).sum(-1) / jnp.maximum(mask.sum(-1), 1.0)
    wrong = (jnp.argmax(outputs, -1) != target) & (mask > 0)
    return loss, (~wrong.any(-1)).astype(jnp.float32)
  outputs = outputs.reshape(target.shape)
  sq = jnp.square(outputs - target)
  mask = batch.get("loss_mask")
  mask = jnp.ones_like(sq) if mask is None else jnp.broadcast_to(mask, sq.shape).astype(sq.dtype)
  axes = tuple(range(1, sq.ndim))
  err = (sq * mask).sum(axes) / jnp.maximum(mask.sum(axes), 1.0)
  return err, -err
