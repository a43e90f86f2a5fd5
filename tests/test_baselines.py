"""The non-transformer baselines (``model.kind`` = 'lstm', 'gru', 'mlp'; models/baselines.py): they
train, vmap over σ like the transformer, refuse non-additive PEs before compiling, and leave the
default transformer exactly as it was."""

import hashlib
import json
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from configs import grid2d
from learnpe_jax.errors import ConfigError, UserError
from learnpe_jax.models.baselines import MLPBaseline, RecurrentBaseline
from learnpe_jax.pe import build_pe, default_pe_config
from learnpe_jax.positions import grid_positions
from learnpe_jax.run.workdir import Workdir
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training.config_validation import validate
from learnpe_jax.training.sweep import model_axis
from learnpe_jax.training.compiled import Trainer, build_model
from tests.helpers import assert_sweep_equals_single_runs, run_main


def _baseline(config, kind, bidirectional=False):
  config.model.kind = kind
  config.model.bidirectional = bidirectional
  return config


@pytest.mark.e2e
@pytest.mark.parametrize("kind, bidirectional", [("lstm", False), ("gru", False), ("mlp", False),
                                                 ("lstm", True)])
def test_each_baseline_trains_and_its_loss_decreases(smoke_config, kind, bidirectional):
  config = _baseline(smoke_config, kind, bidirectional)
  config.sweep.pe_init_scale = (0.3,)
  config.sweep.seeds = (0,)
  validate(config)
  trainer = Trainer(config, load_task(config), model_axis(config))
  state = trainer.init()
  losses = []
  for _ in range(3):
    state, metrics = trainer.train_chunk(state)
    losses.append(float(metrics["loss"][0]))
  assert np.all(np.isfinite(losses)) and losses[-1] < losses[0] - 0.02, losses
  # The PE vectors are the learned table, as for the transformer (one PE block: [M, 1, N, W]).
  vectors = np.asarray(trainer.pe_vectors(state["models"]["params"]))
  table = np.asarray(state["models"]["params"]["pe"]["table_0"])
  assert vectors.shape == (1, 1, 16, config.model.width)
  np.testing.assert_allclose(vectors[:, 0], table)
  assert trainer.model.pe_blocks() == [0]



@pytest.mark.slow
@pytest.mark.e2e
def test_vmapped_sigma_sweep_equals_single_runs_for_lstm(smoke_config):
  config = _baseline(smoke_config, "lstm")
  config.sweep.pe_init_scale = (0.05, 1.5)
  config.sweep.seeds = (3,)
  config.train.chunk_steps = 20
  joint = assert_sweep_equals_single_runs(config, chunks=2)
  pe = joint["models"]["params"]["pe"]["table_0"]
  assert not np.allclose(pe[0], pe[1])  # σ matters


def test_sigma_scales_the_baseline_pe_as_a_traced_array():
  """Same seed, two σ in one vmapped init: the PE tables differ by exactly the ratio of σ."""
  config = grid2d.get_config("smoke")
  config.model.kind = "gru"
  task = types.SimpleNamespace(num_tokens=16, num_outputs=4)
  positions = jax.tree.map(jnp.asarray, grid_positions((4, 4)))
  tokens = jnp.ones((1, 16, 5))
  params = jax.vmap(lambda s: build_model(config, task, pe_init_scale=s).init(
      jax.random.PRNGKey(0), tokens, positions)["params"])(jnp.array([0.1, 2.0]))
  table = np.asarray(params["pe"]["table_0"])
  np.testing.assert_allclose(table[1], table[0] * 20.0, rtol=1e-5)
  np.testing.assert_allclose(params["rnn_0"]["cell"]["ir"]["kernel"][0],
                             params["rnn_0"]["cell"]["ir"]["kernel"][1])  # the rest: same draw


@pytest.mark.e2e
def test_non_additive_pe_for_lstm_is_one_line_config_error_before_compiling(tmp_path):
  result = run_main(tmp_path / "w", "--config.model.kind=lstm",
                    config="configs/grid2d.py:smoke,pe=rope")
  assert result.returncode == 2, result.stderr[-2000:]
  assert result.stderr.strip().count("\n") == 0, result.stderr
  assert "config.model.pe.name='rope' is not allowed: a PE that adds a vector per token for " \
         "model.kind='lstm'" in result.stderr
  assert "learned" in result.stderr
  assert not (tmp_path / "w").exists()  # refused before anything was written


