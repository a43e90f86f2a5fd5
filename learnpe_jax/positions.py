"""What a task says about where its tokens are (docs/design.md, "Positions and PositionalTerms"):
``Positions``, and the helpers for the two layouts a model usually has (docs/library.md), a 1-D
sequence (``sequence_positions``) and a row-major grid (``grid_positions``). A PE reads what its name
says it reads (the catalogue's column *coordinates*): the token index, the coordinates, or the grid
shape; both helpers give all that applies."""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np


@flax.struct.dataclass
class Positions:
  """Token positions handed to every PE.

  Attributes:
    index: int[N] token ids 0..N-1 (always present; what learned tables read), one for the whole
      batch, or int[B, N] per example (e.g. packed sequences, whose positions restart at each
      document: ``packed_positions``).
    coords: float[N, D] true coordinates (D = 1, 2, 3), or None when the model may not see them;
      float[B, N, D] with a per-example index.
    grid_shape: e.g. (4, 4) when the tokens form a row-major grid (for convolutional PEs).
  """

  index: jax.Array
  coords: jax.Array | None = None
  grid_shape: tuple[int, ...] | None = flax.struct.field(pytree_node=False, default=None)

  @property
  def batched(self) -> bool:
    """Whether the positions are per example (index [B, N])."""
    return np.ndim(self.index) == 2

  @property
  def num_tokens(self) -> int:
    return int(np.shape(self.index)[-1])

  @property
  def coord_dim(self) -> int | None:
    return None if self.coords is None else int(self.coords.shape[-1])


def grid_positions(grid_shape: tuple[int, ...]) -> Positions:
  """Positions of the cells of a row-major grid: coords are the integer (row, col[, depth])."""
  coords = np.stack(np.meshgrid(*[np.arange(n) for n in grid_shape], indexing="ij"), -1)
  coords = coords.reshape(-1, len(grid_shape)).astype(np.float32)
  return Positions(index=np.arange(len(coords), dtype=np.int32), coords=coords,
                   grid_shape=tuple(grid_shape))


def packed_positions(segment_ids) -> Positions:
  """Positions of packed sequences: ``segment_ids`` int[N] or int[B, N] names the document of
  each token (tokens of one document contiguous); the index restarts at 0 at each document's
  first token, so every document sees the positions it would see alone. Give the same
  ``segment_ids`` to ``attend_with_terms`` so that attention does not cross documents."""
  seg = np.asarray(segment_ids)
  flat = seg.reshape(-1, seg.shape[-1])
  index = np.zeros(flat.shape, np.int32)
  for row, ids in zip(index, flat, strict=True):
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    lengths = np.diff(np.r_[starts, len(ids)])
    row[:] = np.arange(len(ids)) - np.repeat(starts, lengths)
  index = index.reshape(seg.shape)
  return Positions(index=index, coords=index[..., None].astype(np.float32))


def sequence_positions(num_tokens: int) -> Positions:
  """Positions of a 1-D sequence of ``num_tokens`` tokens: index 0..N−1 and the same as 1-D
  coordinates (so that coordinate PEs such as ``alibi_nd`` or ``rope_axial`` serve it too). No grid
  shape: conv PEs (``peg``) need ``grid_positions((N,))``."""
  index = np.arange(num_tokens, dtype=np.int32)
  return Positions(index=index, coords=index[:, None].astype(np.float32))


def randomized_positions(key: jax.Array, batch: int, num_tokens: int, max_positions: int,
                         lengths: jax.Array | None = None) -> Positions:
  """Randomized positions (Ruoss et al. 2023, "Randomized Positional Encodings Boost Length
  Generalization of Transformers", 2305.16843): per example, ``num_tokens`` distinct positions
  drawn uniformly from 0 … ``max_positions`` − 1 and sorted, so that a model trained on short
  sequences has seen the positions of long ones; any PE that reads positions takes them (a table
  then needs ``max_positions`` rows). index int[B, N], coords the same as float[B, N, 1]. Works
  under ``jit`` (the sizes are static).

  ``lengths`` int[B] (optional): each example's real tokens, the rest padding. The first
  ``lengths[b]`` tokens then get the sorted draw of that many positions (so a short sequence's
  tokens spread over the whole range, as the method means), and the padding after them the
  positions that follow its last one, capped at ``max_positions`` − 1 (padding is never read by
  a real token under a causal mask)."""
  if not 0 < num_tokens <= max_positions:
    raise ValueError(f"randomized_positions: num_tokens={num_tokens} is not allowed with "
                     f"max_positions={max_positions}: 0 < num_tokens ≤ max_positions")
  slots = jnp.arange(num_tokens)

  def draw(k, length):
    picked = jax.random.choice(k, max_positions, (num_tokens,), replace=False)
    real = jnp.sort(jnp.where(slots < length, picked, max_positions + slots))
    last = real[jnp.maximum(length - 1, 0)]
    return jnp.where(slots < length, real, jnp.minimum(last + slots - length + 1,
                                                       max_positions - 1))

  lengths = jnp.full((batch,), num_tokens) if lengths is None else jnp.asarray(lengths)
  index = jax.vmap(draw)(jax.random.split(key, batch), lengths).astype(jnp.int32)
  return Positions(index=index, coords=index[..., None].astype(jnp.float32))
