"""Geometry of a PE beyond RSA: layout recovery, effective dimensionality, movement from init.

- Layout recovery: classical MDS (Torgerson) of the pairwise PE distances into D dimensions (D = the
  true coordinates' dimension), aligned to the true coordinates by Procrustes (translation, rotation
  or reflection, isotropic scale). R² = 1 − ‖X − Ŷ‖² / ‖X − X̄‖² over all tokens, X the true
  coordinates and Ŷ the aligned layout; 1 means the PE holds an exact (scaled) copy of the geometry.
- Learned coordinates (PE ``learned_coords*``) against the true ones: the Procrustes disparity
  1 − R² of the same alignment (scipy.spatial.procrustes's disparity), lower dimension zero-padded.
- Effective dimensionality: participation ratio of the centred PE's singular values s_i,
  PR = (Σ s_i²)² / Σ s_i⁴  (1 ≤ PR ≤ rank; = k for k equal singular values).
- Movement: ‖P_T − P_0‖_F / ‖P_0‖_F, small for lazy (kernel-regime) learning, large for rich
  learning (Ito et al. 2025 relate small-σ inits to the rich regime).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.spatial.distance

MDS_DISTANCES = ("euclidean", "cosine")


def pe_distance_matrix(pe_NW: np.ndarray, metric: str = "euclidean") -> np.ndarray:
  """float[N, N] distances between PE vectors: 'euclidean' ‖p_i − p_j‖, or 'cosine' the chord
  distance ‖p_i/‖p_i‖ − p_j/‖p_j‖‖ = √(2(1 − cos)) (a Euclidean distance, unlike 1 − cos)."""
  p = np.asarray(pe_NW, np.float64)
  if metric == "cosine":
    norm = np.linalg.norm(p, axis=-1, keepdims=True)
    p = p / np.where(norm > 0, norm, 1.0)
  elif metric != "euclidean":
    raise ValueError(f"MDS distance must be one of {MDS_DISTANCES}, got {metric!r}")
  return scipy.spatial.distance.squareform(scipy.spatial.distance.pdist(p))


def classical_mds(dist_NN: np.ndarray, dims: int) -> np.ndarray:
  """float[N, dims] classical MDS: top eigenvectors of B = −½ J D² J, scaled by √λ (λ ≥ 0)."""
  d2 = np.square(np.asarray(dist_NN, np.float64))
  n = d2.shape[0]
  j = np.eye(n) - 1.0 / n
  b = -0.5 * j @ d2 @ j
  evals, evecs = np.linalg.eigh((b + b.T) / 2)
  order = np.argsort(evals)[::-1][:dims]
  return evecs[:, order] * np.sqrt(np.clip(evals[order], 0.0, None))


def procrustes_align(target_ND: np.ndarray, source_ND: np.ndarray) -> tuple[np.ndarray, float]:
  """(aligned source, R²): source translated, rotated/reflected and scaled onto target.

  Ŷ = s·(Y − Ȳ)R + X̄ with R = argmin ‖(X − X̄) − (Y − Ȳ)R‖ over orthogonal R
  (scipy.linalg.orthogonal_procrustes) and the least-squares scale s = tr(Σ)/‖Y − Ȳ‖².
  """
  x = np.asarray(target_ND, np.float64)
  y = np.asarray(source_ND, np.float64)
  xc, yc = x - x.mean(0), y - y.mean(0)
  ss_x = float(np.sum(xc ** 2))
  if ss_x == 0:
    return np.broadcast_to(x.mean(0), x.shape).copy(), float("nan")
  if np.sum(yc ** 2) == 0:
    return np.broadcast_to(x.mean(0), x.shape).copy(), 0.0
  r, trace = scipy.linalg.orthogonal_procrustes(yc, xc)
  scale = trace / float(np.sum(yc ** 2))
  aligned = scale * yc @ r + x.mean(0)
  return aligned, 1.0 - float(np.sum((x - aligned) ** 2)) / ss_x


def layout_recovery(pe_NW: np.ndarray, coords_ND: np.ndarray,
                    metric: str = "euclidean") -> tuple[np.ndarray, float]:
  """(recovered layout float[N, D] aligned to the true coordinates, its R²)."""
  coords = np.asarray(coords_ND, np.float64)
  embedding = classical_mds(pe_distance_matrix(pe_NW, metric), coords.shape[1])
  return procrustes_align(coords, embedding)


def learned_coordinates(params) -> np.ndarray:
  """float[N, d]: the learned coordinates in a model's params (``params['pe']['coords']``)."""
  return np.asarray(params["pe"]["coords"])


def procrustes_disparity(learned_Nd: np.ndarray, true_ND: np.ndarray) -> float:
  """1 − R² of ``procrustes_align`` (0 = identical up to translation, rotation/reflection and
  scale) between the learned and the true coordinates; the lower dimension is zero-padded."""
  a, b = np.asarray(learned_Nd, np.float64), np.asarray(true_ND, np.float64)
  d = max(a.shape[1], b.shape[1])
  pad = lambda x: np.pad(x, ((0, 0), (0, d - x.shape[1])))
  return 1.0 - procrustes_align(pad(b), pad(a))[1]


def participation_ratio(pe_NW: np.ndarray) -> float:
  """PR = (Σ s²)² / Σ s⁴ of the token-centred PE (its effective dimensionality)."""
  p = np.asarray(pe_NW, np.float64)
  s2 = np.square(np.linalg.svd(p - p.mean(0), compute_uv=False))
  total = s2.sum()
  return float(total ** 2 / np.sum(s2 ** 2)) if total > 0 else float("nan")


def movement(pe_NW: np.ndarray, pe_init_NW: np.ndarray) -> float:
  """‖P_T − P_0‖_F / ‖P_0‖_F (NaN when P_0 = 0)."""
  p0 = np.asarray(pe_init_NW, np.float64)
  n0 = np.linalg.norm(p0)
  return float(np.linalg.norm(np.asarray(pe_NW, np.float64) - p0) / n0) if n0 > 0 else float("nan")
