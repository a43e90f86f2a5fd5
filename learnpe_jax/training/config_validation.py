"""Check a config before anything is generated or compiled; every problem is one ConfigError line."""

from __future__ import annotations

import functools
import math
import re

import jax
import ml_collections

from learnpe_jax.errors import ConfigError
from learnpe_jax.models.baselines import MODEL_KINDS, check_baseline
from learnpe_jax.models.block import MLP_FINAL_ACTIVATIONS
from learnpe_jax.models.weight_init import WEIGHT_INITS
from learnpe_jax.models.encoder import NORMS, READOUTS
from learnpe_jax.pe.placement import PE_PLACEMENTS, PE_SHARING
from learnpe_jax.pe.registry import REGISTRY, build_pe, check_pe_for_task, get_spec, pe_kwargs
from learnpe_jax.pe.rope_scaling import METHODS as ROPE_SCALINGS
from learnpe_jax.positions import sequence_positions
from learnpe_jax.tasks.registry import validate_data


def _choice(config, field, allowed):
  value = config
  for part in field.split("."):
    value = value[part]
  if value not in allowed:
    raise ConfigError(field, value, f"one of {', '.join(map(str, allowed))}")


def _positive(field, value, integer=False, allow_zero=False):
  ok_type = isinstance(value, int) and not isinstance(value, bool) if integer else (
      isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))
  if not ok_type or value < 0 or (value == 0 and not allow_zero):
    kind = "an integer" if integer else "a finite number"
    raise ConfigError(field, value, f"{kind} {'≥ 0' if allow_zero else '> 0'}")


class _Missing:
  def __repr__(self) -> str:
    return "<missing>"


def _block_path(config, target, prefix: str = "") -> str | None:
  """The dotted path of the ConfigDict ``target`` inside ``config`` ('' for config itself)."""
  if target is config:
    return prefix.rstrip(".")
  for key, value in config.items():
    if isinstance(value, ml_collections.ConfigDict):
      found = _block_path(value, target, f"{prefix}{key}.")
      if found is not None:
        return found
  return None


def _missing_fields_are_config_errors(check):
  """A hand-built config that lacks a field the checks read (e.g. one written before
  ``model.randomized_positions`` existed) gets a ConfigError naming that field, not an
  AttributeError from ml_collections."""
  @functools.wraps(check)
  def wrapped(config, *args):
    try:
      return check(config, *args)
    except (AttributeError, KeyError) as e:
      tb, owner = e.__traceback__, None
      while tb is not None:  # the ConfigDict whose lookup failed is the innermost `self`
        candidate = tb.tb_frame.f_locals.get("self")
        if isinstance(candidate, ml_collections.ConfigDict):
          owner = candidate
        tb = tb.tb_next
      path = None if owner is None else _block_path(config, owner)
      if path is None:
        raise
      # ml_collections' message: "'key'", perhaps with a did-you-mean line after it
      key = re.search(r"'(\w+)'", str(e.args[0]) if e.args else "")
      if key is None:
        raise
      key = key.group(1)
      raise ConfigError(f"{path}.{key}" if path else key, _Missing(),
                        "a value: every field of the task's config file is needed (a config "
                        "built by hand takes the defaults from configs/common.py)") from None
  return wrapped


