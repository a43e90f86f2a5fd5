"""The PE registry: every PE by name, with its config fields and catalogue entry.

``config.model.pe`` is a ConfigDict holding ``name`` and the PE's fields (those of its module class,
with this name's presets; ``CONFIG_KEYS`` names the one field a config spells differently).
``default_pe_config(name)`` builds it; ``build_pe`` turns it into a module, and ``make`` does the
same from plain keyword arguments (the library's way, ``docs/library.md``; no ConfigDict, so this
module imports no ml_collections until ``default_pe_config`` is called). A PE that composes
another (learned coordinates' field ``inner``) gets that PE built in. ``register`` adds a PE, also
from outside the package (``docs/adding_a_pe.md``). ``python -m learnpe_jax.pe`` prints the
catalogue (``catalogue_rows``).

Errors: ``make`` and the modules raise ``PEError`` (``learnpe_jax.errors``), whose message is in the
library's words (the catalogue name, the argument, what is allowed); the config path (``pe_kwargs``,
``build_pe``, ``check_pe_for_task``, ``get_spec``) raises the same problem as a ``ConfigError`` in
the config's words (``config.model.pe.<field>=...``).
"""

from __future__ import annotations

import dataclasses
import difflib
import operator
import pprint
from typing import Any, Mapping

import numpy as np

from learnpe_jax.errors import ConfigError, PEError
from learnpe_jax.pe import (absolute, biases, contextual, conv, learned_coords, post_softmax,
                            relative, rotary, untied)
from learnpe_jax.pe.initializers import INIT_FAMILIES
from learnpe_jax.pe.base import COORDINATE_INPUTS, PositionalEncoding
from learnpe_jax.pe.placement import pe_block_indices

# Fields every PE module has that come from the model, not from config.model.pe.
# ``dtype`` and ``param_dtype`` (the rotary family's) come from ``make``'s arguments, as the
# model's dtype, never from a config.
# ``catalogue_name`` and ``causal_model`` are set by ``make`` (the name it was asked for, its
# ``causal``).
_MODEL_FIELDS = ("width", "num_heads", "num_tokens", "init_scale", "parent", "name", "dtype",
                 "param_dtype", "catalogue_name", "causal_model")
# Config fields that are records of the config, not settings of the PE: the library's view of a
# PE's fields (``PESpec.fields``, ``make``) leaves them out.
_CONFIG_ONLY_FIELDS = ("scaled_params",)
# Config keys that differ from the module field they set: config key → module field. The
# initializer family was the module field ``init`` until it shadowed ``nn.Module.init``; configs,
# recorded runs (their config.json) and command-line overrides keep the key ``model.pe.init``.
# ``pe_kwargs`` (and so ``make``) takes either spelling.
CONFIG_KEYS = {"init": "init_family"}
_KEY_OF_FIELD = {field: key for key, field in CONFIG_KEYS.items()}


def _config_spelling(fields: Mapping[str, Any]) -> dict[str, Any]:
  """``fields`` with module field names turned into their config keys (``CONFIG_KEYS``)."""
  return {_KEY_OF_FIELD.get(k, k): v for k, v in fields.items()}


def _module_spelling(fields: Mapping[str, Any]) -> dict[str, Any]:
  """``fields`` with config keys turned into the module field names they set."""
  return {CONFIG_KEYS.get(k, k): v for k, v in fields.items()}


