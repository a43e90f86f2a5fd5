"""Multi-head self-attention with the positional hooks of ``PositionalTerms`` (docs/design.md,
"Positions and PositionalTerms").

With q_i, k_j, v_j per head (dimension Dh) and the fields of ``PositionalTerms``:
    q, k      ← rotate(q, k)                                         (rotary family)
    a_ij      = [c·q_i·k_j + q_i·rel_k_ij + u·k_j] / sqrt(Dh) + logit_bias_ij + pos_logits_ij
                + contextual_bias_ij(q, a)
                (c = 1, or 0 when ``content_logits`` is False: positional attention; the
                contextual term, CoPE's, reads q and the logits before it, masked keys gated off)
    p_ij      = softmax_j(a_ij) · probs_scale_ij                       (URPE multiplies after softmax)
                with a_ij = −∞ for j > i under a causal mask (a decoder: query i sees keys j ≤ i)
    out_i     = Σ_j p_ij (v_j + rel_v_ij)
Each term is applied only when the PE set it, so a PE never edits this block. ``rel_k``/``rel_v``
are shared by the heads ([N, N, Dh]) or per head ([H, N, N, Dh]).

``attend`` applies the terms, given the queries and how they meet the keys and values
(``Contractions``: q·k, u·k and p·v); it is the only place that reads them, so a new hook is
written there once.

Exact shortcuts (``Encoder.exact_shortcuts``; docs/design.md, "Performance"): the same function,
parameters and gradients for fewer FLOPs, as optional inputs of the one ``SelfAttention``:
  * ``rows``: the queries of these rows only, against every key. With few queries the key and
    value projections fold into them and k, v are never formed for all N tokens
    (``folded_contractions``):
        q_i·k_j = (W_k q_i)·x_j,     Σ_j p_ij v_j = W_vᵀ(Σ_j p_ij x_j) + (Σ_j p_ij) b_v
    (unless a rotation needs the keys themselves); ``for_query_rows`` cuts the terms to the rows.
  * an ``Affine`` input (``models/projections.py``): x given through the F token features, so
    x·K + c = tokens·(weight·K) + (offset·K + c).
With neither, ``SelfAttention`` is the plain computation (``tests/test_shortcuts.py`` compares).

``attend_with_terms(q, k, v, terms)`` is the public entry for a model of one's own
(docs/library.md): the rotation and then ``attend``, exactly what ``SelfAttention`` runs between
its projections. ``terms.add`` is the one field it leaves alone: it belongs to the block input,
``x + terms.add`` before the projections (as the encoder does). With ``kernel='xla'`` or
``'cudnn'`` it hands the softmax attention to ``jax.nn.dot_product_attention`` (on a GPU, cuDNN's
fused flash attention) for the terms that kernel can express (``FUSED_FIELDS``): a rotation, which
acts on q and k before the call, and ``logit_bias``/``pos_logits``, which are its additive
``bias`` after the 1/sqrt(Dh) scaling. Terms that change q·k itself or the probabilities after the
softmax (``rel_k``, ``rel_v``, ``content_bias``, ``probs_scale``, ``content_logits=False``: Shaw,
XL, iRPE, URPE, positional attention), and ``contextual_bias``, which needs q·k before the softmax
(CoPE), have no place in that kernel and are refused.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.models import weight_init
from learnpe_jax.models.projections import Affine, DenseWeights, project
from learnpe_jax.pe.base import PositionalTerms


@dataclasses.dataclass(frozen=True)
class Contractions:
  """How queries meet the ``num_keys`` keys and values (B batch, H heads, Nq queries, N keys)."""

  num_keys: int
  q_dot_k: Callable[[jax.Array], jax.Array]  # q [B, Nq, H, Dh] → Σ_d q·k [B, H, Nq, N]
  u_dot_k: Callable[[jax.Array], jax.Array]  # u [H, Dh] or [B, H, Dh] → Σ_d u·k [B, H, N]
  p_dot_v: Callable[[jax.Array], jax.Array]  # p [B, H, Nq, N] → Σ_j p·v [B, Nq, H, Dh]


def key_value_contractions(k_BNHK, v_BNHK) -> Contractions:
  """The contractions with keys and values given as arrays [B, N, H, Dh]."""
  return Contractions(
      num_keys=k_BNHK.shape[1],
      q_dot_k=lambda q: jnp.einsum("bnhk,bmhk->bhnm", q, k_BNHK),
      u_dot_k=lambda u: jnp.einsum("hk,bmhk->bhm" if u.ndim == 2 else "bhk,bmhk->bhm", u,
                                   k_BNHK),
      p_dot_v=lambda p: jnp.einsum("bhnm,bmhk->bnhk", p, v_BNHK))


def folded_contractions(x_BNW, wk_WHK, wv_WHK, bv_HK) -> Contractions:
  """The contractions with k = x·W_k and v = x·W_v + b_v, k and v never formed."""
  return Contractions(
      num_keys=x_BNW.shape[1],
      q_dot_k=lambda q: jnp.einsum("bnhw,bmw->bhnm", jnp.einsum("bnhk,whk->bnhw", q, wk_WHK),
                                   x_BNW),
      u_dot_k=lambda u: jnp.einsum("...hw,bmw->bhm", jnp.einsum("...hk,whk->...hw", u, wk_WHK),
                                   x_BNW),
      p_dot_v=lambda p: (jnp.einsum("bhnw,whk->bnhk", jnp.einsum("bhnm,bmw->bhnw", p, x_BNW),
                                    wv_WHK)
                         + jnp.einsum("bhnm->bnh", p)[..., None] * bv_HK))


# The query axis of each PositionalTerms field (counted from the end) that ``for_query_rows``
# cuts; None for fields that are not per query (they act on whole blocks or on the keys). A new
# field must be listed here (``for_query_rows`` fails on one that is not). ``contextual_bias``
# is a function: the axis is that of its first argument, the queries' positions (``_cut_args``).
QUERY_AXIS = {"add": None, "rotate": None, "content_bias": None, "content_logits": None,
              "reads_later_tokens": None, "batched": None,
              "logit_bias": -2, "probs_scale": -2, "pos_logits": -2, "rel_k": -3, "rel_v": -3,
              "contextual_bias": -1}
FUNCTION_FIELDS = ("contextual_bias",)  # per-query fields that are functions, not arrays


def _cut_args(name: str, fn, cut):
  """Function field ``name`` (a ``jax.tree_util.Partial``) with its first argument, the queries'
  positions, cut by ``cut`` (an array → its query rows)."""
  if not isinstance(fn, jax.tree_util.Partial) or not fn.args:
    raise ValueError(f"attend_with_terms: terms.{name} must be a jax.tree_util.Partial whose "
                     "first argument holds the queries' positions to cut it to fewer queries; "
                     "a function of one's own is not allowed here: give it as many queries as "
                     "keys")
  first, *rest = fn.args
  return jax.tree_util.Partial(fn.func, cut(first), *rest, **fn.keywords)


def for_query_rows(terms: PositionalTerms, rows: slice) -> PositionalTerms:
  """``terms`` for the queries ``rows`` only: the query axis of every [.., N_q, N_k(, Dh)] field
  sliced; ``add``, ``rotate`` and the rest stay as they are."""
  cut = {}
  for field in dataclasses.fields(terms):
    axis, value = QUERY_AXIS[field.name], getattr(terms, field.name)
    if axis is not None and value is not None:
      slicer = lambda a: a[(Ellipsis, rows) + (slice(None),) * (-axis - 1)]
      cut[field.name] = (_cut_args(field.name, value, slicer) if field.name in FUNCTION_FIELDS
                         else slicer(value))
  return terms.replace(**cut)


def causal_mask(num_tokens: int, rows: slice | None = None) -> jax.Array:
  """bool [Nq, N]: query i may attend key j when j ≤ i (the rows ``rows`` of the N×N mask)."""
  mask = jnp.tril(jnp.ones((num_tokens, num_tokens), bool))
  return mask if rows is None else mask[rows]


def _rel_einsum(x, rel, spec_shared, spec_heads, batched=False):
  """x with relative embeddings shared by the heads ([N, N, Dh]) or per head ([H, N, N, Dh]),
  each with a leading batch axis when the terms are per example (``batched``)."""
  per_head = rel.ndim == 4 + batched
  spec = spec_heads if per_head else spec_shared
  if batched:  # the embeddings' own batch axis: 'b' on both sides
    inputs, out = spec.split("->")
    x_spec, rel_spec = inputs.split(",")
    spec = f"{x_spec},b{rel_spec}->{out}"
  return jnp.einsum(spec, x, rel.astype(x.dtype))


def attend(q_BQHK, terms: PositionalTerms, keys: Contractions, dtype,
           mask_QN: jax.Array | None = None) -> jax.Array:
  """out [B, Nq, H, Dh] of the formula above for the queries q (rotated already), every field of
  ``terms`` but ``add`` and ``rotate`` given for these query rows ([.., Nq, N(, Dh)]); ``mask_QN``
  (bool [Nq, N], e.g. ``causal_mask``, or [B, 1, Nq, N] per example) removes the keys a query
  may not see."""
  batch, n_q, num_heads, head_dim = q_BQHK.shape
  if terms.content_logits:
    logits_BHQN = keys.q_dot_k(q_BQHK)
  else:
    logits_BHQN = jnp.zeros((batch, num_heads, n_q, keys.num_keys), dtype)
  if terms.rel_k is not None:
    logits_BHQN = logits_BHQN + _rel_einsum(q_BQHK, terms.rel_k, "bnhk,nmk->bhnm",
                                            "bnhk,hnmk->bhnm", terms.batched)
  if terms.content_bias is not None:
    logits_BHQN = logits_BHQN + keys.u_dot_k(terms.content_bias.astype(dtype))[:, :, None, :]
  logits_BHQN = logits_BHQN / jnp.sqrt(head_dim).astype(dtype)
  if terms.contextual_bias is not None:  # CoPE: gates from these logits, masked keys off
    logits_BHQN = logits_BHQN + terms.contextual_bias(q_BQHK, logits_BHQN,
                                                      mask_QN).astype(dtype)
  if terms.logit_bias is not None:
    logits_BHQN = logits_BHQN + terms.logit_bias.astype(dtype)
  if terms.pos_logits is not None:
    logits_BHQN = logits_BHQN + terms.pos_logits.astype(dtype)
  if mask_QN is not None:
    logits_BHQN = jnp.where(mask_QN, logits_BHQN, jnp.finfo(logits_BHQN.dtype).min)
  probs_BHQN = jax.nn.softmax(logits_BHQN.astype(jnp.float32), axis=-1).astype(dtype)
  if terms.probs_scale is not None:
    probs_BHQN = probs_BHQN * terms.probs_scale.astype(dtype)
  out_BQHK = keys.p_dot_v(probs_BHQN)
  if terms.rel_v is not None:
    out_BQHK = out_BQHK + _rel_einsum(probs_BHQN, terms.rel_v, "bhnm,nmk->bnhk",
                                      "bhnm,hnmk->bnhk", terms.batched)
  return out_BQHK


KERNELS = ("plain", "xla", "cudnn")
# The fields jax.nn.dot_product_attention can take: rotate (applied before), the logit biases (its
# additive ``bias``) and add (applied to the block input, before the projections).
FUSED_FIELDS = ("add", "rotate", "logit_bias", "pos_logits")
_UNFUSED = ("rel_k", "rel_v", "content_bias", "probs_scale", "contextual_bias")


def unfused_terms(terms: PositionalTerms) -> list[str]:
  """The fields of ``terms`` that ``jax.nn.dot_product_attention`` cannot apply ([] when it can
  run them all)."""
  out = [f for f in _UNFUSED if getattr(terms, f) is not None]
  return out + ([] if terms.content_logits else ["content_logits=False"])


def rotate_queries(terms: PositionalTerms, offset, q_BQHK: jax.Array) -> jax.Array:
  """q [B, Nq, H, Dh] of the tokens ``offset`` … ``offset`` + Nq − 1 of a longer sequence, rotated
  by those tokens' angles of ``terms.rotate`` (made for the whole sequence; ``offset`` may be
  traced). The catalogue's rotation is a ``jax.tree_util.Partial`` over per-token cos, sin and
  scales, cut here to the rows; a rotation of one's own must be made for the queries alone."""
  if terms.rotate is None:
    return q_BQHK
  if not isinstance(terms.rotate, jax.tree_util.Partial):
    raise ValueError("attend_with_terms: queries at an offset need the catalogue's rotation (a "
                     "jax.tree_util.Partial over per-token angles); a rotate function of one's "
                     "own is not allowed here: give it as many queries as keys")
  n_q = q_BQHK.shape[1]
  cut = [None if a is None else jax.lax.dynamic_slice_in_dim(a, offset, n_q, axis=a.ndim - 3)
         for a in terms.rotate.args]
  return jax.tree_util.Partial(terms.rotate.func, *cut)(q_BQHK, q_BQHK)[0]


