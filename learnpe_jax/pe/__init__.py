"""The PE catalogue, and the library to use any of its PEs in a Flax model of one's own
(docs/library.md). Importing it needs jax, flax and numpy only.

    from learnpe_jax import pe
    rope = pe.make("rope_axial", width=64, num_heads=4, num_tokens=64)   # a Flax module
    terms = rope(pe.grid_positions((8, 8)), 0)                           # PositionalTerms
    # x = x + terms.add (when set); then, between your projections and your output projection:
    # out = learnpe_jax.models.attention.attend_with_terms(q, k, v, terms)

``names()`` lists the PEs, ``help(make)`` with a line each; ``get_spec(name)`` is one PE's entry
(``.fields()``: its fields and defaults); ``python -m learnpe_jax.pe`` prints the catalogue. A
mistake is a one-line ``PEError`` (a ValueError) naming the PE, the argument and what is allowed.
``register`` adds a PE (docs/adding_a_pe.md). ``make_nnx`` gives a PE for a Flax NNX model
(``pe/nnx_bridge.py``; imported on first use). ``build_pe`` / ``default_pe_config`` are the config
path the trainer uses (``config.model.pe``; they import ml_collections only when called).
"""

from learnpe_jax.errors import PEError
from learnpe_jax.pe.base import PositionalEncoding, PositionalTerms
from learnpe_jax.pe.registry import (REGISTRY, build_pe, default_pe_config, get_spec, make, names,
                                     register)
from learnpe_jax.positions import (Positions, grid_positions, packed_positions, randomized_positions,
                                   sequence_positions)

__all__ = ["PEError", "PositionalTerms", "PositionalEncoding", "Positions", "REGISTRY", "build_pe",
           "default_pe_config", "get_spec", "grid_positions", "make", "names", "packed_positions",
           "randomized_positions", "register", "sequence_positions", "make_nnx"]


def __getattr__(name):
  if name == "make_nnx":  # flax.nnx only for those who use it
    from learnpe_jax.pe.nnx_bridge import make_nnx
    return make_nnx
  raise AttributeError(f"module 'learnpe_jax.pe' has no attribute {name!r}")
