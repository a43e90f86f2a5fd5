"""``Positions`` for the two layouts a model of one's own usually has (docs/library.md): a 1-D
sequence and a row-major grid. A PE reads what its name says it reads (the catalogue's column
*coordinates*): the token index, the coordinates, or the grid shape; both helpers give all that
applies."""

from __future__ import annotations

import numpy as np

from learnpe_jax.positions import Positions, grid_positions

__all__ = ["Positions", "grid_positions", "sequence_positions"]


def sequence_positions(num_tokens: int) -> Positions:
  """Positions of a 1-D sequence of ``num_tokens`` tokens: index 0..N−1 and the same as 1-D
  coordinates (so that coordinate PEs such as ``alibi_nd`` or ``rope_axial`` serve it too). No grid
  shape: conv PEs (``peg``) need ``grid_positions((N,))``."""
  index = np.arange(num_tokens, dtype=np.int32)
  return Positions(index=index, coords=index[:, None].astype(np.float32))
