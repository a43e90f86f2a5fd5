"""The transformer encoder of the LST study (docs/design.md, "The Latin Square Task"), with a
pluggable PE.

Defaults match the companion code: Linear(F→W) token embedding; post-LayerNorm blocks
    h = LN(x + Attn(x));   x' = LN(h + MLP(h)),   MLP = W→4W→W with GELU     (models/block.py),
a PE's ``add`` term added to the input of every block (one PE per block, or shared, or only at the
input), readout from the last token → Linear(W→outputs).

Readout 'token' is the companion's released ("BERT") models' way: one readout token appended after
the cells (``with_readout_token``), read out instead of the last cell.

With ``exact_shortcuts`` (the default) the blocks take the shortcuts that apply to them
(``shortcut_inputs``; the algebra in ``models/attention.py``): the same function and parameters for
fewer FLOPs. Without it every block runs the plain computation. Either way it is the one ``Block``.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.models import weight_init
from learnpe_jax.models.block import Block
from learnpe_jax.models.projections import Affine, DenseWeights, project
from learnpe_jax.pe.base import NO_TERMS, PositionalEncoding, PositionalTerms
from learnpe_jax.pe.placement import pe_block_indices
from learnpe_jax.positions import Positions

READOUTS = ("last", "mean", "query", "tokens", "token")  # the Encoder's ``readout`` values
NORMS = ("post", "pre")


def with_readout_token(tokens_BNF, positions: Positions):
  """The tokens and positions with one readout token appended, as the companion's compiled
  ``transformer_bert`` module does (``F.pad(x, (0, 1, 0, 1)); x[:, -1, -1] = 1``): the N cells get
  an extra input channel of zeros, the new token N + 1 has only that channel set, and token index
  N (so an index-based PE gives it a row of its own: a learned table of N + 1 rows). It has no
  coordinates, so coordinate PEs refuse this readout (``config_validation``)."""
  tokens = jnp.pad(tokens_BNF, ((0, 0), (0, 1), (0, 1)))
  tokens = tokens.at[:, -1, -1].set(1)
  index = jnp.concatenate([jnp.asarray(positions.index, jnp.int32),
                           jnp.array([positions.num_tokens], jnp.int32)])
  return tokens, Positions(index=index, coords=None, grid_shape=None)


def pool(x_BNW, readout: str, query_index_B=None):
  """What a classification head reads of the token stream: the last token ('last'; 'token', where
  the last token is the appended readout token), the mean over tokens ('mean') or the query token
  ('query', at ``query_index_B``)."""
  if readout in ("last", "token"):
    return x_BNW[:, -1]
  if readout == "mean":
    return x_BNW.mean(axis=1)
  return jnp.take_along_axis(x_BNW, query_index_B[:, None, None], axis=1)[:, 0]


def shortcut_inputs(encoder, b: int, terms: PositionalTerms, tokens_BNF, embed):
  """(rows, x_affine): the exact shortcuts that apply to block ``b`` of ``encoder`` (an
  ``Encoder``, calling from its ``__call__``), as ``Block`` takes them. ``rows``: the last token
  only, in the last block under readout 'last' or 'token' (nothing else of it is read).
  ``x_affine``: block 0's input as an ``Affine`` of the raw features ``tokens_BNF`` through
  ``embed`` (kernel, bias) and the PE's ``add``, under post-norm when F < W (None: that input is
  not an affine function of the features, e.g. after dropout, and the affine shortcut is off)."""
  last_only = encoder.readout in ("last", "token") and b == encoder.depth - 1
  rows = slice(-1, None) if last_only else None
  x_affine = None
  if (b == 0 and embed is not None and encoder.norm == "post" and encoder.block_noise_sd == 0
      and tokens_BNF.shape[-1] < encoder.width and (terms.add is None or terms.add.ndim == 2)):
    x_affine = Affine(tokens_BNF, embed[0], embed[1] if terms.add is None else
                      embed[1] + terms.add.astype(encoder.dtype))
  return rows, x_affine


class Encoder(nn.Module):
  """Tokens float[B, N, F] → outputs float[B, num_outputs] (or [B, N, num_outputs] per token).

  Attributes:
    pe: the positional encoding module (see ``learnpe_jax.pe``).
    readout: one of ``READOUTS``: 'last' token, 'mean' over tokens, 'query' (the token at
      ``query_index``), 'token' (a readout token appended after the N tokens,
      ``with_readout_token``; the PE is then built for N + 1 tokens), each giving
      [B, num_outputs]; or 'tokens' (one output per token, [B, N, num_outputs]; regression tasks).
    mlp_final_activation: 'none' (MLP = W₂ GELU(W₁ h)) or 'gelu' (a GELU after W₂ too, the
      companion code's block; ``models/block.py``).
    weight_init: 'flax' (LeCun normal kernels, zero biases) or 'torch' (PyTorch's defaults, the
      companion code's), for every weight outside the PE (``models/weight_init.py``).
    causal: a decoder: token i attends to tokens j ≤ i only (``attention.causal_mask``), so the
      output at i ignores every token after i (PEs that read later tokens are refused,
      ``config_validation``).
    pe_placement: 'every_block' (the companion's default) or 'input' (first block only).
    pe_sharing: 'separate' (one PE per block) or 'shared' (block 0's PE everywhere).
    pe_dropout: dropout of this rate on each block's input right after its PE is added,
      x ← Dropout(x + p), at every block that receives the PE, as the companion code's ``PositionalEncoding2D`` does (its default
      ``dropout=0.1``; ljhearne/LSTNN_public, ``lstnn/transformer_main.py``). Active when the call
      is not ``deterministic`` (it then needs an rng stream 'dropout'); 0 (the default) adds none.
  """

  pe: PositionalEncoding
  width: int = 160
  depth: int = 4
  num_heads: int = 1
  mlp_ratio: int = 4
  num_outputs: int = 4
  readout: str = "last"
  pe_placement: str = "every_block"
  pe_sharing: str = "separate"
  norm: str = "post"
  mlp_final_activation: str = "none"
  causal: bool = False
  weight_init: str = "flax"
  dtype: jnp.dtype = jnp.float32
  # Out-of-distribution probe: Gaussian noise of this sd added to the input of every block
  # (needs an rng stream 'noise' when > 0).
  block_noise_sd: float = 0.0
  pe_dropout: float = 0.0
  # Exact shortcuts (same function, fewer FLOPs; shortcut_inputs): with readout 'last' the last
  # block computes the last token only; under post-norm the first block's projections factor
  # through the token features.
  exact_shortcuts: bool = True

  def pe_blocks(self) -> list[int]:
    """The PE block indices the encoder asks for (one per distinct PE)."""
    return pe_block_indices(self.depth, self.pe_placement, self.pe_sharing)

  def pe_add_terms(self, positions: Positions):
    """float[blocks, N, W]: the vectors the PE adds to the token embeddings, per distinct PE;
    None when the PE adds none (relative, rotary, bias PEs) or adds a function of the block input
    (conditional PEs such as PEG, asked here without x)."""
    adds = [self.pe(positions, b).add for b in self.pe_blocks()]
    return None if adds[0] is None else jnp.stack(adds)

  def pe_logit_terms(self, positions: Positions):
    """float[blocks, H, N, N]: the content-free attention logits the PE adds, per distinct PE (its
    ``logit_bias`` plus its ``pos_logits``); None when it adds neither (additive, rotary and
    query-side relative PEs)."""
    logits = []
    for b in self.pe_blocks():
      terms = self.pe(positions, b)
      parts = [t for t in (terms.logit_bias, terms.pos_logits) if t is not None]
      if not parts:
        return None
      total = sum(parts[1:], parts[0])
      logits.append(jnp.broadcast_to(total, (self.num_heads,) + total.shape[-2:]))
    return jnp.stack(logits)

  @nn.compact
  def __call__(self, tokens_BNF, positions: Positions, query_index_B=None,
               deterministic: bool = True):
    """``deterministic=False`` turns ``pe_dropout`` on (rng stream 'dropout')."""
    if self.readout == "token":
      tokens_BNF, positions = with_readout_token(tokens_BNF, positions)
    # A PE that cannot serve these positions fails here, at trace time, with one ConfigError line.
    self.pe.check(positions, self.pe_blocks())
    embed_init = weight_init.linear(self.weight_init, tokens_BNF.shape[-1])
    embed = DenseWeights((self.width,), dtype=self.dtype, kernel_init=embed_init[0],
                         bias_init=embed_init[1], name="embed")(tokens_BNF.shape[-1])
    tokens_BNF = tokens_BNF.astype(self.dtype)
    x_BNW = project(tokens_BNF, *embed)
    for b in range(self.depth):
      terms = NO_TERMS
      pe_here = b == 0 or self.pe_placement == "every_block"
      if pe_here:
        # The PE sees the block input: conditional PEs (PEG) compute their term from it.
        terms = self.pe(positions, b if self.pe_sharing == "separate" else 0, x_BNW)
      if terms.add is not None:
        x_BNW = x_BNW + terms.add.astype(self.dtype)
      dropped = self.pe_dropout > 0 and not deterministic and pe_here
      if dropped:
        x_BNW = nn.Dropout(self.pe_dropout, deterministic=False)(x_BNW)
      if self.block_noise_sd > 0:
        noise = jax.random.normal(self.make_rng("noise"), x_BNW.shape, x_BNW.dtype)
        x_BNW = x_BNW + self.block_noise_sd * noise
      rows, x_affine = (shortcut_inputs(self, b, terms, tokens_BNF, None if dropped else embed)
                        if self.exact_shortcuts else (None, None))
      x_BNW = Block(self.num_heads, self.mlp_ratio, self.norm, self.dtype,
                    self.mlp_final_activation, self.causal, self.weight_init,
                    name=f"block_{b}")(x_BNW, terms, rows, x_affine)
    head_init = weight_init.linear(self.weight_init, self.width)
    head = nn.Dense(self.num_outputs, kernel_init=head_init[0], bias_init=head_init[1],
                    name="head")
    if self.readout == "tokens":
      return head(x_BNW).astype(jnp.float32)
    return head(
        pool(x_BNW, self.readout, query_index_B)).astype(jnp.float32)
