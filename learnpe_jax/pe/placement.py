"""Which blocks of the encoder take positional information, and from which PE parameters.

``model.pe_placement``: 'every_block' (the companion's default: every block's input gets a PE term)
or 'input' (the first block only). ``model.pe_sharing``: 'separate' (one PE per block, its own
parameters) or 'shared' (block 0's PE in every block). The PE layer owns these rules so that it can
check a PE against a task without reaching up into the model layer.
"""

from __future__ import annotations

PE_PLACEMENTS = ("every_block", "input")
PE_SHARING = ("separate", "shared")


def pe_block_indices(depth: int, pe_placement: str, pe_sharing: str) -> list[int]:
  """The PE block indices the encoder asks for (one per distinct PE)."""
  if pe_placement == "input" or pe_sharing == "shared":
    return [0]
  return list(range(depth))