@dataclasses.dataclass(frozen=True)
class PESpec:
  """A PE of the catalogue (``get_spec(name)``): its name, module class, one-line summary and the
  field values its name fixes (``preset``); what it is (``mechanism``, ``needs``, ``learnable``,
  ``causal``, the class's ``paper``) and its fields with their defaults: ``fields()`` as ``make``
  takes them, ``config_fields()`` as a config spells them."""

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

  def fields(self) -> dict[str, Any]:
    """The PE's own fields with this name's defaults, as ``make`` takes them (``init_family``,
    ``max_distance``, ...): the public settings, without the config's records (``scaled_params``)
    and without the model's arguments (width, num_heads, num_tokens, init_scale, dtype)."""
    return {k: v for k, v in _module_spelling(self.config_fields()).items()
            if k not in _CONFIG_ONLY_FIELDS}

  def config_fields(self) -> dict[str, Any]:
    """The PE's config fields (``config.model.pe`` beside ``name``) with this name's defaults,
    spelled as a config spells them (``CONFIG_KEYS``: ``init`` for ``init_family``), with the
    config's record ``scaled_params``: what ``default_pe_config`` and ``configs/pe_fields.py``
    hold. A library user wants ``fields()``."""
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
  if "_document_names" in globals():  # a PE registered after import joins make's docstring
    _document_names()


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
register("kerple", biases.KernelBias, "KERPLE: learned log kernel −p log(1 + a d) on the index",
         coordinates="index")
register("fire", biases.FunctionalBias, "FIRE: MLP of the log distance over the query position",
         coordinates="index")
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
register("mrope", rotary.MultimodalRotary,
         "M-RoPE (Qwen2-VL): RoPE's frequencies in sections, one per axis")
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
# ---- contextual positions (from q and k) -----------------------------------------------------
register("cope", contextual.ContextualPosition,
         "CoPE: embeddings at gated counts σ(q·k) of the tokens between", coordinates="index")
# ---- beyond the literature ------------------------------------------------------------------
register("learned_coords", learned_coords.LearnedCoords,
         "learned coordinates → any coordinate PE (field inner)")
register("learned_coords_sinusoidal", learned_coords.LearnedCoords,
         "learned coordinates → sinusoidal N-D", inner="sinusoidal_nd")
register("learned_coords_rope", learned_coords.LearnedCoords,
         "learned coordinates → axial RoPE", inner="rope_axial")
register("learned_coords_alibi", learned_coords.LearnedCoords,
         "learned coordinates → N-D ALiBi", inner="alibi_nd")


def _close_names(word, names=None) -> list[str]:
  """Up to 3 registered names close to ``word``: the PEs whose class it names ('rotary' → rope,
  rope_partial; 'AxialLearnedTable' → learned_axial), else names close in spelling (difflib), else
  names that contain it ('t5' → t5_bias)."""
  names = list(REGISTRY) if names is None else list(names)
  word = str(word)
  low = word.lower()
  by_class = [n for n in names if n in REGISTRY and REGISTRY[n].module.__name__.lower() == low]
  spelled = difflib.get_close_matches(low, names, n=3, cutoff=0.6)
  contained = [n for n in names if len(low) >= 2 and low in n]
  return (by_class or spelled or contained)[:3]


def _did_you_mean(word, names=None) -> str:
  """'did you mean 'rope' or 'rope_partial'?' (or '' when nothing is close)."""
  close = _close_names(word, names)
  if not close:
    return ""
  return "did you mean " + " or ".join(repr(n) for n in close) + "?"


def get_spec(name: str) -> PESpec:
  """The catalogue entry of PE ``name`` (a ``PESpec``): its module class, summary, what it reads
  (``needs``), its mechanism, whether it is learnable and causal, its paper, and its fields with
  their defaults (``fields()``, as ``make`` takes them). ``names()`` lists the names,
  ``python -m learnpe_jax.pe`` prints the catalogue.

  An unknown name is a one-line ``ConfigError`` with the closest names. It is worded for the config
  (``config.model.pe.name=...``: config validation asks here); ``make`` words the same mistake for
  a library call."""
  if name not in REGISTRY:
    hint = _did_you_mean(name)
    raise ConfigError("model.pe.name", name, (f"{hint} " if hint else "")
                      + f"one of {', '.join(sorted(REGISTRY))}")
  return REGISTRY[name]


def _library_spec(name) -> PESpec:
  """``get_spec`` for ``make``: an unknown name is a ``PEError`` in the library's words."""
  if name in REGISTRY:
    return REGISTRY[name]
  hint = _did_you_mean(name)
  raise PEError(str(name), "name", f"make({name!r}): no PE of the catalogue is named {name!r}; "
                + (f"{hint} " if hint else "")
                + f"(pe.names() lists all {len(REGISTRY)}; python -m learnpe_jax.pe prints "
                "the catalogue)", field="model.pe.name", value=name,
                allowed=f"one of {', '.join(sorted(REGISTRY))}")