def query_rows_at(terms: PositionalTerms, offset, n_q: int) -> PositionalTerms:
  """``for_query_rows`` for the rows ``offset`` … ``offset`` + n_q − 1, ``offset`` possibly traced
  (a decoding step's position)."""
  cut = {}
  for field in dataclasses.fields(terms):
    axis, value = QUERY_AXIS[field.name], getattr(terms, field.name)
    if axis is not None and value is not None:
      slicer = lambda a: jax.lax.dynamic_slice_in_dim(a, offset, n_q, axis=a.ndim + axis)
      cut[field.name] = (_cut_args(field.name, value, slicer) if field.name in FUNCTION_FIELDS
                         else slicer(value))
  return terms.replace(**cut)


def _check_terms_fit(terms: PositionalTerms, batch: int, n: int) -> None:
  """A one-line error when the terms were made for another number of tokens (or examples) than
  the keys have (the queries are among them), before an einsum would fail on it."""
  token_axes = {"logit_bias": (-2, -1), "pos_logits": (-2, -1), "probs_scale": (-2, -1),
                "rel_k": (-3, -2), "rel_v": (-3, -2)}
  for field, axes in token_axes.items():
    value = getattr(terms, field)
    if value is not None and tuple(value.shape[a] for a in axes) != (n, n):
      raise ValueError(f"attend_with_terms: terms.{field} of shape {tuple(value.shape)} is not "
                       f"allowed with keys of {n} tokens: the PE was given positions of "
                       f"{value.shape[axes[0]]} tokens; give it the keys' positions")
  rotation = getattr(terms.rotate, "args", None)  # the catalogue's: Partial(cos, sin, ...)
  if rotation and hasattr(rotation[0], "shape") and rotation[0].shape[-3] != n:
    raise ValueError(f"attend_with_terms: terms.rotate was made for {rotation[0].shape[-3]} "
                     f"positions, not allowed with keys of {n} tokens; give the PE the keys' "
                     "positions")
  contextual = getattr(terms.contextual_bias, "args", None)  # Partial(query positions, ...)
  if contextual and hasattr(contextual[0], "shape") and contextual[0].shape[-1] != n:
    raise ValueError(f"attend_with_terms: terms.contextual_bias was made for "
                     f"{contextual[0].shape[-1]} positions, not allowed with keys of {n} tokens; "
                     "give the PE the keys' positions")
  if terms.batched:
    sizes = {f: getattr(terms, f).shape[0] for f in (*token_axes, "content_bias")
             if getattr(terms, f) is not None}
    if rotation and hasattr(rotation[0], "shape"):
      sizes["rotate"] = rotation[0].shape[0]
    if contextual and hasattr(contextual[0], "shape"):
      sizes["contextual_bias"] = contextual[0].shape[0]
    bad = {f: b for f, b in sizes.items() if b != batch}
    if bad:
      f, b = next(iter(bad.items()))
      raise ValueError(f"attend_with_terms: per-example terms.{f} for {b} examples is not "
                       f"allowed with a batch of {batch}: positions [B, N] with B = {batch}")


