"""The PE registry: every PE by name, with its config fields and catalogue entry.

``config.model.pe`` is a ConfigDict holding ``name`` and the PE's fields (those of its module class,
with this name's presets; ``CONFIG_KEYS`` names the one field a config spells differently).
``default_pe_config(name)`` builds it; ``build_pe`` turns it into a module, and ``make`` does the
same from plain keyword arguments (the library's way, ``docs/library.md``; no ConfigDict, so this
module imports no ml_collections until ``default_pe_config`` is called). A PE that composes
another (learned coordinates' field ``inner``) gets that PE built in. ``register`` adds a PE, also
from outside the package (``docs/adding_a_pe.md``). ``python -m learnpe_jax.pe`` prints the
catalogue (``catalogue_rows``).
"""

from __future__ import annotations

import dataclasses
import pprint
from typing import Any, Mapping

from learnpe_jax.errors import ConfigError
from learnpe_jax.pe import (absolute, biases, conv, learned_coords, post_softmax, relative, rotary,
                            untied)
from learnpe_jax.pe.initializers import INIT_FAMILIES
from learnpe_jax.pe.base import COORDINATE_INPUTS, PositionalEncoding
from learnpe_jax.pe.placement import pe_block_indices

# Fields every PE module has that come from the model, not from config.model.pe.
# ``dtype`` and ``param_dtype`` (the rotary family's) come from ``make``'s arguments, as the
# model's dtype, never from a config.
_MODEL_FIELDS = ("width", "num_heads", "num_tokens", "init_scale", "parent", "name", "dtype",
                 "param_dtype")
# Config keys that differ from the module field they set: config key → module field. The
# initializer family was the module field ``init`` until it shadowed ``nn.Module.init``; configs,
# recorded runs (their config.json) and command-line overrides keep the key ``model.pe.init``.
# ``pe_kwargs`` (and so ``make``) takes either spelling.
CONFIG_KEYS = {"init": "init_family"}
_KEY_OF_FIELD = {field: key for key, field in CONFIG_KEYS.items()}


def _takes_dtype(module) -> bool:
  """Whether PE class ``module`` has the fields ``dtype`` and ``param_dtype`` (the rotary family)."""
  return "dtype" in module.__dataclass_fields__


def _config_spelling(fields: Mapping[str, Any]) -> dict[str, Any]:
  """``fields`` with module field names turned into their config keys (``CONFIG_KEYS``)."""
  return {_KEY_OF_FIELD.get(k, k): v for k, v in fields.items()}


def _module_spelling(fields: Mapping[str, Any]) -> dict[str, Any]:
  """``fields`` with config keys turned into the module field names they set."""
  return {CONFIG_KEYS.get(k, k): v for k, v in fields.items()}


@dataclasses.dataclass(frozen=True)
class PESpec:
  name: str
  module: type[PositionalEncoding]
  summary: str
  preset: dict[str, Any]  # field values this name fixes

  @property
  def learnable(self) -> bool:
    return self.module.learnable

  @property
  def mechanism(self) -> str:
    return self.module.mechanism

  @property
  def causal(self) -> bool:
    """Whether a causal decoder can take this PE: its terms never carry a later token into an
    earlier position (``PositionalEncoding.causal``)."""
    return self.module.causal

  @property
  def needs(self) -> str:
    """What the PE reads with this name's fields: 'none' | 'index' | 'coords' (the module says)."""
    return self.module.needs_with(self.config_fields())

  @property
  def coordinates(self) -> str:
    """What the PE reads, for the catalogue: none / index / index+grid / N-D."""
    label = {"none": "none", "index": "index", "coords": "N-D"}[self.needs]
    return label + ("+grid" if self.module.needs_grid else "")

  @property
  def initializer(self) -> str:
    if not self.learnable:
      return "fixed"
    return "σ·init: " + ", ".join(p.rstrip("_") for p in self.module.scaled_params)

  def config_fields(self) -> dict[str, Any]:
    """The PE's config fields (``config.model.pe`` beside ``name``) with this name's defaults,
    spelled as a config spells them (``CONFIG_KEYS``)."""
    fields = _config_spelling({f.name: f.default for f in dataclasses.fields(self.module)
                               if f.name not in _MODEL_FIELDS
                               and f.default is not dataclasses.MISSING})
    if not self.learnable:
      fields.pop("init", None)
      fields.pop("native_scale", None)
    fields.update(_config_spelling(self.preset))
    return fields