def default_pe_config(name: str):
  """config.model.pe (an ``ml_collections.ConfigDict``) for PE ``name`` with its default fields."""
  import ml_collections  # here, so that the library (``make``) needs no ml_collections
  return ml_collections.ConfigDict({"name": name, **get_spec(name).config_fields()})


def pe_kwargs(pe_config) -> dict[str, Any]:
  """Validated module kwargs (module field names) from config.model.pe (a ConfigDict or a dict with
  ``name``); unknown fields are an error. A field may be given by its config key or by its module
  field name (``CONFIG_KEYS``: ``init`` or ``init_family``), not both with two values. Errors are
  ``ConfigError``s in the config's words."""
  name = pe_config["name"]
  get_spec(name)
  try:
    return _fields_to_kwargs(name, {k: v for k, v in dict(pe_config).items() if k != "name"},
                             library=False)
  except PEError as e:
    raise e.config_error() from None


def _fields_to_kwargs(name: str, fields: Mapping[str, Any], *, library: bool) -> dict[str, Any]:
  """Module kwargs from PE ``name``'s ``fields`` (config keys or module names); a bad one is a
  ``PEError`` in the library's words that carries the config's (``PEError.config_error``).
  ``library``: the fields come from ``make`` (the public fields, ``PESpec.fields``, and ``init``,
  never both ``init`` and ``init_family``); else from a config (its keys, ``config_fields``)."""
  spec = REGISTRY[name]
  where = f"make({name!r})"
  allowed = spec.config_fields()
  public = sorted(spec.fields())
  given = dict(fields)

  def error(key, problem, config_allowed, value=None):
    return PEError(name, key, f"{where}: {problem}", field=f"model.pe.{key}",
                   value=given.get(key) if value is None else value, allowed=config_allowed)

  for key, field in CONFIG_KEYS.items():
    if field in given:
      if key in given and (library or given[key] != given[field]):
        raise error(field, f"{key}={given[key]!r} and {field}={given[field]!r} together are not "
                    f"allowed: {key} is {field}'s old (config) name; pass {field} only",
                    f"one value for one field: model.pe.{key}={given[key]!r} is its old name")
      given[key] = given.pop(field)
  for key, value in given.items():
    if key not in allowed or (library and key in _CONFIG_ONLY_FIELDS):
      spelled = CONFIG_KEYS.get(key, key)
      hint = _did_you_mean(spelled, public)
      raise error(key, f"{spelled}={value!r} is not allowed: PE {name!r} has no field "
                  f"{spelled!r}{'; ' + hint if hint else ''} (its fields: "
                  f"{', '.join(public) or 'none'}; pe.get_spec({name!r}).fields() gives their "
                  "defaults)",
                  f"PE {spec.name!r} has fields {', '.join(sorted(allowed)) or '(none)'} "
                  f"(to switch PEs, use --config.model.pe.name={spec.name} or the config "
                  f"string ':pe={spec.name}', which bring that PE's own fields)")
  if "init" in given and given["init"] not in INIT_FAMILIES:
    raise error("init", f"init_family={given['init']!r} is not allowed: one of "
                f"{', '.join(INIT_FAMILIES)}", f"one of {', '.join(INIT_FAMILIES)}")
  if given.get("coordinates", COORDINATE_INPUTS[0]) not in COORDINATE_INPUTS:
    raise error("coordinates", f"coordinates={given['coordinates']!r} is not allowed: one of "
                f"{', '.join(COORDINATE_INPUTS)}", f"one of {', '.join(COORDINATE_INPUTS)}")
  for key, value in spec.preset.items():
    if given.get(key, value) != value:
      others = [n for n, s in REGISTRY.items() if s.module is spec.module and n != name]
      raise error(_KEY_OF_FIELD.get(key, key),
                  f"{key}={given[key]!r} is not allowed: PE {name!r} is the one with "
                  f"{key}={value!r} (the name fixes it"
                  + (f"; the same module under other names: {', '.join(others)})" if others
                     else ")"),
                  f"{value!r} for PE {spec.name!r}", value=given[key])
  kwargs = {**allowed, **given}
  if "inner" in kwargs:
    inner_spec(kwargs["inner"], library=library, outer=name)
  return _module_spelling(kwargs)