def attend_with_terms(q_BNHK: jax.Array, k_BNHK: jax.Array, v_BNHK: jax.Array,
                      terms: PositionalTerms, *, causal: bool = False,
                      segment_ids: jax.Array | None = None, query_offset=None,
                      dtype=jnp.float32, kernel: str = "plain") -> jax.Array:
  """Attention with every positional term of ``terms`` except ``add``: the formula at the top of
  this module, the code the project's encoder runs (``SelfAttention``).

  Args:
    q_BNHK, k_BNHK, v_BNHK: queries, keys and values [B, N, H, Dh], projected from the block
      input (to which ``terms.add``, if set, was added first); q may have fewer tokens than k
      and v (see ``causal``).
    terms: what a PE returned for this block (``learnpe_jax.pe.PositionalTerms``): ``rotate``
      turns q and k; ``rel_k``, ``content_bias``, ``logit_bias``, ``pos_logits`` and
      ``contextual_bias`` (a function of q and the logits: CoPE) enter the logits,
      ``content_logits=False`` drops q·k from them; ``probs_scale`` multiplies the
      probabilities; ``rel_v`` enters the output. Unset fields cost nothing.
    causal: query i sees keys j ≤ i only (a decoder; ``causal_mask``).
      With fewer queries than keys (decoding with a KV cache: q of the new tokens, k and v of
      the cache, unrotated, and ``terms`` made for the positions of all the keys), the queries
      are the tokens from ``query_offset`` on: each field's query rows and the rotation's angles
      are cut to them (``query_rows_at``, ``rotate_queries``) and query i sees keys
      j ≤ query_offset + i.
    query_offset: the position of the first query among the keys (an int or a traced scalar:
      a decoding step in a preallocated cache); None: the last Nq keys' positions.
    segment_ids: int [N] or [B, N], packed sequences: query i sees key j only when both belong
      to the same document (``segment_ids[i] == segment_ids[j]``); with ``causal``, both masks.
      Their positions restart at each document (``pe.packed_positions(segment_ids)``).
    dtype: the dtype of the logits and probabilities outside the softmax (which runs in float32).
    kernel: 'plain' (the formula above, every term), or 'xla' / 'cudnn': the softmax attention
      by ``jax.nn.dot_product_attention(implementation=kernel)``, for terms with ``FUSED_FIELDS``
      only (``unfused_terms`` lists what is not; 'cudnn' needs a GPU and bf16/fp16 inputs).

  Returns:
    out [B, N, H, Dh], before the output projection.
  """
  if kernel not in KERNELS:
    raise ValueError(f"attend_with_terms: kernel={kernel!r} is not allowed: one of "
                     f"{', '.join(map(repr, KERNELS))}")
  if causal and terms.reads_later_tokens:
    raise ValueError("attend_with_terms: causal=True is not allowed with these terms: they read "
                     "later tokens (PEG's centred convolution); a decoder needs a causal PE "
                     "(pe.get_spec(name).causal)")
  if kernel != "plain" and unfused_terms(terms):
    raise ValueError(f"attend_with_terms: kernel={kernel!r} is not allowed with terms that set "
                     f"{', '.join(unfused_terms(terms))}: jax.nn.dot_product_attention takes a "
                     "rotation and an additive logit bias only; use kernel='plain'")
  n_q, n_k = q_BNHK.shape[1], k_BNHK.shape[1]
  if n_q > n_k:
    raise ValueError(f"attend_with_terms: {n_q} queries against {n_k} keys is not allowed: the "
                     "queries are tokens of the keys' sequence (at most as many)")
  _check_terms_fit(terms, q_BNHK.shape[0], n_k)
  decoding = n_q < n_k or query_offset is not None
  offset = n_k - n_q if query_offset is None else query_offset  # the first query's position
  if decoding:  # the queries are n_q of the n_k positions, from ``offset`` on
    q_BNHK = rotate_queries(terms, offset, q_BNHK)
    if terms.rotate is not None:
      _, k_BNHK = terms.rotate(k_BNHK, k_BNHK)
    terms = query_rows_at(terms.replace(rotate=None), offset, n_q)
  elif terms.rotate is not None:
    q_BNHK, k_BNHK = terms.rotate(q_BNHK, k_BNHK)
  query_pos = offset + jnp.arange(n_q)
  mask = jnp.arange(n_k)[None, :] <= query_pos[:, None] if causal else None  # [Nq, N]
  if segment_ids is not None:
    seg = jnp.asarray(segment_ids)
    if seg.shape[-1] != n_k or seg.ndim not in (1, 2):
      raise ValueError(f"attend_with_terms: segment_ids of shape {tuple(seg.shape)} is not "
                       f"allowed: int[N] or int[B, N] with N = {n_k} tokens (the keys')")
    seg_q = jax.lax.dynamic_slice_in_dim(seg, offset, n_q, axis=seg.ndim - 1)
    same = seg_q[..., :, None] == seg[..., None, :]  # [(B,) Nq, N]
    same = same[:, None] if same.ndim == 3 else same  # [B, 1, Nq, N]: every head
    mask = same if mask is None else same & mask
  if kernel != "plain":
    biases = [b for b in (terms.logit_bias, terms.pos_logits) if b is not None]
    bias = sum(b.astype(dtype) for b in biases) if biases else None
    if bias is not None and bias.ndim == 3:  # [H, N, N] → [1, H, N, N]
      bias = bias[None]
    return jax.nn.dot_product_attention(q_BNHK, k_BNHK, v_BNHK, bias=bias, mask=mask,
                                        implementation=kernel)
  return attend(q_BNHK, terms, key_value_contractions(k_BNHK, v_BNHK), dtype, mask)


