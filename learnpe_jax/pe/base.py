"""The interface every positional encoding meets (docs/design.md, "Positions and PositionalTerms"):
``PositionalTerms``, what a PE contributes to one block, and ``PositionalEncoding``, the base class
of every PE module.

A PE is a Flax module ``pe(positions, block_index, x_BNW=None) -> PositionalTerms``. The encoder
asks it once per block that takes positional information and hands the terms to attention, which
applies whichever fields are set. Adding a PE never means editing the attention block.

``x_BNW`` is the block input; only conditional PEs read it (PEG, ``pe/conv.py``). When it is None
(e.g. ``Encoder.pe_add_terms``) such a PE returns no terms.

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

import math
from typing import Any, Callable, Mapping

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp

from learnpe_jax.errors import ConfigError
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
      family: RoPE, axial RoPE, xPos). Static (not a pytree leaf).
    rel_k: [N, N, Dh] or per head [H, N, N, Dh] relative embeddings in keys:
      a_ij += q_i · rel_k_ij / sqrt(Dh) (Shaw, XL, iRPE contextual).
    rel_v: [N, N, Dh] or [H, N, N, Dh] relative embeddings in values: out_i += Σ_j p_ij rel_v_ij.
    content_bias: [H, Dh] a global query-side bias on keys: a_ij += u_h · k_j / sqrt(Dh)
      (Transformer-XL's u).
    probs_scale: [H, N, N] multiplies the attention probabilities after softmax, p_ij ← p_ij ·
      probs_scale_ij (URPE; the rows then need not sum to 1).
    pos_logits: [H, N, N] untied positional attention logits, added like ``logit_bias`` (TUPE,
      DIET, positional attention).
    content_logits: False drops q·k from the logits, so attention weights come from the positional
      terms alone (positional attention, 2410.01686). Static.
  """

  add: jax.Array | None = None
  logit_bias: jax.Array | None = None
  rotate: RotateFn | None = flax.struct.field(pytree_node=False, default=None)
  rel_k: jax.Array | None = None
  rel_v: jax.Array | None = None
  content_bias: jax.Array | None = None
  probs_scale: jax.Array | None = None
  pos_logits: jax.Array | None = None
  content_logits: bool = flax.struct.field(pytree_node=False, default=True)

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
  class attribute ``reads``. The registry's catalogue and checks derive it from here.

  Attributes:
    width: model width W.
    num_heads: attention heads H.
    num_tokens: N.
    init_family: initializer family of learnable parameters (see ``initializers.py``); the config
      key ``model.pe.init``.
    init_scale: σ, multiplies the unit-scale draw; a per-model traced scalar under vmap.
    native_scale: use the family's own scale (e.g. exact Glorot) instead of unit variance.
  """

  width: int
  num_heads: int
  num_tokens: int
  init_family: str = "normal"
  init_scale: Any = 1.0
  native_scale: bool = False

  # Catalogue metadata (class attributes, not fields).
  mechanism = "?"
  reads = "none"        # 'none' | 'index' | 'coords', for a PE without a field ``coordinates``
  learnable = False
  paper = ""
  scaled_params: tuple[str, ...] = ()  # name prefixes of the parameters σ scales
  needs_grid = False    # reads positions.grid_shape (conv PEs)
  # Whether the PE's terms at position i depend on no token after i, so that a causal decoder
  # (``model.causal``) stays causal with it; False for PEs that mix neighbouring tokens both ways.
  causal = True

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

  def scaled_init(self, fan_in: int | None = None):
    """σ · unit_draw(init family) [· 1/sqrt(fan_in)]."""
    init = scaled_initializer(self.init_family, self.init_scale, self.native_scale)
    if fan_in is None:
      return init
    return lambda key, shape, dtype=jnp.float32: init(key, shape, dtype) / math.sqrt(fan_in)

  def check(self, positions: Positions, pe_blocks=None) -> None:
    """Raise a one-line ConfigError if this PE cannot serve these positions (trace time)."""
    if self.needs == "coords" and positions.coords is None:
      raise ConfigError("model.pe.name", type(self).__name__,
                        "a PE that needs no coordinates: the task keeps token positions unknown")
    if self.needs_grid and positions.grid_shape is None:
      raise ConfigError("model.pe.name", type(self).__name__,
                        "a PE that needs no token grid: the task's tokens have no grid_shape")

  def __call__(self, positions: Positions, block_index: int,
               x_BNW: jax.Array | None = None) -> PositionalTerms:
    raise NotImplementedError


COORDINATE_INPUTS = ("index", "coords")  # the values of a PE's field ``coordinates``


def coordinate_input(positions: Positions, use: str):
  """float[N, D]: the true coordinates (``use='coords'``) or the token index as 1-D coordinate."""
  if use == "index":
    return jnp.asarray(positions.index, jnp.float32)[:, None]
  if positions.coords is None:
    raise ConfigError("model.pe.name", "(coordinate PE)",
                      "a PE that needs no coordinates: the task keeps token positions unknown")
  return jnp.asarray(positions.coords, jnp.float32)


def fixed_key(seed: int, block_index: int):
  """A PRNG key for fixed (non-trained) random draws, per block."""
  return jax.random.fold_in(jax.random.PRNGKey(seed), block_index)