REGISTRY: dict[str, PESpec] = {}


def register(name: str, module: type[PositionalEncoding], summary: str, **preset) -> None:
  """Add PE ``name``: the module class, a one-line summary for the catalogue, and the field values
  this name fixes (``preset``, e.g. ``coordinates='index'``). Works from outside the package too
  (``docs/adding_a_pe.md``); a name registered twice is an error."""
  if name in REGISTRY:
    raise ValueError(f"PE {name!r} registered twice")
  REGISTRY[name] = PESpec(name, module, summary, preset)


# ---- additive absolute ----------------------------------------------------------------------
register("none", absolute.NoPE, "no PE (permutation-equivariant encoder)")
register("learned", absolute.LearnedTable, "learned table, σ-scaled init")
register("learned_axial", absolute.AxialLearnedTable,
         "per-axis factorised learned table (row + col [+ depth])")
register("sinusoidal_1d", absolute.Sinusoidal, "sinusoidal on the token index", coordinates="index")
register("sinusoidal_nd", absolute.Sinusoidal, "sinusoidal on N-D coordinates (2-D on the LST)",
         coordinates="coords")
register("sinusoidal_nd_learned_freq", absolute.SinusoidalLearnedFreq,
         "sinusoidal on N-D coordinates, learnable frequencies")
register("random_fixed", absolute.FixedRandom, "fixed random table")
register("fourier_learned", absolute.FourierFeatures, "learnable Fourier features + MLP")
register("legendre", absolute.Legendre, "Legendre polynomials, tensor product over axes")
register("time_continuous", absolute.ContinuousTime, "sinusoid of continuous timestamps")
register("time_continuous_learned", absolute.ContinuousTimeLearned,
         "sinusoid of continuous timestamps, trainable frequencies")
register("lape", absolute.LayerAdaptive, "shared table, independent LayerNorm per block")
register("peg", conv.PEG, "conditional PE: depthwise conv of x over the grid")
# ---- attention-logit biases -----------------------------------------------------------------
register("alibi", biases.DistanceBias, "ALiBi on the index (symmetric)", coordinates="index")
register("alibi_nd", biases.DistanceBias, "ALiBi on N-D coordinate distance", coordinates="coords")
register("alibi_nd_learned", biases.LearnedSlopeDistanceBias,
         "N-D ALiBi with learnable slopes", coordinates="coords")
register("hype", biases.HyperbolicBias, "hyperbolic bias −τ sinh(μ d) on N-D distance",
         coordinates="coords")
register("t5_bias", biases.T5Bias, "T5 bucketed relative bias on the index",
         coordinates="index")
