"""The interface every positional encoding meets (docs/design.md, "Positions and PositionalTerms"):
``PositionalTerms``, what a PE contributes to one block, and ``PositionalEncoding``, the base class
of every PE module.

A PE is a Flax module ``pe(positions, block_index, x_BNW=None) -> PositionalTerms``. The encoder
asks it once per block that takes positional information and hands the terms to attention, which
applies whichever fields are set. Adding a PE never means editing the attention block.

``x_BNW`` is the block input; only conditional PEs read it (PEG, ``pe/conv.py``), which refuse a
call without it (but for the project's models' ``pe_add_terms``, which asks every PE for the terms
that do not depend on x: there such a PE has none).

Every call first checks what it was given (``PositionalEncoding.check_call``): a ``Positions``,
one index int[N] shared by the batch or int[B, N] per example (``per_example_terms``), indices
within the rows of the PE's table, the coordinates or grid the PE reads. A problem is a one-line
``PEError`` in the library's words (``learnpe_jax.errors``), naming the PE by its catalogue name.

The coordinates a PE reads: ``COORDINATE_INPUTS``, ``coordinate_input``.

How σ enters (docs/design.md, "σ, a per-model array"): every learnable PE names the
parameters that σ scales in its class attribute ``scaled_params``. They are of two kinds:
  * free parameters (tables, learned coordinates, positional projections, conv kernels):
    init = σ · unit_draw(init family)   (``self.scaled_init()``; ×1/sqrt(fan_in) for kernels);
  * perturbations of a paper-defined init (frequencies, slopes, URPE's all-ones Toeplitz):
    the parameter is δ = σ · unit_draw(init family) and the PE uses init·exp(δ) or 1 + δ,
    so σ → 0 recovers the paper's init exactly.
Other parameters (MLP hidden layers, LayerNorms) use Flax's defaults; each docstring says which.

The initializer family is the field ``init_family``; a config spells it ``model.pe.init`` (the
key recorded runs hold; ``registry.CONFIG_KEYS``). It is not called ``init``, which would shadow
``nn.Module.init``: ``pe.init(key, positions, block_index)`` initialises a PE on its own.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable, Mapping

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from learnpe_jax.errors import PEError
from learnpe_jax.pe.initializers import scaled_initializer
from learnpe_jax.positions import Positions

# q_BNHK, k_BNHK -> (q_BNHK, k_BNHK); applied to queries and keys before their dot product.
RotateFn = Callable[[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]


@flax.struct.dataclass
class PositionalTerms:
  """What one PE contributes to one block; every field is optional (None: the PE has no such
  term). With your own model (docs/library.md) you apply them in two places: ``add`` to the block
  input, everything else inside attention through ``learnpe_jax.models.attention
  .attend_with_terms(q, k, v, terms)``, the code the project's encoder runs. Shapes: N tokens, W
  width, H heads, Dh = W / H; q_i, k_j, v_j one head's query, key and value.

  Attributes:
    add: [N, W] (or [B, N, W] for conditional PEs) a vector per token added to the block input,
      x ← x + add, before the attention's projections (absolute PEs: learned tables, sinusoids).
    logit_bias: [H, N, N] added to the attention logits, a_ij += logit_bias_ij, after the
      1/sqrt(Dh) scaling (ALiBi, T5, distance biases).
    rotate: a function (q, k) -> (q, k) on [B, N, H, Dh] arrays, applied before q·k (the rotary
      family: RoPE, axial RoPE, xPos). The catalogue's is a ``jax.tree_util.Partial`` over its
      angles (a pytree: per-example positions batch it); a plain function of one's own works with
      positions shared by the batch.
    rel_k: [N, N, Dh] or per head [H, N, N, Dh] relative embeddings in keys:
      a_ij += q_i · rel_k_ij / sqrt(Dh) (Shaw, XL, iRPE contextual).
    rel_v: [N, N, Dh] or [H, N, N, Dh] relative embeddings in values: out_i += Σ_j p_ij rel_v_ij.
    content_bias: [H, Dh] a global query-side bias on keys: a_ij += u_h · k_j / sqrt(Dh)
      (Transformer-XL's u).
    probs_scale: [H, N, N] multiplies the attention probabilities after softmax, p_ij ← p_ij ·
      probs_scale_ij (URPE; the rows then need not sum to 1).
    pos_logits: [H, N, N] untied positional attention logits, added like ``logit_bias`` (TUPE,
      DIET, positional attention).
    contextual_bias: a function (q [B, Nq, H, Dh], logits [B, H, Nq, N], visible) -> [B, H, Nq,
      N] added to the logits after the 1/sqrt(Dh) scaling: a positional term that depends on the
      queries and keys themselves (CoPE's contextual positions). ``logits`` are the logits so far
      (q·k / sqrt(Dh)), ``visible`` the mask (bool, broadcasting to the logits; None: every key).
      The catalogue's is a ``jax.tree_util.Partial`` whose first argument holds the queries'
      positions (query axis last), which the query-row cuts slice; its other arguments are per key
      or per block. ``jax.nn.dot_product_attention`` cannot take it.
    content_logits: False drops q·k from the logits, so attention weights come from the positional
      terms alone (positional attention, 2410.01686). Static.
    reads_later_tokens: the terms at token i depend on tokens after i (PEG's centred convolution of
      the block input), so a causal decoder must not use them; ``attend_with_terms(...,
      causal=True)`` refuses such terms. Static.
    batched: the terms are per example (made from per-example positions, index [B, N]): every
      array above has a leading batch axis B (``add`` [B, N, W], ``logit_bias`` [B, H, N, N],
      ``rel_k`` [B, N, N, Dh] or [B, H, N, N, Dh], ``content_bias`` [B, H, Dh]; the arguments of
      ``rotate`` and ``contextual_bias`` too). Static.
  """

  add: jax.Array | None = None
  logit_bias: jax.Array | None = None
  rotate: RotateFn | None = None
  rel_k: jax.Array | None = None
  rel_v: jax.Array | None = None
  content_bias: jax.Array | None = None
  probs_scale: jax.Array | None = None
  pos_logits: jax.Array | None = None
  contextual_bias: Callable | None = None
  content_logits: bool = flax.struct.field(pytree_node=False, default=True)
  reads_later_tokens: bool = flax.struct.field(pytree_node=False, default=False)
  batched: bool = flax.struct.field(pytree_node=False, default=False)

  def cast(self, dtype) -> "PositionalTerms":
    """Every floating array of the terms in ``dtype`` (``rotate`` is the PE's own: the rotary
    family rotates in its ``dtype``; ``contextual_bias`` returns the logits' dtype)."""
    out = {}
    for field in dataclasses.fields(self):
      value = getattr(self, field.name)
      if field.name != "rotate" and hasattr(value, "dtype") \
          and jnp.issubdtype(value.dtype, jnp.floating):
        out[field.name] = value.astype(dtype)
    return self.replace(**out)

  def add_to(self, x_BNW: jax.Array) -> jax.Array:
    """x + ``add`` in x's dtype (x itself when ``add`` is None): a bf16 residual stream stays bf16
    (``x + add`` would promote it to the float32 of most PEs' tables and sinusoids)."""
    if self.add is None:
      return x_BNW
    return x_BNW + self.add.astype(x_BNW.dtype)


NO_TERMS = PositionalTerms()


class PositionalEncoding(nn.Module):
  """``pe(positions, block_index, x_BNW=None) -> PositionalTerms``.

  Subclasses set the class attributes that the catalogue prints (mechanism, reads, learnable,
  paper, scaled_params) and implement ``__call__``. Their own dataclass fields (all with
  defaults) are the PE's config fields: ``config.model.pe.<field>``.

  What a PE reads ('none' | 'index' | 'coords', ``needs``) is stated once: by its field
  ``coordinates`` when it has one (so one class serves e.g. 'alibi' and 'alibi_nd'), else by the
  class attribute ``reads``. The registry's catalogue and checks derive it from here. A PE whose
  class reads 'index' looks rows of a table up by the index (learned and random tables, TUPE,
  DIET-ABS, learned coordinates; the grid's cells for a grid PE): ``index_rows``.

  Every subclass's ``__call__`` runs ``check_call`` first (``__init_subclass__`` wraps it).

  Attributes:
    width: model width W.
    num_heads: attention heads H.
    num_tokens: N.
    init_family: initializer family of learnable parameters (see ``initializers.py``); the config
      key ``model.pe.init``.
    init_scale: σ, multiplies the unit-scale draw; a per-model traced scalar under vmap.
    native_scale: use the family's own scale (e.g. exact Glorot) instead of unit variance.
    catalogue_name: the PE's name in the catalogue (``make`` sets it), for messages; '' for a
      module built by hand (its class name is used).
    causal_model: the model is a causal decoder (``make(..., causal=True)``); ``make`` refuses a
      PE that reads later tokens for it.
    dtype: the dtype of the terms (every array of ``PositionalTerms``; the rotary family rotates
      q and k in it, its angles staying float32); None: float32 as computed.
    param_dtype: the dtype the learnable parameters are stored in (``param`` and the submodules'
      ``param_dtype``); None: float32.
  """

  width: int
  num_heads: int
  num_tokens: int
  init_family: str = "normal"
  init_scale: Any = 1.0
  native_scale: bool = False
  catalogue_name: str = ""
  causal_model: bool = False
  dtype: Any = None        # the terms' dtype (None: as computed, float32)
  param_dtype: Any = None  # the learnable parameters' dtype (None: float32)

  # Catalogue metadata (class attributes, not fields).
  mechanism = "?"
  reads = "none"        # 'none' | 'index' | 'coords', for a PE without a field ``coordinates``
  learnable = False
  paper = ""
  scaled_params: tuple[str, ...] = ()  # name prefixes of the parameters σ scales
  needs_grid = False    # reads positions.grid_shape (conv PEs)
  grid_use = "its terms are laid out on the token grid"  # why it reads the grid, for messages
  # Whether the PE's terms at position i depend on no token after i, so that a causal decoder
  # (``model.causal``) stays causal with it; False for PEs that mix neighbouring tokens both ways.
  causal = True
  # Whether the PE takes per-example positions (index [B, N]); a class that cannot says why.
  per_example = True
  per_example_problem = ""

  @property
  def reads_extent(self) -> bool:
    """Whether the terms read the span of the positions given (min/max over the tokens), so
    that cutting later positions off changes an earlier token's terms (``train.trim_padding``
    refuses such a PE)."""
    return False

  def __init_subclass__(cls, **kwargs):
    call = cls.__dict__.get("__call__")
    if call is not None and not getattr(call, "_checks_its_call", False):
      cls.__call__ = _checking(call)
    super().__init_subclass__(**kwargs)

  @classmethod
  def needs_with(cls, fields: Mapping[str, Any]) -> str:
    """What a PE of this class with config ``fields`` reads: 'none' | 'index' | 'coords' (its
    field ``coordinates``, the class default when ``fields`` lacks it; else ``reads``)."""
    if "coordinates" in cls.__dataclass_fields__:
      return fields.get("coordinates", cls.coordinates)
    return cls.reads

  @property
  def needs(self) -> str:
    """What this PE reads: 'none' | 'index' | 'coords' (``needs_with``)."""
    return self.needs_with({"coordinates": getattr(self, "coordinates", None)})

  @property
  def head_dim(self) -> int:
    return self.width // self.num_heads

  @property
  def label(self) -> str:
    """The PE's catalogue name (its class name for a module built by hand)."""
    return self.catalogue_name or type(self).__name__

  def error(self, argument: str, problem: str, *, field: str = "model.pe.name", value=None,
            allowed: str = "") -> PEError:
    """A ``PEError`` "PE 'name': <problem>" about ``argument``; ``field``, ``value`` and
    ``allowed`` say the same in the config's words (``PEError.config_error``)."""
    return PEError(self.label, argument, f"PE {self.label!r}: {problem}", field=field,
                   value=self.label if value is None else value, allowed=allowed or problem)

  def index_rows(self, positions: Positions) -> int | None:
    """How many rows the table has that this PE looks up by ``positions.index`` (indices must lie
    in 0 … rows − 1), or None when it reads the index as a number (RoPE, sinusoids, biases) or not
    at all. A PE whose class reads 'index': ``num_tokens`` rows, or the grid's cells for a grid PE.
    """
    if "coordinates" in type(self).__dataclass_fields__ or type(self).reads != "index":
      return None
    if self.needs_grid and positions.grid_shape is not None:
      return math.prod(positions.grid_shape)
    return self.num_tokens

  def scaled_init(self, fan_in: int | None = None):
    """σ · unit_draw(init family) [· 1/sqrt(fan_in)]."""
    init = scaled_initializer(self.init_family, self.init_scale, self.native_scale)
    if fan_in is None:
      return init
    return lambda key, shape, dtype=jnp.float32: init(key, shape, dtype) / math.sqrt(fan_in)

  def check(self, positions: Positions, pe_blocks=None) -> None:
    """Raise a one-line ``PEError`` (a ConfigError) if this PE cannot serve these positions: it
    reads coordinates and they are unknown, or a grid and there is none (trace time).
    ``pe_blocks``: the blocks a model asks the PE for (the project's models pass them)."""
    if self.needs == "coords" and positions.coords is None:
      raise self.error(
          "positions.coords", "positions.coords=None (the coordinates are unknown) is not allowed: "
          "it reads coordinates float[N, D]; pe.grid_positions(shape) and "
          "pe.sequence_positions(N) give them (or use a PE that reads the index or nothing)",
          allowed="a PE that needs no coordinates: the task keeps token positions unknown")
    if self.needs_grid and positions.grid_shape is None:
      raise self.error(
          "positions.grid_shape", "positions.grid_shape=None is not allowed: it reads the token "
          f"grid ({self.grid_use}); pe.grid_positions((rows, cols)) gives one, "
          "pe.grid_positions((N,)) a 1-D one (pe.sequence_positions(N) has none)",
          allowed="a PE that needs no token grid: the task's tokens have no grid_shape")

  def check_call(self, positions: Positions, block_index: int = 0,
                 x_BNW: jax.Array | None = None) -> None:
    """What every call checks before the PE runs (one-line ``PEError``s): ``positions`` is a
    ``Positions``; its index is int[N], one for the whole batch, or int[B, N] per example (for a
    PE whose class allows it, ``per_example``) and, for a PE that looks rows up by it, within the
    table (when the index is concrete: under jit a traced index cannot be read, and the absolute
    tables then give NaN rows beyond the table, ``lookup_rows``); coordinates float[N, D] (or
    [B, N, D]) of the same tokens; ``check``."""
    del block_index
    if not isinstance(positions, Positions):
      raise self.error("positions", f"positions is {_describe(positions)}, not a Positions: pass "
                       "pe.sequence_positions(N), pe.grid_positions((rows, cols)) or "
                       "pe.Positions(index=int[N], coords=float[N, D] or None, grid_shape=None)",
                       field="model.pe.name", allowed="positions given as a Positions")
    shape = tuple(np.shape(positions.index))
    if len(shape) not in (1, 2):
      raise self.error("positions.index", f"positions.index of shape {shape} is not allowed: an "
                       "index int[N] shared by the batch, or int[B, N] per example",
                       allowed="an index int[N] or int[B, N]")
    if len(shape) == 2 and not type(self).per_example:
      raise self.error("positions.index", f"positions.index of shape {shape} is not allowed: "
                       f"per-example positions: {type(self).per_example_problem}; pass one index "
                       "int[N] that every example shares", allowed="one index int[N]")
    if positions.coords is not None:
      coords_shape = tuple(np.shape(positions.coords))
      if len(coords_shape) != len(shape) + 1 or coords_shape[:-1] != shape:
        want = ", ".join(map(str, shape))
        raise self.error("positions.coords", f"positions.coords of shape {coords_shape} is not "
                         f"allowed with an index of shape {shape}: float[{want}, D], one row per "
                         "token", allowed=f"float[{want}, D]")
    if x_BNW is not None and len(shape) == 2 and np.shape(x_BNW)[0] != shape[0]:
      raise self.error("x_BNW", f"x_BNW of shape {tuple(np.shape(x_BNW))} is not allowed with "
                       f"per-example positions of {shape[0]} examples: [{shape[0]}, N, W]",
                       allowed="x_BNW with the positions' batch")
    self.check(positions)
    rows = self.index_rows(positions)
    if rows is None:
      return
    index = positions.index
    dtype = getattr(index, "dtype", None) or np.asarray(index).dtype
    if not jnp.issubdtype(dtype, jnp.integer):
      raise self.error("positions.index", f"positions.index of dtype {dtype} is not allowed:"
                       " integers (it looks rows of a table up by the index)",
                       allowed="an integer index")
    if isinstance(index, jax.core.Tracer) or shape[0] == 0:
      return
    values = np.asarray(index)
    low, high = int(values.min()), int(values.max())
    if low < 0 or high >= rows:
      bad = high if high >= rows else low
      on_grid = self.needs_grid and positions.grid_shape is not None
      size, fix = ((f"the {rows} cells of grid_shape={tuple(positions.grid_shape)}",
                    "a grid with more cells") if on_grid else
                   (f"num_tokens={self.num_tokens} rows", f"num_tokens ≥ {high + 1}"))
      raise self.error("positions.index", f"positions.index holds {bad}, which is not allowed: "
                       f"indices 0 … {rows - 1} (its table has {size}); make it with {fix} to "
                       "look up more positions",
                       allowed=f"indices below the {rows} rows of the table")

  def param(self, name, init_fn, *init_args, **init_kwargs):
    """``nn.Module.param``, the value drawn in float32 and stored in ``param_dtype`` (when set)."""
    if self.param_dtype is None:
      return super().param(name, init_fn, *init_args, **init_kwargs)
    cast = lambda key, *a, **k: init_fn(key, *a, **k).astype(self.param_dtype)
    return super().param(name, cast, *init_args, **init_kwargs)

  @property
  def submodule_dtypes(self) -> dict:
    """``dtype``/``param_dtype`` for a Flax layer inside a PE (Dense, Conv, LayerNorm)."""
    return {"dtype": self.dtype, "param_dtype": self.param_dtype or jnp.float32}

  def per_example_terms(self, positions: Positions, block_index: int,
                        x_BNW: jax.Array | None = None) -> PositionalTerms:
    """The terms for per-example positions (index [B, N], coords [B, N, D]): the PE called on
    each example's positions (``nn.vmap`` over the batch, parameters shared), every term with a
    leading batch axis (``add`` [B, N, W], ``logit_bias`` [B, H, N, N], ``rel_k`` [B, (H,) N, N,
    Dh], ...) and ``batched`` set, which ``attend_with_terms`` reads. The rotary family overrides
    it (its ``rotate`` is a function, built once from the per-example angles)."""
    def one(module, p, x):
      return module(p, block_index, None if x is None else x[None])

    per_example = nn.vmap(one, variable_axes={"params": None}, split_rngs={"params": False},
                          in_axes=(0, None if x_BNW is None else 0))
    terms = per_example(self, positions, x_BNW)
    if terms.add is not None and terms.add.ndim == 4:  # a conditional PE's [1, N, W] per example
      terms = terms.replace(add=terms.add[:, 0])
    return terms.replace(batched=True)

  def __call__(self, positions: Positions, block_index: int,
               x_BNW: jax.Array | None = None) -> PositionalTerms:
    raise NotImplementedError


def _describe(value) -> str:
  """'a numpy array of shape (16,)' / 'a list' / 'None': what a value is, for messages."""
  if value is None:
    return "None"
  if hasattr(value, "shape") and hasattr(value, "dtype"):
    kind = "a numpy array" if isinstance(value, np.ndarray) else "an array"
    return f"{kind} of shape {tuple(value.shape)}"
  return f"a {type(value).__name__}"


def _checking(call):
  """``call`` (a PE's ``__call__``) running ``check_call`` first; with per-example positions (an
  index [B, N]) it runs once per example (``per_example_terms``)."""
  @functools.wraps(call)
  def checked(self, positions, block_index=0, x_BNW=None):
    self.check_call(positions, block_index, x_BNW)
    if positions.batched:
      return self.per_example_terms(positions, block_index, x_BNW)
    terms = call(self, positions, block_index, x_BNW)
    return terms if self.dtype is None else terms.cast(self.dtype)
  checked._checks_its_call = True
  return checked


def lookup_rows(table, index):
  """``table[index]``: rows of a table by token index. A concrete index has been checked
  (``check_call``); one traced under jit cannot be, and gathers NaN rows for indices beyond the
  table where JAX's indexing would silently repeat the last row."""
  if isinstance(index, jax.core.Tracer):
    return table.at[index].get(mode="fill", fill_value=jnp.nan)
  return table[index]


COORDINATE_INPUTS = ("index", "coords")  # the values of a PE's field ``coordinates``


def coordinate_input(positions: Positions, use: str):
  """float[N, D]: the true coordinates (``use='coords'``) or the token index as 1-D coordinate."""
  if use == "index":
    return jnp.asarray(positions.index, jnp.float32)[:, None]
  if positions.coords is None:
    raise PEError("(a coordinate PE)", "positions.coords", "positions.coords=None (the coordinates "
                  "are unknown) is not allowed for a PE that reads coordinates float[N, D]",
                  field="model.pe.name", value="(coordinate PE)",
                  allowed="a PE that needs no coordinates: the task keeps token positions unknown")
  return jnp.asarray(positions.coords, jnp.float32)


def fixed_key(seed: int, block_index: int):
  """A PRNG key for fixed (non-trained) random draws, per block."""
  return jax.random.fold_in(jax.random.PRNGKey(seed), block_index)