def inner_spec(name, *, library: bool = False, outer: str = "learned_coords") -> PESpec:
  """The PE that learned coordinates feed (``model.pe.inner``, ``make``'s ``inner``): a registered
  PE that reads coordinates."""
  coordinate_pes = sorted(n for n, s in REGISTRY.items() if s.needs == "coords")
  if name not in coordinate_pes:
    allowed = f"a registered PE that reads coordinates: {', '.join(coordinate_pes)}"
    if not library:
      raise ConfigError("model.pe.inner", name, allowed)
    raise PEError(outer, "inner", f"make({outer!r}): inner={name!r} is not allowed: {allowed}",
                  field="model.pe.inner", value=name, allowed=allowed)
  return REGISTRY[name]


def make(name: str, /, *, width: int, num_heads: int, num_tokens: int, init_scale: Any = 1.0,
         dtype: Any = None, param_dtype: Any = None, causal: bool = False,
         **fields) -> PositionalEncoding:
  """PE ``name`` of the catalogue as a Flax module, from plain keyword arguments.

  Args:
    name: a registered PE (the list below; ``names()``; the catalogue, docs/pe_catalogue.md). An
      unknown name is an error with the closest names.
    width: the model width W (what ``add`` adds to); ``width // num_heads`` is the head dim Dh.
      ``num_heads`` must divide it.
    num_heads: H, the attention heads that per-head terms are made for.
    num_tokens: N, the tokens per example: the rows of the tables a PE looks up by token index
      (learned and random tables, LaPE, TUPE, DIET-ABS, learned coordinates), whose indices must
      then lie in 0 … N − 1 (an error otherwise); the length RoPE scaling treats as trained.
    init_scale: σ, which multiplies the unit-scale draw of the PE's learnable parameters (docs/
      design.md, "σ, a per-model array"); may be a traced scalar. Fixed PEs ignore it.
    dtype: the dtype of the terms (e.g. ``jnp.bfloat16``): every array of ``PositionalTerms``;
      the rotary family rotates q and k in it, its angles staying float32. None: as computed
      (float32; the rotary family: q's and k's own dtype). ``terms.add_to(x)`` keeps x's dtype.
    param_dtype: the dtype the PE's learnable parameters are stored in (default float32).
    causal: your model is a causal decoder (``attend_with_terms(..., causal=True)``): a PE whose
      terms read later tokens (``get_spec(name).causal`` False: ``peg``) is refused, and ``none``
      does not warn that a model without a PE cannot tell positions apart.
    **fields: the PE's own fields (``get_spec(name).fields()`` gives them with their defaults, e.g.
      ``init_family``, ``max_distance``); the rest keep their registered defaults. ``name=`` names
      the module as in Flax (``make('rope', ..., name='pe')``: its parameters under 'pe').
      ``init`` is ``init_family``'s old name, not to be given with it.

  The rotary family rotates pairs of head dims: ``width // num_heads`` (times ``fraction`` for
  ``rope_partial``) must be even, or ``make`` refuses it. The axial ones (``rope_axial``,
  ``learned_coords_rope``) split the Dh/2 pairs evenly over the D axes of the coordinates: each axis
  rotates ⌊Dh/2 / D⌋ pairs and the (Dh/2 mod D) pairs left over are not rotated (Dh = 6 on 2-D
  coordinates rotates 4 of 6 dims): take Dh a multiple of 2·D to rotate them all.

  Returns:
    An unbound module ``pe(positions, block_index, x_BNW=None) -> PositionalTerms``: built inside
    a compact method of your model it is your model's submodule (its parameters under its name).
    ``block_index`` selects the block's own parameters (one PE per block), so ask with 0 for a
    PE shared by all blocks. ``positions`` is a ``Positions`` with one index int[N] for the whole
    batch, or int[B, N] per example (every PE but ``peg``; the terms then have a batch axis);
    ``x_BNW``, the block input, is what ``peg`` convolves (it needs it).

  Raises:
    PEError (a ValueError; ``learnpe_jax.errors``): one line naming the PE, the argument and what
    is allowed. The module's calls raise it too, for positions it cannot serve.
  """
  module_name = fields.pop("name", None)
  return _build(name, fields, library=True, width=width, num_heads=num_heads,
                num_tokens=num_tokens, init_scale=init_scale, dtype=dtype,
                param_dtype=param_dtype, causal=causal, module_name=module_name)