register("t5_bias_nd", biases.T5Bias, "T5 bucketed relative bias, per axis", coordinates="coords")
register("rel_bias_clipped", biases.ClippedBias, "clipped relative bias table, per axis")
register("irpe_bias", biases.IRPE, "iRPE bias mode (piecewise index, 2-D methods in N-D)")
register("irpe_contextual", biases.IRPEContextual, "iRPE contextual mode (q · r_ij in keys)")
register("cpb_mlp", biases.ContinuousBias, "continuous position bias: MLP of log rel. coords")
# ---- relative embeddings in keys/values -----------------------------------------------------
register("shaw_rel", relative.ShawRelative, "Shaw relative keys and values, clipped, per axis")
register("xl_rel", relative.XLRelative, "Transformer-XL relative attention with u, v")
register("lfhc_rel", relative.LFHCRelative, "LFHC-RPE: Shaw k/v with log-coarse buckets")
register("gcdf_rel", relative.GCDFRelative, "GCDF-RPE: XL with Gaussian-CDF encoding")
# ---- rotary / multiplicative ----------------------------------------------------------------
register("rope", rotary.Rotary, "RoPE on the token index")
register("rope_partial", rotary.Rotary, "RoPE on half of each head's dims", fraction=0.5)
register("xpos", rotary.XPos, "xPos: RoPE with per-pair exponential scaling")
register("rope_high_freq", rotary.HighFreqRotary, "HoPE: RoPE without low frequencies")
register("rope_axial", rotary.AxialRotary, "axial N-D RoPE")
register("rope_mixed", rotary.MixedRotary, "RoPE-Mixed: learnable per-head N-D frequencies")
register("grid_pe", rotary.GridCellRotary, "GridPE: grid-cell multi-scale Fourier (rotary)")
register("complex_rel", rotary.ComplexRotary, "CRPE: complex q, k × e^{iωn}, learnable ω")
# ---- untied / positional attention ----------------------------------------------------------
register("tupe_abs", untied.TUPE, "TUPE-A: untied positional attention", relative=False)
register("tupe_rel", untied.TUPE, "TUPE-R: untied + T5 relative bias", relative=True)
register("diet_abs", untied.DIETAbs, "DIET-ABS: per-head low-rank positional logits")
register("diet_rel", untied.DIETRel, "DIET-REL: per-head clipped relative scalar")
register("positional_attention", untied.PositionalAttention,
         "attention weights from positions alone")
# ---- post-softmax ---------------------------------------------------------------------------
register("urpe", post_softmax.URPE, "URPE: probabilities × learnable Toeplitz (index)",
         coordinates="index")
register("urpe_nd", post_softmax.URPE, "URPE: probabilities × multi-level Toeplitz (N-D)",
         coordinates="coords", max_distance=8)
# ---- beyond the literature ------------------------------------------------------------------
register("learned_coords", learned_coords.LearnedCoords,
         "learned coordinates → any coordinate PE (field inner)")
register("learned_coords_sinusoidal", learned_coords.LearnedCoords,
         "learned coordinates → sinusoidal N-D", inner="sinusoidal_nd")
register("learned_coords_rope", learned_coords.LearnedCoords,
         "learned coordinates → axial RoPE", inner="rope_axial")
register("learned_coords_alibi", learned_coords.LearnedCoords,
         "learned coordinates → N-D ALiBi", inner="alibi_nd")


def get_spec(name: str) -> PESpec:
  if name not in REGISTRY:
    raise ConfigError("model.pe.name", name, f"one of {', '.join(sorted(REGISTRY))}")
  return REGISTRY[name]


def default_pe_config(name: str):
  """config.model.pe (an ``ml_collections.ConfigDict``) for PE ``name`` with its default fields."""
  import ml_collections  # here, so that the library (``make``) needs no ml_collections
  return ml_collections.ConfigDict({"name": name, **get_spec(name).config_fields()})


def pe_kwargs(pe_config) -> dict[str, Any]:
  """Validated module kwargs (module field names) from config.model.pe (a ConfigDict or a dict with
  ``name``); unknown fields are an error. A field may be given by its config key or by its module
  field name (``CONFIG_KEYS``: ``init`` or ``init_family``), not both."""
  return _fields_to_kwargs(pe_config["name"], {k: v for k, v in dict(pe_config).items()
                                               if k != "name"})


