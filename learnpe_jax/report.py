"""Per-model records (``summary.json``) and the per-σ table printed at the end of a run."""

from __future__ import annotations

import collections

import numpy as np

from learnpe_jax import sharding


def score_name(task) -> str:
  return "accuracy" if task.kind == "classification" else "neg_mse"


def eval_fields(task, split: str, result: dict, i: int) -> dict:
  """Flatten one model's eval result: ``{split}_loss``, ``{split}_accuracy``, and per level."""
  name = score_name(task)
  out = {f"{split}_loss": float(result["loss"][i]), f"{split}_{name}": float(result["score"][i])}
  if task.kind == "regression" and task.target_variance:
    out[f"{split}_r2"] = 1.0 + float(result["score"][i]) / task.target_variance
  if len(task.level_names) > 1:
    out[f"{split}_{name}_by_level"] = {lvl: float(result["score_by_level"][i][j])
                                       for j, lvl in enumerate(task.level_names)}
  return out


def summarize(trainer, state, init_pe: list[dict], final_pe: list[dict], config) -> dict:
  task = trainer.task
  params = state["models"]["params"]
  train = sharding.to_host(trainer.evaluate(params, "train"))
  test = sharding.to_host(trainer.evaluate(params, "test"))
  diverged = sharding.to_host(state["models"]["diverged_step"])
  models = []
  for i, rec in enumerate(trainer.axis.records):
    row = {"model": i, **rec}
    row.update(eval_fields(task, "train", train, i))
    row.update(eval_fields(task, "test", test, i))
    row.update(final_pe[i])
    if "pe_rsa" in init_pe[i]:
      row["pe_rsa_init"] = init_pe[i]["pe_rsa"]
      row["pe_norm_init"] = init_pe[i]["pe_norm"]
    row["diverged"] = bool(diverged[i] >= 0)
    row["diverged_step"] = int(diverged[i]) if diverged[i] >= 0 else None
    models.append(row)
  return {"task": task.name, "pe": config.model.pe.name, "num_steps": int(state["step"]),
          "models": models}


def _mean_sd(values) -> str:
  v = np.array([x for x in values if x is not None], float)
  v = v[np.isfinite(v)]
  if len(v) == 0:
    return "—"
  return f"{v.mean():.3f} ± {v.std(ddof=1) if len(v) > 1 else 0.0:.3f}"


def group_by_sigma(models: list[dict]) -> dict[tuple, list[dict]]:
  groups = collections.defaultdict(list)
  for m in models:
    groups[(m["pe_init_scale"], m["learning_rate"])].append(m)
  return dict(sorted(groups.items()))


MODULARITY_COLUMNS = (("pe_within_between_ratio", "PE within/between"),
                      ("pe_network_silhouette", "PE silhouette"),
                      ("pe_network_ari", "PE k-means ARI"))


def format_table(summary: dict) -> str:
  """Markdown table: one row per (σ, lr), mean ± sd over seeds.

  Classification: train/test accuracy (and per level). Regression: train/test MSE and test R²
  (score = −MSE is shown as MSE). Then PE–geometry RSA (final, at init) and, when the task has
  module labels, the PE modularity measures (``analysis.modularity``).
  """
  models = summary["models"]
  score = "accuracy" if "test_accuracy" in models[0] else "neg_mse"
  regression = score == "neg_mse"
  levels = list(models[0].get(f"test_{score}_by_level", {}))
  has_rsa = "pe_rsa" in models[0]
  has_r2 = "test_r2" in models[0]
  modularity = [(k, name) for k, name in MODULARITY_COLUMNS if k in models[0]]
  lrs = {m["learning_rate"] for m in models}
  shown = "MSE" if regression else score
  head = ["σ"] + (["lr"] if len(lrs) > 1 else []) + ["seeds", f"train {shown}", f"test {shown}"]
  head += ["test R²"] if has_r2 else []
  head += [f"test {lvl}" for lvl in levels]
  head += ["PE–geometry RSA", "RSA at init"] if has_rsa else []
  head += [name for _, name in modularity]
  head += ["diverged"]
  sign = -1.0 if regression else 1.0
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for (sigma, lr), group in group_by_sigma(models).items():
    cells = [f"{sigma:g}"] + ([f"{lr:g}"] if len(lrs) > 1 else []) + [str(len(group))]
    cells += [_mean_sd(sign * m[f"train_{score}"] for m in group),
              _mean_sd(sign * m[f"test_{score}"] for m in group)]
    if has_r2:
      cells += [_mean_sd(m.get("test_r2") for m in group)]
    cells += [_mean_sd(sign * m[f"test_{score}_by_level"][lvl] for m in group) for lvl in levels]
    if has_rsa:
      cells += [_mean_sd(m.get("pe_rsa") for m in group),
                _mean_sd(m.get("pe_rsa_init") for m in group)]
    cells += [_mean_sd(m.get(k) for m in group) for k, _ in modularity]
    cells += [str(sum(m["diverged"] for m in group))]
    lines.append("| " + " | ".join(cells) + " |")
  return "\n".join(lines)
