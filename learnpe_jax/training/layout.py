"""How the models of a sweep share the machine: ``scan_vmap`` is ``jax.lax.scan(jax.vmap(step))``
with the models laid out in groups and streams. The layout changes only the schedule, not what a
model computes (equal up to float roundoff; ``tests/test_train.py``).

Layouts, from ``train.models_per_group`` (G) and ``train.parallel_streams`` (S), for M models:

  G = M (or 0)   one vmap of every model (with S = 1: the plain ``scan(vmap(step))``).
  G < M          M/G groups of G models, one group after another in the same program
                 (``jax.lax.map``); a group bounds the activation memory, and on a CPU small vmaps
                 use the cache better.
  S > 1          a group runs as S independent vmaps of G/S models inside one scan body; the CPU
                 runtime runs independent ops of a program concurrently, so two streams keep two
                 cores busy without splitting every small op between them.
  None           by platform: on a CPU G = S = 2 (``CPU_STREAMS``), elsewhere G = M and S = 1.

G is rounded down to a divisor of M, and S to a divisor of G.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

CPU_STREAMS = 2  # docs/performance.md


@dataclasses.dataclass(frozen=True)
class Layout:
  models_per_group: int  # models that train together; groups run one after another
  parallel_streams: int  # independent vmaps a group is split into


def _largest_divisor(n: int, at_most: int) -> int:
  return max(d for d in range(1, min(at_most, n) + 1) if n % d == 0)


def layout(train_config, num_models: int) -> Layout:
  """The layout of ``train.models_per_group``/``train.parallel_streams`` for ``num_models``."""
  on_cpu = jax.default_backend() == "cpu"
  group, streams = train_config.models_per_group, train_config.parallel_streams
  group = (CPU_STREAMS if on_cpu else 0) if group is None else group
  streams = (CPU_STREAMS if on_cpu else 1) if streams is None else streams
  group = _largest_divisor(num_models, group or num_models)
  return Layout(models_per_group=group, parallel_streams=_largest_divisor(group, streams))


def _into_parts(tree, num_parts: int) -> list:
  """The leading (model) axis cut into ``num_parts`` equal consecutive parts."""
  return [jax.tree.map(lambda a: a.reshape((num_parts, -1) + a.shape[1:])[i], tree)
          for i in range(num_parts)]


def _concat_parts(parts: list):
  return jax.tree.map(lambda *arrays: jnp.concatenate(arrays), *parts)


def scan_vmap(step_fn, carry, xs, per_model, layout: Layout):
  """``jax.lax.scan`` over ``xs`` of ``jax.vmap(step_fn)`` over the models, scheduled by ``layout``.

  For every model m, independently: ``carry[m] = step_fn(carry[m], x, per_model[m])`` for each
  ``x`` of ``xs`` in turn. Every leaf of ``carry`` and ``per_model`` has the leading model axis;
  ``x`` is shared by all models. Returns the final carry.
  """
  num_models = jax.tree.leaves(carry)[0].shape[0]
  step_models = jax.vmap(step_fn, in_axes=(0, None, 0))
  streams = layout.parallel_streams

  def scan_group(group):
    """The whole scan for one group: its ``streams`` vmaps side by side in the scan body."""
    group_carry, group_per_model = group
    stream_inputs = _into_parts(group_per_model, streams)

    def body(stream_carries, x):
      return [step_models(c, x, inputs)
              for c, inputs in zip(stream_carries, stream_inputs, strict=True)], None

    stream_carries, _ = jax.lax.scan(body, _into_parts(group_carry, streams), xs)
    return _concat_parts(stream_carries)

  group_size = layout.models_per_group
  if group_size == num_models:
    return scan_group((carry, per_model))
  num_groups = num_models // group_size
  as_groups = lambda a: a.reshape((num_groups, group_size) + a.shape[1:])
  final = jax.lax.map(scan_group, jax.tree.map(as_groups, (carry, per_model)))
  return jax.tree.map(lambda a: a.reshape((num_models,) + a.shape[2:]), final)
