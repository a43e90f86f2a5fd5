"""Every PE metric of every model of a run, per PE block, from its saved checkpoint.

``analyze_run(run)`` returns the content of ``analysis.json``: the run's per-model records (as in
``summary.json``: σ, seed, train/test score, RSA at init and at the end, divergence) each with a
``blocks`` list holding, per distinct PE block b, for the PE P_b (float[N, W]) and its init P_b⁰:
  rsa_spearman, rsa_pearson, rsa_p_value   PE dissimilarity vs true distance (``rsa.rsa_stats``)
  rsa_spearman_init                        the same at init (RSA is read relative to it)
  mds_r2, mds_r2_init                      layout recovery (``geometry.layout_recovery``)
  effective_dim, effective_dim_init        participation ratio (``geometry.participation_ratio``)
  pe_rms, pe_rms_init                      √mean(P²)
  movement                                 ‖P − P⁰‖_F / ‖P⁰‖_F
  pe_within_between_ratio, pe_network_silhouette, pe_network_ari (+ _init)
                                           only for tasks with module labels (``modularity``)
PEs that add no per-token vectors (relative, rotary, bias PEs, no PE) get no ``blocks``.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from learnpe_jax.measures import geometry, rsa
from learnpe_jax.measures.pe_metrics import pe_metrics
from learnpe_jax.seed_stats import summarize
from learnpe_jax.training import report


@dataclasses.dataclass
class Settings:
  num_permutations: int = 1000   # Mantel permutations for the RSA p-value (0: skip)
  mds_distance: str = "euclidean"  # PE distance fed to classical MDS: 'euclidean' | 'cosine'
  seed: int = 0                  # permutations and k-means


def block_metrics(pe_NW, pe_init_NW, coords_ND, labels, distance: str, settings: Settings) -> dict:
  """The metrics of one PE block (see the module docstring)."""
  out = rsa.rsa_stats(pe_NW, coords_ND, distance, settings.num_permutations, settings.seed)
  out["rsa_spearman_init"] = rsa.pe_rsa(pe_init_NW, coords_ND, distance)
  out["mds_r2"] = geometry.layout_recovery(pe_NW, coords_ND, settings.mds_distance)[1]
  out["mds_r2_init"] = geometry.layout_recovery(pe_init_NW, coords_ND, settings.mds_distance)[1]
  out["effective_dim"] = geometry.participation_ratio(pe_NW)
  out["effective_dim_init"] = geometry.participation_ratio(pe_init_NW)
  out["pe_rms"] = float(np.sqrt(np.mean(np.square(pe_NW))))
  out["pe_rms_init"] = float(np.sqrt(np.mean(np.square(pe_init_NW))))
  out["movement"] = geometry.movement(pe_NW, pe_init_NW)
  if labels is not None:
    from learnpe_jax.measures.modularity import modularity_metrics
    out.update(modularity_metrics(pe_NW, labels))
    out.update({f"{k}_init": v for k, v in modularity_metrics(pe_init_NW, labels).items()})
  return out


@dataclasses.dataclass
class RunAnalysis:
  """``analysis.json`` content plus the arrays the figures need."""
  data: dict
  pe: np.ndarray | None        # float[M, blocks, N, W] at the checkpoint
  coords: np.ndarray           # float[N, D] true coordinates
  labels: np.ndarray | None    # int[N] module labels


def analyze_run(run, settings: Settings | None = None) -> RunAnalysis:
  settings = settings or Settings()
  trainer, config, task = run.trainer, run.config, run.task
  if settings.mds_distance not in geometry.MDS_DISTANCES:
    from learnpe_jax.errors import UserError
    raise UserError(f"mds_distance={settings.mds_distance!r} is not allowed: one of "
                    f"{', '.join(geometry.MDS_DISTANCES)}")
  init_params = trainer.init()["models"]["params"]
  pe = run.pe_vectors()
  pe0 = trainer.pe_vectors(init_params)
  pe0 = None if pe0 is None else np.asarray(pe0)
  if pe is None:
    final_pe = init_pe = [{} for _ in range(run.axis.size)]
  else:
    final_pe = [pe_metrics(v, task, config) for v in pe]
    init_pe = [pe_metrics(v, task, config) for v in pe0]
  data = report.run_summary(trainer, run.state, init_pe, final_pe, config)
  coords = np.asarray(task.positions.coords, np.float64)
  labels = None if task.modules is None else np.asarray(task.modules)
  blocks = trainer.model.pe_blocks() if pe is not None else []
  for i, rec in enumerate(data["models"]):
    rec["blocks"] = [dict(block=b, **block_metrics(pe[i, j], pe0[i, j], coords, labels,
                                                  config.analysis.distance, settings))
                     for j, b in enumerate(blocks)]
  data.update(workdir=run.workdir, kind=task.kind, score=report.score_name(task),
              num_tokens=task.num_tokens, coord_dim=int(coords.shape[1]),
              has_modules=labels is not None, pe_blocks=blocks,
              grid_shape=(None if task.positions.grid_shape is None
                          else list(task.positions.grid_shape)),
              settings=dataclasses.asdict(settings), distance=config.analysis.distance)
  data["by_sigma"] = aggregate(data)
  return RunAnalysis(data, pe, coords, labels)


def aggregate(data: dict) -> list[dict]:
  """Per (σ, lr, block): mean and sd over seeds of every block metric and of the scores."""
  score = data["score"]
  rows = []
  for (sigma, lr), group in report.group_by_sigma(data["models"]).items():
    base = {"pe_init_scale": sigma, "learning_rate": lr, "seeds": len(group),
            f"train_{score}": summarize(m[f"train_{score}"] for m in group),
            f"test_{score}": summarize(m[f"test_{score}"] for m in group)}
    if not data["pe_blocks"]:
      rows.append(dict(base, block=None))
    for j, b in enumerate(data["pe_blocks"]):
      keys = [k for k in group[0]["blocks"][j] if k != "block"]
      rows.append(dict(base, block=b, **{k: summarize(m["blocks"][j][k] for m in group)
                                         for k in keys}))
  return rows


def to_jsonable(x):
  """NaN/inf → None, numpy scalars → Python, recursively (strict JSON)."""
  if isinstance(x, dict):
    return {str(k): to_jsonable(v) for k, v in x.items()}
  if isinstance(x, (list, tuple)):
    return [to_jsonable(v) for v in x]
  if isinstance(x, (np.generic, jax.Array)):
    x = x.item() if np.ndim(x) == 0 else np.asarray(x).tolist()
    return to_jsonable(x)
  if isinstance(x, float) and not np.isfinite(x):
    return None
  return x