def _fields_to_kwargs(name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
  spec = get_spec(name)
  allowed = spec.config_fields()
  given = dict(fields)
  for key, field in CONFIG_KEYS.items():
    if field in given:
      if key in given and given[key] != given[field]:
        raise ConfigError(f"model.pe.{field}", given[field],
                          f"one value for one field: model.pe.{key}={given[key]!r} is its old name")
      given[key] = given.pop(field)
  for key, value in given.items():
    if key not in allowed:
      raise ConfigError(f"model.pe.{key}", value,
                        f"PE {spec.name!r} has fields {', '.join(sorted(allowed)) or '(none)'} "
                        f"(to switch PEs, use --config.model.pe.name={spec.name} or the config "
                        f"string ':pe={spec.name}', which bring that PE's own fields)")
  if "init" in given and given["init"] not in INIT_FAMILIES:
    raise ConfigError("model.pe.init", given["init"], f"one of {', '.join(INIT_FAMILIES)}")
  if given.get("coordinates", COORDINATE_INPUTS[0]) not in COORDINATE_INPUTS:
    raise ConfigError("model.pe.coordinates", given["coordinates"],
                      f"one of {', '.join(COORDINATE_INPUTS)}")
  for key, value in spec.preset.items():
    if given.get(key, value) != value:
      raise ConfigError(f"model.pe.{key}", given[key], f"{value!r} for PE {spec.name!r}")
  kwargs = {**allowed, **given}
  if "inner" in kwargs:
    inner_spec(kwargs["inner"])
  return _module_spelling(kwargs)


def inner_spec(name) -> PESpec:
  """The PE that learned coordinates feed (``model.pe.inner``): a registered PE that reads
  coordinates."""
  coordinate_pes = sorted(n for n, s in REGISTRY.items() if s.needs == "coords")
  if name not in coordinate_pes:
    raise ConfigError("model.pe.inner", name,
                      f"a registered PE that reads coordinates: {', '.join(coordinate_pes)}")
  return REGISTRY[name]


def make(name: str, /, *, width: int, num_heads: int, num_tokens: int, init_scale: Any = 1.0,
         dtype: Any = None, param_dtype: Any = None, **fields) -> PositionalEncoding:
  """PE ``name`` of the catalogue as a Flax module, from plain keyword arguments.

  Args:
    name: a registered PE (``names()``; the catalogue, docs/pe_catalogue.md).
    width: the model width W (what ``add`` adds to); ``width // num_heads`` is the head dim Dh.
    num_heads: H, the attention heads that per-head terms are made for.
    num_tokens: N, the tokens per example (the rows of learned tables; indices must be < N).
    init_scale: σ, which multiplies the unit-scale draw of the PE's learnable parameters (docs/
      design.md, "σ, a per-model array"); may be a traced scalar. Fixed PEs ignore it.
    dtype: the rotary family's computation dtype (e.g. ``jnp.bfloat16``): q and k are rotated and
      returned in it, the angles staying float32. None: q's and k's own dtype.
    param_dtype: the dtype of the rotary family's learnable frequencies (default float32).
      Other PEs take neither (a ValueError); their ``add`` term keeps a bf16 residual bf16 through
      ``terms.add_to(x)``.
    **fields: the PE's own fields (``get_spec(name).config_fields()``, e.g. ``init_family``,
      ``max_distance``); the rest keep their registered defaults. Unknown fields, and fields that
      the name fixes, raise a one-line ``ConfigError`` (a ValueError).

  Returns:
    An unbound module ``pe(positions, block_index, x_BNW=None) -> PositionalTerms``: built inside
    a compact method of your model it is your model's submodule (its parameters under its name).
    ``block_index`` selects the block's own parameters (one PE per block), so ask with 0 for a
    PE shared by all blocks.
  """
  spec = get_spec(name)
  kwargs = _fields_to_kwargs(name, fields)
  model_fields = dict(width=width, num_heads=num_heads, num_tokens=num_tokens,
                      init_scale=init_scale)
  for key, value in (("dtype", dtype), ("param_dtype", param_dtype)):
    if value is not None:
      if not _takes_dtype(spec.module):
        takes = ", ".join(n for n, s in REGISTRY.items() if _takes_dtype(s.module))
        raise ValueError(f"make({name!r}, {key}={value!r}): PE {name!r} takes no {key} (its "
                         f"terms take your model's dtype where they are used: terms.add_to(x), "
                         f"attend_with_terms(..., dtype=)); the PEs that take one: {takes}")
      kwargs[key] = value
  if "inner" in kwargs:
    inner = inner_spec(kwargs["inner"])
    inner_fields = {**_module_spelling(inner.config_fields()),
                    "init_family": kwargs["init_family"], "native_scale": kwargs["native_scale"]}
    # parent=None: the outer PE adopts it as its submodule 'inner', wherever it is built.
    kwargs["inner"] = inner.module(**model_fields, **inner_fields, parent=None)
  return spec.module(**model_fields, **kwargs)


def build_pe(pe_config, *, width: int, num_heads: int, num_tokens: int,
             init_scale: Any = 1.0) -> PositionalEncoding:
  """The PE module of config.model.pe (``make`` with the config's name and fields). A field
  ``inner`` (learned coordinates) becomes that PE, with its registered defaults and this PE's σ
  and initializer family."""
  fields = {k: v for k, v in dict(pe_config).items() if k != "name"}
  return make(pe_config["name"], width=width, num_heads=num_heads, num_tokens=num_tokens,
              init_scale=init_scale, **fields)


def names() -> list[str]:
  """Every registered PE name, in catalogue order."""
  return list(REGISTRY)


def check_pe_for_task(config, positions) -> None:
  """One-line ConfigError when PE ``config.model.pe`` cannot serve a task with these (model-visible)
  positions: coordinates unknown, no token grid for a conv PE, a PEG the encoder never asks.
  For ``config_validation.validate_with_task`` (the encoder also runs it when it is traced)."""
  m = config.model
  pe = build_pe(m.pe, width=m.width, num_heads=m.num_heads, num_tokens=positions.num_tokens)
  try:
    pe.check(positions, pe_block_indices(m.depth, m.pe_placement, m.pe_sharing))
  except ConfigError as e:  # name the PE as the user did, not by its class
    if e.field != "model.pe.name":
      raise
    raise ConfigError(e.field, m.pe.name, e.allowed) from None


CONFIG_TABLE = "configs/pe_fields.py"  # config_table_source(), for the config files


def config_table_source() -> str:
  """The text of ``configs/pe_fields.py``: every registered PE's config fields with their defaults
  and the PEs with nothing learnable, as plain literals, so that a config file fills
  ``config.model.pe`` without importing this registry (or Flax). ``python -m learnpe_jax.pe
  --config-table`` writes it; ``tests/test_plain_configs.py`` checks that it is current."""
  lines = ['"""Every catalogue PE\'s config fields (``config.model.pe`` beside ``name``) with their',
           "defaults, and the PEs with nothing learnable: plain data for the config files, which",
           "import no Flax. Generated from the PE registry by ``python -m learnpe_jax.pe",
           "--config-table``; do not edit (``tests/test_plain_configs.py`` checks it is current).",
           "The trainer checks the fields against the registry when it builds the model.\"\"\"",
           ""]
  table = {name: spec.config_fields() for name, spec in REGISTRY.items()}
  fixed = tuple(name for name, spec in REGISTRY.items() if not spec.learnable)
  lines.append("PE_FIELDS = " + pprint.pformat(table, width=100, sort_dicts=False))
  lines += ["", "FIXED_PES = " + pprint.pformat(fixed, width=100), ""]
  return "\n".join(lines)


def catalogue_rows() -> list[dict[str, str]]:
  return [{"name": s.name, "mechanism": s.mechanism, "coordinates": s.coordinates,
           "learnable": "learnable" if s.learnable else "fixed", "initializer": s.initializer,
           "paper": s.module.paper, "summary": s.summary} for s in REGISTRY.values()]