def _count(value) -> int | None:
  """``value`` as an int ≥ 1, or None."""
  if isinstance(value, bool):
    return None
  try:
    value = operator.index(value)
  except TypeError:
    return None
  return value if value >= 1 else None


def _rotated_dims(spec: PESpec, kwargs: Mapping[str, Any], head_dim: int) -> tuple[int, str]:
  """How many of a head's dims rotary PE ``spec`` rotates (``int(Dh · fraction)``), and how."""
  fraction = kwargs.get("fraction", 1.0)
  if fraction == 1.0:
    return head_dim, f"the head dim width // num_heads = {head_dim}"
  return int(head_dim * fraction), f"fraction={fraction} of the head dim {head_dim}"


def _build(name, fields, *, library: bool, width, num_heads, num_tokens, init_scale, dtype=None,
           param_dtype=None, causal=False, module_name=None) -> PositionalEncoding:
  """``make`` (``library``: errors in the library's words) and ``build_pe`` (the config's)."""
  spec = _library_spec(name) if library else get_spec(name)
  where = f"make({name!r})"

  def error(argument, problem, field, value, allowed):
    return PEError(name, argument, f"{where}: {problem}", field=field, value=value,
                   allowed=allowed)

  for argument, value in (("width", width), ("num_heads", num_heads), ("num_tokens", num_tokens)):
    if _count(value) is None:
      raise error(argument, f"{argument}={value!r} is not allowed: an integer ≥ 1",
                  f"model.{argument}", value, "an integer > 0")
  if width % num_heads:
    raise error("num_heads", f"num_heads={num_heads} is not allowed with width={width}: a divisor "
                "of the width (each head gets width // num_heads dims)", "model.num_heads",
                num_heads, f"a divisor of model.width={width}")
  kwargs = _fields_to_kwargs(name, fields, library=library)
  model_fields = dict(width=width, num_heads=num_heads, num_tokens=num_tokens,
                      init_scale=init_scale)
  for key, value in (("dtype", dtype), ("param_dtype", param_dtype)):
    if value is not None:
      try:
        np.dtype(value)
      except TypeError:
        raise error(key, f"{key}={value!r} is not allowed: a dtype (e.g. jnp.bfloat16)",
                    f"model.pe.{key}", value, "a dtype") from None
      kwargs[key] = value
  if causal not in (True, False):
    raise error("causal", f"causal={causal!r} is not allowed: True (a causal decoder) or False",
                "model.causal", causal, "True or False")
  if causal and not spec.causal:
    causal_pes = ", ".join(n for n, s in sorted(REGISTRY.items()) if s.causal)
    refused = ", ".join(n for n, s in REGISTRY.items() if not s.causal)
    raise error("causal", f"causal=True is not allowed: PE {name!r} reads later tokens (its terms "
                "at a token depend on the tokens after it), which a causal decoder must not see; "
                f"a causal model takes every PE of the catalogue but {refused} "
                "(get_spec(name).causal)", "model.pe.name", name,
                f"a PE whose terms at a position read no later token, with model.causal=True: "
                f"one of {causal_pes}")
  rotary_specs = [(name, spec, kwargs)]
  inner = None
  if "inner" in kwargs:
    inner = inner_spec(kwargs["inner"], library=library, outer=name)
    inner_fields = {**_module_spelling(inner.config_fields()),
                    "init_family": kwargs["init_family"], "native_scale": kwargs["native_scale"]}
    rotary_specs.append((inner.name, inner, inner_fields))
  for pe_name, pe_spec, pe_kwargs_ in rotary_specs:
    if issubclass(pe_spec.module, rotary.Rotary):
      rotated, what = _rotated_dims(pe_spec, pe_kwargs_, width // num_heads)
      if rotated < 2 or rotated % 2:
        of = "" if pe_name == name else f" (its inner PE {pe_name!r})"
        raise error("num_heads", f"width={width} with num_heads={num_heads} is not allowed"
                    f"{of}: a rotary PE rotates pairs of dims, and {what} gives {rotated} dims to "
                    f"rotate, {'none' if rotated < 2 else 'an odd number'} (one would stay "
                    "unrotated); choose width and num_heads whose head dim "
                    + ("is even" if what.startswith("the head") else "times fraction is even"),
                    "model.num_heads", num_heads,
                    f"a head dim model.width // model.num_heads whose rotated part is an even "
                    f"number of dims for rotary PE {pe_name!r} ({what} gives {rotated})")
  names_ = dict(catalogue_name=name, causal_model=bool(causal))
  if inner is not None:
    # parent=None: the outer PE adopts it as its submodule 'inner', wherever it is built.
    dtypes = {k: kwargs[k] for k in ("dtype", "param_dtype") if k in kwargs}
    kwargs["inner"] = inner.module(**model_fields, **inner_fields, **dtypes,
                                   catalogue_name=inner.name, causal_model=bool(causal),
                                   parent=None)
  if module_name is not None:
    names_["name"] = module_name
  return spec.module(**model_fields, **kwargs, **names_)


def build_pe(pe_config, *, width: int, num_heads: int, num_tokens: int,
             init_scale: Any = 1.0) -> PositionalEncoding:
  """The PE module of config.model.pe (``make`` with the config's name and fields; errors are
  ``ConfigError``s in the config's words). A field ``inner`` (learned coordinates) becomes that PE,
  with its registered defaults and this PE's σ and initializer family."""
  fields = {k: v for k, v in dict(pe_config).items() if k != "name"}
  try:
    return _build(pe_config["name"], fields, library=False, width=width, num_heads=num_heads,
                  num_tokens=num_tokens, init_scale=init_scale)
  except PEError as e:
    raise e.config_error() from None


def names() -> list[str]:
  """Every registered PE name, in catalogue order."""
  return list(REGISTRY)


_MAKE_DOC = make.__doc__


def _document_names() -> None:
  """``make``'s docstring (``help(pe.make)``) with every registered name and its summary, one line
  each, from the registry (at import, and again when ``register`` adds one)."""
  lines = [f"    {n:<27} {s.summary}" + ("" if s.causal else " [not causal]")
           for n, s in REGISTRY.items()]
  make.__doc__ = (_MAKE_DOC.rstrip() + f"\n\n  The {len(REGISTRY)} names (``names()``; "
                  "``get_spec(name)`` for one, ``python -m learnpe_jax.pe`` for the catalogue):\n\n"
                  + "\n".join(lines) + "\n")


_document_names()


def check_pe_for_task(config, positions) -> None:
  """One-line ConfigError when PE ``config.model.pe`` cannot serve a task with these (model-visible)
  positions: coordinates unknown, no token grid for a conv PE, a PEG the encoder never asks.
  For ``config_validation.validate_with_task`` (the encoder also runs it when it is traced)."""
  m = config.model
  pe = build_pe(m.pe, width=m.width, num_heads=m.num_heads, num_tokens=positions.num_tokens)
  try:
    pe.check(positions, pe_block_indices(m.depth, m.pe_placement, m.pe_sharing))
  except PEError as e:  # the config's words, the PE named as the config names it
    raise e.config_error(m.pe.name if e.field == "model.pe.name" else None) from None


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
