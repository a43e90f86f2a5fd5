"""The optimizer, with the learning rate a per-model value in its state.

    adamw (default, the companion's):  update = −lr_m · warmup(t) · (adam(g) + wd · θ)
                                        (optax.scale_by_adam; Loshchilov & Hutter 2019)
    sgd (the study's optimizer ablation): m ← momentum · m + g,
                                        update = −lr_m · warmup(t) · (m + wd · θ)
                                        (heavy-ball momentum, optax.trace; momentum 0: plain SGD)

With ``pe_lr_scale`` ≠ 1 the PE's parameters (the model's ``pe`` subtree) take steps of
``pe_lr_scale`` times that size, weight decay included (``optax.multi_transform``): a learning
rate for the PE alone, the rest of the model unchanged.

``lr_m`` lives in the optimizer state (``optax.inject_hyperparams``), so models with different
learning rates share one compiled step.
"""

from __future__ import annotations

import jax
import optax

PE_PARAMS = "pe"  # the name of the PE submodule in the model's parameter tree


def pe_labels(params):
  """'pe' for every leaf of the PE's subtree, 'rest' for the others."""
  return {k: jax.tree.map(lambda _, k=k: "pe" if k == PE_PARAMS else "rest", v)
          for k, v in params.items()}


def make_optimizer(optim_config, learning_rate=0.0) -> optax.GradientTransformation:
  """``learning_rate`` only seeds the state at init; the update reads it from the state."""
  c = optim_config
  parts = []
  if c.grad_clip_norm > 0:
    parts.append(optax.clip_by_global_norm(c.grad_clip_norm))
  if c.name == "sgd":
    parts.append(optax.trace(decay=c.momentum))
  else:
    parts.append(optax.scale_by_adam(b1=c.b1, b2=c.b2, eps=c.eps))
  if c.weight_decay > 0:
    parts.append(optax.add_decayed_weights(c.weight_decay))
  if c.warmup_steps > 0:
    parts.append(optax.scale_by_schedule(optax.linear_schedule(0.0, 1.0, c.warmup_steps)))
  parts.append(optax.inject_hyperparams(optax.scale)(step_size=-learning_rate))
  if c.pe_lr_scale != 1.0:
    parts.append(optax.multi_transform({"pe": optax.scale(c.pe_lr_scale),
                                        "rest": optax.identity()}, pe_labels))
  return optax.chain(*parts)