@_missing_fields_are_config_errors
def validate(config) -> None:
  """Static checks of ``config`` (those that need no data)."""
  m, t, s = config.model, config.train, config.sweep
  for f in ("width", "depth", "num_heads", "mlp_ratio"):
    _positive(f"model.{f}", m[f], integer=True)
  if m.width % m.num_heads:
    raise ConfigError("model.num_heads", m.num_heads, f"a divisor of model.width={m.width}")
  _choice(config, "model.readout", READOUTS)
  _choice(config, "model.pe_placement", PE_PLACEMENTS)
  _choice(config, "model.pe_sharing", PE_SHARING)
  _choice(config, "model.norm", NORMS)
  _choice(config, "model.dtype", ("float32", "bfloat16"))
  spec = get_spec(m.pe.name)
  pe_kwargs(m.pe)
  kind = m.kind
  if kind not in MODEL_KINDS:
    raise ConfigError("model.kind", kind, f"one of {', '.join(MODEL_KINDS)}")
  if not isinstance(m.bidirectional, bool):
    raise ConfigError("model.bidirectional", m.bidirectional, "True or False")
  check_baseline(kind, m.pe.name, spec.mechanism, m.readout)  # e.g. an LSTM takes add PEs only
  _choice(config, "model.mlp_final_activation", MLP_FINAL_ACTIVATIONS)
  _choice(config, "model.weight_init", WEIGHT_INITS)
  if not isinstance(m.causal, bool):
    raise ConfigError("model.causal", m.causal, "True or False")
  if m.causal and kind != "transformer":
    raise ConfigError("model.causal", True, f"False for model.kind={kind!r} (the causal mask is "
                      "the transformer's)")
  if m.causal and not spec.causal:
    causal_pes = ", ".join(n for n, s in sorted(REGISTRY.items()) if s.causal)
    raise ConfigError("model.pe.name", m.pe.name, "a PE whose terms at a position read no later "
                      f"token, with model.causal=True: one of {causal_pes}")
  if not (isinstance(m.pe_dropout, (int, float)) and 0 <= m.pe_dropout < 1):
    raise ConfigError("model.pe_dropout", m.pe_dropout, "a rate in [0, 1)")
  if m.pe_dropout and kind != "transformer":
    raise ConfigError("model.pe_dropout", m.pe_dropout, f"0 for model.kind={kind!r} (the PE "
                      "dropout is the transformer's)")
  if not isinstance(m.pe_dropout_at_eval, bool):
    raise ConfigError("model.pe_dropout_at_eval", m.pe_dropout_at_eval, "True or False")
  if m.readout == "token":
    if kind != "transformer":
      raise ConfigError("model.readout", "token", f"'last', 'mean', 'query' or 'tokens' for "
                        f"model.kind={kind!r} (the readout token is the transformer's)")
    if spec.needs == "coords" or spec.module.needs_grid:
      raise ConfigError("model.pe.name", m.pe.name,
                        "a PE that reads token indices or nothing with model.readout='token' (the "
                        "readout token has no grid coordinates)")

  _positive("model.randomized_positions", m.randomized_positions, integer=True, allow_zero=True)
  if m.randomized_positions:
    if kind != "transformer" or m.readout == "token":
      raise ConfigError("model.randomized_positions", m.randomized_positions,
                        f"0 with model.kind={kind!r} and model.readout={m.readout!r} (randomized "
                        "positions need the transformer without a readout token)")
    if spec.needs == "none" or not spec.module.per_example or spec.module.needs_grid:
      raise ConfigError("model.randomized_positions", m.randomized_positions,
                        f"0 for PE {spec.name!r}: randomized positions need a PE that reads "
                        "positions per example, without a grid")

  if m.eval_rope_scaling:
    allowed = [x for x in ROPE_SCALINGS if x != "none"]
    bad = [x for x in m.eval_rope_scaling if x not in allowed]
    if bad or len(set(m.eval_rope_scaling)) != len(m.eval_rope_scaling):
      raise ConfigError("model.eval_rope_scaling", list(m.eval_rope_scaling),
                        f"distinct methods among {', '.join(allowed)}")
    if "rope_scaling" not in m.pe or m.pe.rope_scaling != "none":
      raise ConfigError("model.eval_rope_scaling", list(m.eval_rope_scaling),
                        f"() for PE {m.pe.name!r}: it needs a rotary PE trained without "
                        "model.pe.rope_scaling")

  for f in ("batch_size", "chunk_steps", "eval_every", "checkpoint_every", "log_every",
            "eval_batch_size"):
    _positive(f"train.{f}", t[f], integer=True)
  _positive("train.num_steps", t.num_steps, integer=True, allow_zero=True)
  if not isinstance(t.trim_padding, bool):
    raise ConfigError("train.trim_padding", t.trim_padding, "True or False")
  if t.models_per_group is not None:
    _positive("train.models_per_group", t.models_per_group, integer=True, allow_zero=True)
  if t.parallel_streams is not None:
    _positive("train.parallel_streams", t.parallel_streams, integer=True)
  for f in ("eval_every", "checkpoint_every", "num_steps"):
    if t[f] % t.chunk_steps:
      raise ConfigError(f"train.{f}", t[f], f"a multiple of train.chunk_steps={t.chunk_steps}")

  o = config.optim
  _choice(config, "optim.name", ("adamw", "sgd"))
  _positive("optim.learning_rate", o.learning_rate)
  for f in ("weight_decay", "grad_clip_norm", "eps"):
    _positive(f"optim.{f}", o[f], allow_zero=True)
  _positive("optim.warmup_steps", o.warmup_steps, integer=True, allow_zero=True)
  _positive("optim.pe_lr_scale", o.pe_lr_scale)
  for f in ("b1", "b2", "momentum"):
    if not 0 <= o[f] < 1:
      raise ConfigError(f"optim.{f}", o[f], "a number in [0, 1)")

  if len(s.pe_init_scale) == 0:
    raise ConfigError("sweep.pe_init_scale", list(s.pe_init_scale), "a non-empty list of σ > 0")
  for v in s.pe_init_scale:
    if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
      raise ConfigError("sweep.pe_init_scale", list(s.pe_init_scale),
                        "a non-empty list of finite σ > 0")
  if len(s.seeds) == 0 or not all(isinstance(v, int) and 0 <= v < 2**32 for v in s.seeds):
    raise ConfigError("sweep.seeds", list(s.seeds), "a non-empty list of integers in [0, 2^32)")
  if len(set(s.seeds)) != len(s.seeds):
    raise ConfigError("sweep.seeds", list(s.seeds), "distinct seeds")
  for v in s.learning_rate or []:
    _positive("sweep.learning_rate", v)
  if not spec.learnable and len(s.pe_init_scale) > 1:
    raise ConfigError("sweep.pe_init_scale", list(s.pe_init_scale),
                      f"a single value: PE {spec.name!r} has no learnable init to scale")
  _choice(config, "analysis.distance", ("euclidean", "cityblock"))
  validate_data(config)


