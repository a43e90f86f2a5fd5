"""The PE's own training knobs: ``model.pe_dropout`` (dropout after the PE is added, optionally on
at evaluation) and ``optim.pe_lr_scale`` (a learning rate for the PE alone)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from configs import common
from learnpe_jax.errors import ConfigError
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training import config_validation
from learnpe_jax.training.optim import make_optimizer
from learnpe_jax.training.sweep import model_axis
from learnpe_jax.training.compiled import Trainer
from tests.helpers import assert_sweep_equals_single_runs


def _updates(pe_lr_scale, name="adamw"):
  optim = common.optim(learning_rate=1e-3)
  optim.name, optim.pe_lr_scale, optim.weight_decay = name, pe_lr_scale, 0.01
  params = {"pe": {"table_0": jnp.ones((4, 3))}, "block_0": {"kernel": jnp.ones((3, 3))},
            "head": {"bias": jnp.ones(3)}}
  grads = jax.tree.map(lambda p: jnp.linspace(-1.0, 2.0, p.size).reshape(p.shape), params)
  tx = make_optimizer(optim, 1e-3)
  state = tx.init(params)
  for _ in range(3):  # a few steps: Adam's moments in play
    updates, state = tx.update(grads, state, params)
  return updates


@pytest.mark.parametrize("name", ["adamw", "sgd"])
def test_pe_lr_scale_scales_the_pe_updates_alone(name):
  base, scaled = _updates(1.0, name), _updates(30.0, name)
  np.testing.assert_allclose(scaled["pe"]["table_0"], 30.0 * base["pe"]["table_0"], rtol=1e-6)
  for key in ("block_0", "head"):
    for a, b in zip(jax.tree.leaves(scaled[key]), jax.tree.leaves(base[key]), strict=True):
      np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("field,value,message", [
    ("model.pe_dropout", 1.0, "model.pe_dropout=1.0 is not allowed: a rate in [0, 1)"),
    ("model.pe_dropout", -0.1, "model.pe_dropout=-0.1"),
    ("optim.pe_lr_scale", 0.0, "optim.pe_lr_scale=0.0"),
])
def test_bad_pe_knobs_are_one_line_config_errors(smoke_config, field, value, message):
  smoke_config.update_from_flattened_dict({field: value})
  with pytest.raises(ConfigError, match=re.escape(message)):
    config_validation.validate(smoke_config)


def _dropout_trainer(config, at_eval):
  config.model.pe_dropout = 0.5
  config.model.pe_dropout_at_eval = at_eval
  return Trainer(config, load_task(config), model_axis(config))


@pytest.mark.e2e
def test_dropout_at_eval_is_a_fixed_draw_and_off_by_default(smoke_config):
  """With ``pe_dropout_at_eval`` the same parameters score the same twice (a fixed per-model draw)
  and differently from the deterministic evaluation, which equals the model without dropout."""
  on = _dropout_trainer(smoke_config.copy_and_resolve_references(), True)
  off = _dropout_trainer(smoke_config.copy_and_resolve_references(), False)
  params = on.init()["models"]["params"]
  a, b = on.evaluate(params, "test"), on.evaluate(params, "test")
  np.testing.assert_array_equal(a["loss"], b["loss"])
  plain_config = smoke_config.copy_and_resolve_references()
  plain = Trainer(plain_config, load_task(plain_config), model_axis(plain_config))
  np.testing.assert_array_equal(off.evaluate(params, "test")["loss"],
                                plain.evaluate(params, "test")["loss"])
  assert np.all(np.abs(a["loss"] - off.evaluate(params, "test")["loss"]) > 1e-4)


@pytest.mark.slow
@pytest.mark.e2e
def test_vmapped_sweep_with_pe_dropout_and_pe_lr_equals_single_runs(smoke_config):
  """Each model's dropout draws and PE learning rate are its own: the sweep equals the loop."""
  config = smoke_config
  config.model.pe_dropout = 0.1
  config.optim.pe_lr_scale = 3.0
  config.train.chunk_steps = 30
  assert_sweep_equals_single_runs(config, chunks=1)
