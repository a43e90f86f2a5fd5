"""Per-model PE metrics recorded during training (metrics.jsonl) and at the end (summary.json).

``pe_metrics(vectors_BNW, task, config)`` takes one model's per-block PE vectors and returns a flat
dict: ``pe_rsa`` (block 0), ``pe_rsa_by_block``, ``pe_norm`` (RMS of block 0's vectors),
``pe_sinusoid_similarity`` (block 0) and ``pe_sinusoid_similarity_by_block``: the similarity of the
PE to the fixed N-D sinusoidal PE of the true coordinates at the model's width (``sinusoidal_nd``,
the 2-D sinusoid on the LST; ``rsa.pe_similarity_to``). Tasks with
module labels (``task.modules``: the netsim modules, the brain's functional networks) add the
modularity measures of block 0's PE (``measures.modularity``): ``pe_within_between_ratio``,
``pe_network_silhouette``, ``pe_network_ari``, ``pe_within_sim``, ``pe_between_sim``. A task whose
``extras`` hold a functional connectivity (``fc``, the brain's) adds the PE's functional measures
(``measures.functional``) under its modules and ``hemispheres``.
"""

from __future__ import annotations

import functools

import numpy as np

from learnpe_jax.measures import rsa
from learnpe_jax.measures.functional import pe_functional_measures
from learnpe_jax.measures.modularity import modularity_metrics


@functools.lru_cache(maxsize=8)
def _sinusoid(coords_bytes: bytes, shape: tuple[int, int], width: int) -> np.ndarray:
  from learnpe_jax.pe.features import sinusoidal_features
  coords = np.frombuffer(coords_bytes, np.float32).reshape(shape)
  return np.asarray(sinusoidal_features(coords, width), np.float64)


def reference_sinusoid(coords_ND: np.ndarray, width: int) -> np.ndarray:
  """float[N, W]: the fixed sinusoidal PE of the true coordinates (``pe.features``)."""
  coords = np.ascontiguousarray(coords_ND, np.float32)
  return _sinusoid(coords.tobytes(), coords.shape, int(width))


def pe_metrics(vectors_BNW: np.ndarray, task, config) -> dict:
  coords = np.asarray(task.positions.coords)
  by_block = [rsa.pe_rsa(v, coords, config.analysis.distance) for v in vectors_BNW]
  sinusoid = reference_sinusoid(coords, vectors_BNW.shape[-1])
  to_sinusoid = [rsa.pe_similarity_to(v, sinusoid) for v in vectors_BNW]
  out = {"pe_rsa": by_block[0], "pe_rsa_by_block": by_block,
         "pe_sinusoid_similarity": to_sinusoid[0],
         "pe_sinusoid_similarity_by_block": to_sinusoid,
         "pe_norm": float(np.sqrt(np.mean(np.square(np.asarray(vectors_BNW[0], np.float64)))))}
  if task.modules is not None:
    out.update(modularity_metrics(vectors_BNW[0], task.modules))
  if task.pe_measures is not None:
    out.update(task.pe_measures(np.asarray(vectors_BNW)))
  if task.extras.get("fc") is not None:
    out.update(pe_functional_measures(np.asarray(vectors_BNW), task.extras["fc"], task.modules,
                                      task.extras["hemispheres"]))
  return out
