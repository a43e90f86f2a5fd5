"""RoPE context extension at evaluation (``model.eval_rope_scaling``,
``training/length_eval.py``): a RoPE model trained at L is scored again beyond L with each method
at factor n / L; the scaled model is the same parameters with only its frequencies changed, and a
setting that cannot work is refused before training."""

import math

import numpy as np
import pytest

from learnpe_jax.errors import ConfigError
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training import config_validation, length_eval
from tests.test_textlm import _trainer, smoke


@pytest.mark.e2e
def test_every_method_scores_the_longer_sets_under_their_own_names(data_dir):
  config = smoke(data_dir, ",pe=rope")
  config.model.eval_rope_scaling = ("linear", "yarn")
  trainer, params = _trainer(config)
  row = length_eval.perplexity_by_length(trainer, params)[0]
  longer = [k for k in config.data.eval_multiples if k > 1]
  assert set(row) == ({f"{k}xL" for k in config.data.eval_multiples}
                      | {f"{k}xL+{m}" for k in longer for m in ("linear", "yarn")})
  for k in longer:
    for m in ("linear", "yarn"):
      entry = row[f"{k}xL+{m}"]
      assert entry["rope_scaling"] == m and math.isfinite(entry["bits_per_byte"])
      assert entry["scored"] == row[f"{k}xL"]["scored"]
    # the methods change the scores beyond L: they are other models, not a copy
    assert row[f"{k}xL+linear"]["bits_per_byte"] != row[f"{k}xL"]["bits_per_byte"]


@pytest.mark.e2e
def test_linear_scaling_at_factor_one_is_the_trained_model(data_dir):
  config = smoke(data_dir, ",pe=rope")
  trainer, params = _trainer(config)
  evalset = trainer.task.length_eval["2xL"]
  plain = length_eval._token_losses(trainer, params, evalset)
  same = length_eval._token_losses(trainer, params, evalset,
                                   length_eval.scaled_model(trainer, "linear", 1.0))
  np.testing.assert_array_equal(plain[0], same[0])
  stretched = length_eval._token_losses(trainer, params, evalset,
                                        length_eval.scaled_model(trainer, "linear", 2.0))
  assert not np.array_equal(plain[0], stretched[0])


@pytest.mark.parametrize("variant, methods, match", [
    (",pe=alibi", ("linear",), "it needs a rotary PE"),
    (",pe=rope", ("linear", "linear"), "distinct methods"),
    (",pe=rope", ("stretch",), "distinct methods among linear"),
])
def test_what_cannot_work_is_refused_before_training(data_dir, variant, methods, match):
  config = smoke(data_dir, variant)
  config.model.eval_rope_scaling = methods
  with pytest.raises(ConfigError, match=r"model\.eval_rope_scaling.*" + match):
    config_validation.validate(config)


def test_a_method_missing_its_settings_or_a_task_without_longer_sets_is_refused(data_dir):
  config = smoke(data_dir, ",pe=rope")
  config.model.eval_rope_scaling = ("longrope",)
  config_validation.validate(config)
  with pytest.raises(ConfigError, match=r"model\.eval_rope_scaling.*short_factors|long_factors"):
    config_validation.validate_with_task(config, load_task(config))
  from configs import length1d
  decoder = length1d.get_config("smoke,pe=rope")
  decoder.data.data_dir = data_dir
  decoder.model.eval_rope_scaling = ("ntk",)
  with pytest.raises(ConfigError, match="scores no held-out sets longer"):
    config_validation.validate_with_task(decoder, load_task(decoder))
