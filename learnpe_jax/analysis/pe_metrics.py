"""Per-model PE metrics recorded during training (metrics.jsonl) and at the end (summary.json).

``pe_metrics(vectors_BNW, task, config)`` takes one model's per-block PE vectors and returns a flat
dict: ``pe_rsa`` (block 0), ``pe_rsa_by_block``, ``pe_norm`` (RMS of block 0's vectors). Tasks with
module labels add modularity measures here.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.analysis import rsa


def pe_metrics(vectors_BNW: np.ndarray, task, config) -> dict:
  coords = np.asarray(task.positions.coords)
  by_block = [rsa.pe_rsa(v, coords, config.analysis.distance) for v in vectors_BNW]
  return {"pe_rsa": by_block[0], "pe_rsa_by_block": by_block,
          "pe_norm": float(np.sqrt(np.mean(np.square(vectors_BNW[0]))))}
