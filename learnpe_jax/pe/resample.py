"""Resampling a learned table to a new grid or length, as a ViT does at a new resolution
(Dosovitskiy et al. 2021, 2010.11929, §3.2: "2D interpolation of the pre-trained position
embeddings, according to their location in the original image"; timm's ``resample_abs_pos_embed``).

``resample_table(table, old_shape, new_shape)``: the rows of a table laid out row-major on a grid
of ``old_shape`` (a length is a 1-D grid) read as an image with W channels and resized with
``jax.image.resize`` (half-pixel centres) to ``new_shape``; the result is the table for a model
made with ``num_tokens = prod(new_shape)``. Put it into that model's parameters in place of the
old table (``table_<block>`` of ``learned``).
"""

from __future__ import annotations

import math

import jax

METHODS = ("nearest", "linear", "bilinear", "trilinear", "cubic", "bicubic", "tricubic",
           "lanczos3", "lanczos5")


def resample_table(table_NW: jax.Array, old_shape: tuple[int, ...], new_shape: tuple[int, ...],
                   method: str = "bicubic") -> jax.Array:
  """[prod(old_shape), W] → [prod(new_shape), W] (``method``: one of ``METHODS``; bicubic is what
  ViTs use)."""
  old_shape, new_shape = tuple(old_shape), tuple(new_shape)
  if method not in METHODS:
    raise ValueError(f"resample_table: method={method!r} is not allowed: one of "
                     f"{', '.join(METHODS)}")
  if len(old_shape) != len(new_shape) or table_NW.ndim != 2 \
      or table_NW.shape[0] != math.prod(old_shape):
    raise ValueError(f"resample_table: a table of shape {tuple(table_NW.shape)} from a grid "
                     f"{old_shape} to {new_shape} is not allowed: [prod(old_shape), W] and two "
                     "grids of the same number of axes")
  width = table_NW.shape[1]
  image = table_NW.reshape(old_shape + (width,))
  resized = jax.image.resize(image, new_shape + (width,), method=method)
  return resized.reshape(math.prod(new_shape), width).astype(table_NW.dtype)
