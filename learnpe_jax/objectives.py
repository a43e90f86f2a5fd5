"""Losses and metrics per task kind: classification (cross-entropy) and regression (MSE, R²)."""

from __future__ import annotations

import jax.numpy as jnp
import optax


def per_example(kind: str, outputs, target):
  """(loss[B], score[B]): score is correctness (classification) or −squared error (regression)."""
  if kind == "classification":
    loss = optax.softmax_cross_entropy_with_integer_labels(outputs, target)
    return loss, (jnp.argmax(outputs, -1) == target).astype(jnp.float32)
  err = jnp.mean(jnp.square(outputs - target), axis=tuple(range(1, outputs.ndim)))
  return err, -err