class SelfAttention(nn.Module):
  """Self-attention over N tokens; ``causal``: query i attends keys j ≤ i only (a decoder)."""

  num_heads: int
  dtype: jnp.dtype = jnp.float32
  causal: bool = False
  weight_init: str = "flax"  # models/weight_init.py

  @nn.compact
  def __call__(self, x, terms: PositionalTerms, rows: slice | None = None) -> jax.Array:
    """x [B, N, W] (or an ``Affine`` describing it) → [B, N, W], or [B, rows, W] for the queries
    ``rows`` only (None: all), each attending every key."""
    width = x.shape[-1]
    (wq_WHK, bq_HK), (wk_WHK, _), (wv_WHK, bv_HK) = self.projection_weights(width)
    if rows is not None and terms.rotate is None and not isinstance(x, Affine):
      q_BQHK = project(x[:, rows], wq_WHK, bq_HK)
      keys = folded_contractions(x, wk_WHK, wv_WHK, bv_HK)
    else:
      x_project = x.project if isinstance(x, Affine) else lambda *w: project(x, *w)
      q_BQHK, k_BNHK = x_project(wq_WHK, bq_HK), x_project(wk_WHK)
      v_BNHK = x_project(wv_WHK, bv_HK)
      if terms.rotate is not None:
        q_BQHK, k_BNHK = terms.rotate(q_BQHK, k_BNHK)
      if rows is not None:
        q_BQHK = q_BQHK[:, rows]
      keys = key_value_contractions(k_BNHK, v_BNHK)
    if rows is not None:
      terms = for_query_rows(terms, rows)
    mask = causal_mask(keys.num_keys, rows) if self.causal else None
    return self.output_projection(attend(q_BQHK, terms, keys, self.dtype, mask), width)

  def projection_weights(self, width: int):
    """(kernel [W, H, Dh], bias [H, Dh]) of the query, key (no bias) and value projections."""
    kernel_init, bias_init = weight_init.attention_in(self.weight_init, width)
    weights = lambda name, bias=True: DenseWeights(
        (self.num_heads, width // self.num_heads), bias, self.dtype, kernel_init, bias_init,
        name=name)(width)
    # No key bias: it adds q_i·b to every logit of row i, which softmax cancels; its gradient is
    # exactly zero, and Adam would turn the roundoff in it into full-size steps.
    return weights("query"), weights("key", bias=False), weights("value")

  def output_projection(self, out_BNHK, width: int) -> jax.Array:
    """[B, N, H, Dh] → [B, N, W]."""
    kernel_init, bias_init = weight_init.attention_out(self.weight_init, width)
    return nn.DenseGeneral(width, axis=(-2, -1), dtype=self.dtype, kernel_init=kernel_init,
                           bias_init=bias_init, name="out")(out_BNHK)