@pytest.mark.parametrize("field, value, message", [
    ("kind", "rnn", "config.model.kind='rnn' is not allowed: one of transformer, lstm, gru, mlp"),
    ("readout", "mean", "config.model.readout='mean' is not allowed: one of last, tokens for "
                        "model.kind='mlp'"),
])
def test_bad_baseline_fields_are_config_errors(field, value, message):
  config = grid2d.get_config("smoke")
  config.model.kind = "mlp"
  config.model[field] = value
  with pytest.raises(ConfigError) as err:
    validate(config)
  assert message in str(err.value) and "\n" not in str(err.value)
  # every additive PE passes, e.g. the fixed 2-D sinusoid with one σ
  ok = grid2d.get_config("smoke,pe=sinusoidal_nd")
  ok.model.kind = "lstm"
  validate(ok)


def test_module_refuses_a_non_additive_pe_at_trace_time():
  """Built directly (no config validation), the baseline still fails with one ConfigError line."""
  positions = jax.tree.map(jnp.asarray, grid_positions((4, 4)))
  pe = build_pe(default_pe_config("alibi_nd"), width=8, num_heads=1, num_tokens=16)
  for model in (RecurrentBaseline(pe=pe, width=8, depth=1), MLPBaseline(pe=pe, width=8, depth=1)):
    with pytest.raises(ConfigError, match="a PE that adds a vector per token") as err:
      model.init(jax.random.PRNGKey(0), jnp.ones((1, 16, 5)), positions)
    assert "\n" not in str(err.value)


def _tree_hash(params) -> str:
  h = hashlib.sha256()
  leaves = jax.tree_util.tree_flatten_with_path(params)[0]
  for path, leaf in sorted(leaves, key=lambda kv: jax.tree_util.keystr(kv[0])):
    a = np.asarray(leaf)
    h.update(jax.tree_util.keystr(path).encode())
    h.update(str(a.dtype).encode())
    h.update(str(a.shape).encode())
    h.update(a.tobytes())
  return h.hexdigest()


# Computed with the code as it was before model.kind existed (jax 0.10.2, flax 0.12.8, CPU): the
# vmapped init (σ = 0.1, 2.0; keys split from PRNGKey(0)) of the default and smoke grid2d models.
TRANSFORMER_HASHES = {  # "reduced" is the default before it became 4 blocks (same params)
    "": "77ccd2da684876ec1dbc8b202e1f1b0b09af79a95f88a0270cee2d91cc0389fa",
    "reduced": "cef394f033a1aa132ae8f12e95b7162c59c326f3164eee64423bfd798b41b24e",
    "smoke": "3c19393f6510936bafc0412b0e16b76890d43d2369ce89dd33e61af50f304fba",
}


# e2e: the hashes pin the bits under XLA's default optimisation, which the fast unit tier turns
# off (tests/conftest.py).
@pytest.mark.e2e
@pytest.mark.parametrize("variant", sorted(TRANSFORMER_HASHES))
def test_default_transformer_params_are_bit_identical_to_before(variant):
  config = grid2d.get_config(variant)
  config.model.weight_init = "flax"  # the default now starts from PyTorch's init; Flax's is pinned
  assert config.model.kind == "transformer" and config.model.bidirectional is False
  task = types.SimpleNamespace(num_tokens=16, num_outputs=4)
  positions = jax.tree.map(jnp.asarray, grid_positions((4, 4)))
  tokens = jnp.ones((1, 16, 5), jnp.float32)
  init = lambda s, key: build_model(config, task, pe_init_scale=s).init(key, tokens,
                                                                          positions)["params"]
  params = jax.vmap(init)(jnp.array([0.1, 2.0]), jax.random.split(jax.random.PRNGKey(0), 2))
  assert _tree_hash(params) == TRANSFORMER_HASHES[variant]


def test_a_run_recorded_before_model_kind_resumes(tmp_path):
  """An older config.json has no model.kind/bidirectional: it is the same config as the default."""
  config = grid2d.get_config("smoke")
  new = json.loads(config.to_json())
  old = json.loads(config.to_json())
  del old["model"]["kind"], old["model"]["bidirectional"]
  (tmp_path / "config.json").write_text(json.dumps(old))
  Workdir(str(tmp_path)).prepare(new, resume=True)  # no refusal
  new["model"]["kind"] = "lstm"
  with pytest.raises(UserError, match="different config .*model.kind"):
    Workdir(str(tmp_path)).prepare(new, resume=True)