@_missing_fields_are_config_errors
def validate_with_task(config, task) -> None:
  """Checks that need the task: coordinates, sizes."""
  spec = get_spec(config.model.pe.name)
  if spec.needs == "coords" and not task.coords_known:
    raise ConfigError("model.pe.name", spec.name,
                      f"a PE that needs no coordinates: task {task.name!r} keeps token positions "
                      f"unknown to the model")
  check_pe_for_task(config, task.model_positions)  # e.g. a conv PE needs a token grid
  methods = list(config.model.eval_rope_scaling)
  if methods and not task.length_eval:
    raise ConfigError("model.eval_rope_scaling", methods, f"() for task {task.name!r} (it scores "
                      "no held-out sets longer than its training length)")
  for method in methods:  # each method's PE built and run at 2N now, not after training
    pe_config = config.model.pe.copy_and_resolve_references()
    with pe_config.unlocked():
      pe_config.update(rope_scaling=method, rope_scaling_factor=2.0,
                       original_max_positions=task.num_tokens)
    try:
      module = build_pe(pe_config, width=config.model.width, num_heads=config.model.num_heads,
                        num_tokens=task.num_tokens, init_scale=1.0)
      module.init(jax.random.PRNGKey(0), sequence_positions(2 * task.num_tokens), 0)
    except ValueError as e:
      raise ConfigError("model.eval_rope_scaling", methods,
                        f"methods whose settings the PE takes ({method}: {e})")
  randomized = config.model.randomized_positions
  if randomized:
    p = task.model_positions
    one_d = p.grid_shape is None and (p.coords is None or p.coords.shape[-1] == 1)
    if not one_d or randomized < task.num_tokens:
      raise ConfigError("model.randomized_positions", randomized,
                        f"an integer ≥ the task's {task.num_tokens} tokens, on a task of 1-D "
                        f"positions (task {task.name!r} has "
                        f"{'1-D' if one_d else 'grid or N-D'} positions)")
  num_train = len(task.train["target"])
  if config.train.batch_size > num_train:
    raise ConfigError("train.batch_size", config.train.batch_size,
                      f"at most the {num_train} training examples")
  if task.kind == "sequence":  # next-token prediction: a token must not see the one it predicts
    if not config.model.causal:
      raise ConfigError("model.causal", config.model.causal,
                        f"True for task {task.name!r} (next-token prediction: an encoder would "
                        "see the token it predicts)")
    if config.model.readout != "tokens":
      raise ConfigError("model.readout", config.model.readout,
                        f"'tokens' for task {task.name!r} (one prediction per position)")
  if config.train.trim_padding:
    _check_trim_padding(config, task)
  if config.model.readout == "query" and "query_index" not in task.train:
    raise ConfigError("model.readout", "query", f"'last' or 'mean': task {task.name!r} has no "
                      "query token")


def _check_trim_padding(config, task) -> None:
  """``train.trim_padding`` trains the same function only where a token never reads a later one
  and the PE's terms at a position do not read the later positions (``training/trim.py``)."""
  m = config.model
  if task.kind != "sequence":
    raise ConfigError("train.trim_padding", True, f"False for task {task.name!r}: only a sequence "
                      "task (a causal decoder on padded sequences) has padding to cut")
  pe = build_pe(m.pe, width=m.width, num_heads=m.num_heads, num_tokens=task.num_tokens,
                init_scale=1.0)
  if pe.reads_extent:
    raise ConfigError("train.trim_padding", True, f"False for PE {m.pe.name!r}: its terms read "
                      "the span of the positions given, which a cut batch shortens")
  if m.pe_dropout:
    raise ConfigError("train.trim_padding", True, f"False with model.pe_dropout={m.pe_dropout}: "
                      "its masks would be drawn for the cut shape (other draws, not the same "
                      "training)")
