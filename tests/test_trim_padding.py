"""``train.trim_padding`` (``learnpe_jax/training/trim.py``): a causal decoder trained on its
sequences cut after the last scored token trains the same function as on the padded ones: the
same outputs for every catalogue PE a decoder on a 1-D sequence takes (except the PEs that read
the positions' span, which the config check refuses), the same parameters after training, with
and without randomized positions; what it cannot keep the same is refused before compiling."""

import json
import os

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import pytest

from learnpe_jax.errors import ConfigError
from learnpe_jax.models.encoder import Encoder
from learnpe_jax.pe.registry import REGISTRY, build_pe, default_pe_config, get_spec
from learnpe_jax.positions import sequence_positions
from learnpe_jax.tasks.lengthgen.generate import sequence_length
from learnpe_jax.training import config_validation, trim
from tests.helpers import checked_trainer, length_smoke_config, one_per_mechanism, words_of

N, T = 12, 5  # padded length; the cut
DECODER_PES = [n for n in sorted(REGISTRY)
               if get_spec(n).causal and not get_spec(n).module.needs_grid]


def _pe(name, **fields):
  config = default_pe_config(name)
  config.update(fields)
  return build_pe(config, width=16, num_heads=2, num_tokens=N, init_scale=0.5)


def _cut_changes_the_first_tokens(pe) -> bool:
  model = Encoder(pe=pe, width=16, depth=2, num_heads=2, num_outputs=3, readout="tokens",
                  causal=True)
  x = jax.random.normal(jax.random.PRNGKey(1), (2, N, 5))
  params = model.init(jax.random.PRNGKey(0), x, sequence_positions(N))
  full = model.apply(params, x, sequence_positions(N))[:, :T]
  cut = model.apply(params, x[:, :T], sequence_positions(T))
  return not np.allclose(full, cut, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", one_per_mechanism(DECODER_PES))
def test_a_cut_sequence_gives_the_same_outputs_unless_the_pe_reads_the_span(name):
  """``reads_extent`` is true exactly for the PEs whose terms change when later positions go."""
  pe = _pe(name)
  assert _cut_changes_the_first_tokens(pe) == pe.reads_extent


def test_the_span_reading_pes_are_named_and_a_length_dependent_rope_scaling_reads_it():
  assert sorted(n for n in DECODER_PES if _pe(n).reads_extent) == ["legendre", "rope_high_freq"]
  dynamic = _pe("rope", rope_scaling="dynamic_ntk", rope_scaling_factor=2.0,
                original_max_positions=T - 2)
  assert dynamic.reads_extent and _cut_changes_the_first_tokens(dynamic)
  assert not _pe("rope", rope_scaling="yarn", rope_scaling_factor=2.0,
                 original_max_positions=T - 2).reads_extent


def test_scored_length_and_cut():
  mask = np.zeros((3, 9), np.float32)
  mask[0, 2:4], mask[2, 5] = 1, 1
  split = {"tokens": np.ones((3, 9, 4)), "target": np.zeros((3, 9), np.int32), "loss_mask": mask,
           "level": np.arange(3)}
  assert trim.scored_length(split) == 6
  out, positions = trim.cut(split, sequence_positions(9), 6)
  assert out["tokens"].shape == (3, 6, 4) and out["loss_mask"].shape == (3, 6)
  np.testing.assert_array_equal(out["level"], split["level"])
  assert positions.index.tolist() == list(range(6)) and positions.coords.shape == (6, 1)
  assert out["loss_mask"].sum() == mask.sum()  # nothing scored is cut


@pytest.mark.e2e  # the compiled trainer over a whole chunk, like every trainer test
@pytest.mark.parametrize("pe_name, randomized", [  # the randomized RoPE case is slow
    ("learned", 0), pytest.param("rope", 40, marks=pytest.mark.slow)])
def test_training_on_cut_sequences_equals_training_on_padded_ones(data_dir, pe_name, randomized):
  """Ten steps of every model of the sweep: the same parameters up to float roundoff, from a
  batch about half as long (the smoke problem: copy at L = 4, inputs of 8 tokens of 16)."""
  trained, inits, lengths = {}, {}, {}
  for trim_padding in (False, True):
    trainer = checked_trainer(length_smoke_config(data_dir, pe_name, randomized, trim_padding))
    state = trainer.init()
    inits[trim_padding] = jax.tree.map(np.asarray, state["models"]["params"])  # state is donated
    lengths[trim_padding] = (trainer.train_data["tokens"].shape[1], trainer.task.num_tokens)
    state, metrics = trainer.train_chunk(state)
    trained[trim_padding] = (state["models"]["params"], metrics)
  assert lengths == {False: (16, 16), True: (8, 16)}
  jax.tree.map(np.testing.assert_array_equal, inits[False], inits[True])  # the same init
  (padded, padded_metrics), (cut, cut_metrics) = trained[False], trained[True]
  moved = jax.tree.leaves(jax.tree.map(lambda a, b: float(jnp.abs(a - b).max()), padded, cut))
  assert max(moved) < 1e-4, max(moved)
  np.testing.assert_allclose(padded_metrics["loss"], cut_metrics["loss"], rtol=1e-5)


@pytest.mark.parametrize("pe_name, change, words", [
    ("legendre", {}, "span of the positions"),
    ("learned", {"pe_dropout": 0.1}, "pe_dropout"),
])
def test_what_would_not_train_the_same_is_refused_before_compiling(data_dir, pe_name, change,
                                                                   words):
  config = length_smoke_config(data_dir, pe_name, trim_padding=True)
  config.model.update(change)
  with pytest.raises(ConfigError, match=rf"train\.trim_padding.*{words}"):
    checked_trainer(config)


def test_a_task_without_padding_to_cut_and_a_non_boolean_are_refused(smoke_config):
  from learnpe_jax.tasks.registry import load_task
  smoke_config.train.trim_padding = True
  config_validation.validate(smoke_config)
  with pytest.raises(ConfigError, match=r"train\.trim_padding.*only a sequence task"):
    config_validation.validate_with_task(smoke_config, load_task(smoke_config))
  smoke_config.train = ml_collections.ConfigDict(  # e.g. a config read back from JSON
      smoke_config.train.to_dict() | {"trim_padding": "yes"})
  with pytest.raises(ConfigError, match=r"train\.trim_padding.*True or False"):
    config_validation.validate(smoke_config)


def test_the_docs_speed_words_hold_on_the_kept_benchmark():
  """docs/performance.md, "Cut padding": the tier-2 rows of every length problem that runs at tier
  2 train on inputs of the longest training sequence, more than twice as fast (a ratio of 2.2 or
  more, ``benchmarks/results/trim_padding_speed.json``)."""
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  with open(os.path.join(root, "benchmarks", "results", "trim_padding_speed.json")) as f:
    kept = json.load(f)
  assert {r["problem"] for r in kept["rows"]} == {"copy", "reverse", "addition", "polynomial"}
  for r in kept["rows"]:
    assert r["input_tokens"] == {"padded": sequence_length(r["problem"], 16) - 1,
                                 "cut": sequence_length(r["problem"], 8) - 1}
    assert r["ratio_padded_over_cut"] >= 2.2, r
  doc = words_of(os.path.join(root, "docs", "performance.md"))
  assert "each row trains more than twice as fast (a ratio of 2.2 or more on each problem" in doc
