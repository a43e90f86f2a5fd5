"""Per-model records (``summary.json``) and the per-σ table printed at the end of a run."""

from __future__ import annotations

import collections

import jax
import numpy as np

from learnpe_jax.seed_stats import mean_sd_text
from learnpe_jax.training import length_eval, sharding


def score_name(task) -> str:
  return "accuracy" if task.kind in ("classification", "sequence") else "neg_mse"


def eval_fields(task, split: str, result: dict, i: int) -> dict:
  """Flatten one model's eval result: ``{split}_loss``, ``{split}_accuracy``, and per level (the
  levels the split has examples of)."""
  name = score_name(task)
  out = {f"{split}_loss": float(result["loss"][i]), f"{split}_{name}": float(result["score"][i])}
  if task.kind == "regression" and task.target_variance:
    out[f"{split}_r2"] = 1.0 + float(result["score"][i]) / task.target_variance
  if len(task.level_names) > 1:
    present = set(np.unique(task.split(split)["level"]).tolist())
    by_level = {lvl: float(result["score_by_level"][i][j])
                for j, lvl in enumerate(task.level_names) if j in present}
    if by_level:
      out[f"{split}_{name}_by_level"] = by_level
  return out


def unseen_levels(models: list[dict], score: str) -> list[str]:
  """The test levels (``test_{score}_by_level``) that no model's training split has
  (``train_{score}_by_level``), in the task's level order; none when no training levels are
  recorded. For the length tasks: the lengths n > L the models never saw."""
  trained = set().union(*[(m.get(f"train_{score}_by_level") or {}) for m in models])
  test = next((m[f"test_{score}_by_level"] for m in models if m.get(f"test_{score}_by_level")), {})
  return [level for level in test if trained and level not in trained]


DRAWN_POSITIONS_KEY = 0  # the key of the drawn-position scores (``evaluate_all``)


def evaluate_all(trainer, params, splits) -> list[dict]:
  """Per model: the ``eval_fields`` of every split in ``splits``, merged (one device pull per
  split).

  A run trained with ``model.randomized_positions`` (Ruoss et al. 2023) is also scored at drawn
  positions on every split but "train": the same fields prefixed ``drawn_``
  (``drawn_test_accuracy_by_level``, …), each batch's positions drawn as training draws them
  (``Trainer.evaluate``'s ``draw_key`` = ``PRNGKey(DRAWN_POSITIONS_KEY)``, the same draw at every
  evaluation and for every model), which is how Ruoss et al.'s released code scores its models.
  The unprefixed fields stay at the task's own positions 0 … n − 1, the positions the studies'
  rules read."""
  rows = [{} for _ in range(trainer.axis.size)]
  for split in splits:
    result = sharding.to_host(trainer.evaluate(params, split))
    for i, row in enumerate(rows):
      row.update(eval_fields(trainer.task, split, result, i))
  if trainer.config.model.randomized_positions:
    key = jax.random.PRNGKey(DRAWN_POSITIONS_KEY)
    for split in (s for s in splits if s != "train"):
      result = sharding.to_host(trainer.evaluate(params, split, key))
      for i, row in enumerate(rows):
        fields = eval_fields(trainer.task, split, result, i)
        row.update({f"drawn_{k}": v for k, v in fields.items()})
  return rows


def run_summary(trainer, state, init_pe: list[dict], final_pe: list[dict], config) -> dict:
  """The content of ``summary.json``: one record per model (σ, seed, scores, PE metrics at init and
  at the end, and, for a task with ``length_eval`` sets, ``perplexity_by_length``:
  ``training/length_eval.py``), the task and PE. (``seed_stats.summarize`` is the mean ± sd over
  seeds.)"""
  task = trainer.task
  params = state["models"]["params"]
  scores = evaluate_all(trainer, params, ("train",) + task.eval_sets)
  if task.length_eval:
    for row, by_length in zip(scores, length_eval.perplexity_by_length(trainer, params),
                              strict=True):
      row["perplexity_by_length"] = by_length
  diverged = sharding.to_host(state["models"]["diverged_step"])
  models = []
  for i, rec in enumerate(trainer.axis.records):
    row = {"model": i, **rec}
    row.update(scores[i])
    row.update(final_pe[i])
    if "pe_rsa" in init_pe[i]:
      row["pe_rsa_init"] = init_pe[i]["pe_rsa"]
      row["pe_norm_init"] = init_pe[i]["pe_norm"]
      row["pe_sinusoid_similarity_init"] = init_pe[i]["pe_sinusoid_similarity"]
    if "pe_bias_rsa" in init_pe[i]:
      row["pe_bias_rsa_init"] = init_pe[i]["pe_bias_rsa"]
    row["diverged"] = bool(diverged[i] >= 0)
    row["diverged_step"] = int(diverged[i]) if diverged[i] >= 0 else None
    models.append(row)
  return {"task": task.name, "pe": config.model.pe.name, "num_steps": int(state["step"]),
          "eval_sets": list(task.eval_sets), "models": models}


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
  (score = −MSE is shown as MSE). Then every further eval set (e.g. the LST's ``human`` puzzles,
  overall and per level), PE–geometry RSA (final, at init), the similarity to the fixed sinusoid,
  the PE's bias–geometry RSA (``measures.bias_geometry``, for PEs with content-free logits),
  when the task has module labels, the PE modularity measures (``measures.modularity``) and, for
  a task with ``length_eval`` sets, the bits per token of each (— where the PE gives no score).
  """
  models = summary["models"]
  score = "accuracy" if "test_accuracy" in models[0] else "neg_mse"
  regression = score == "neg_mse"
  levels = list(models[0].get(f"test_{score}_by_level", {}))
  extra = [(name, list(models[0].get(f"{name}_{score}_by_level", {})))
           for name in summary.get("eval_sets", ["test"]) if name != "test"]
  has_sinusoid = "pe_sinusoid_similarity" in models[0]
  has_rsa = "pe_rsa" in models[0]
  has_bias_rsa = "pe_bias_rsa" in models[0]
  has_r2 = "test_r2" in models[0]
  modularity = [(k, name) for k, name in MODULARITY_COLUMNS if k in models[0]]
  lengths = [(name, length_eval.bits_name(models[0], name) or "bits")
             for name in models[0].get("perplexity_by_length", {})]
  lrs = {m["learning_rate"] for m in models}
  shown = "MSE" if regression else score
  head = ["σ"] + (["lr"] if len(lrs) > 1 else []) + ["seeds", f"train {shown}", f"test {shown}"]
  head += ["test R²"] if has_r2 else []
  head += [f"test {lvl}" for lvl in levels]
  for name, extra_levels in extra:
    head += [f"{name} {shown}"] + [f"{name} {lvl}" for lvl in extra_levels]
  head += ["PE–geometry RSA", "RSA at init"] if has_rsa else []
  head += ["similarity to sinusoid"] if has_sinusoid else []
  head += ["bias–geometry RSA", "bias RSA at init"] if has_bias_rsa else []
  head += [name for _, name in modularity]
  head += [f"{bits.replace('_', ' ')} {name}" for name, bits in lengths]
  head += ["diverged"]
  sign = -1.0 if regression else 1.0
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for (sigma, lr), group in group_by_sigma(models).items():
    cells = [f"{sigma:g}"] + ([f"{lr:g}"] if len(lrs) > 1 else []) + [str(len(group))]
    cells += [mean_sd_text(sign * m[f"train_{score}"] for m in group),
              mean_sd_text(sign * m[f"test_{score}"] for m in group)]
    if has_r2:
      cells += [mean_sd_text(m.get("test_r2") for m in group)]
    cells += [mean_sd_text(sign * m[f"test_{score}_by_level"][lvl] for m in group) for lvl in levels]
    for name, extra_levels in extra:
      cells += [mean_sd_text(sign * m[f"{name}_{score}"] for m in group)]
      cells += [mean_sd_text(sign * m[f"{name}_{score}_by_level"][lvl] for m in group)
                for lvl in extra_levels]
    if has_rsa:
      cells += [mean_sd_text(m.get("pe_rsa") for m in group),
                mean_sd_text(m.get("pe_rsa_init") for m in group)]
    if has_sinusoid:
      cells += [mean_sd_text(m.get("pe_sinusoid_similarity") for m in group)]
    if has_bias_rsa:
      cells += [mean_sd_text(m.get("pe_bias_rsa") for m in group),
                mean_sd_text(m.get("pe_bias_rsa_init") for m in group)]
    cells += [mean_sd_text(m.get(k) for m in group) for k, _ in modularity]
    cells += [mean_sd_text(m["perplexity_by_length"][name].get(bits) for m in group)
              for name, bits in lengths]
    cells += [str(sum(m["diverged"] for m in group))]
    lines.append("| " + " | ".join(cells) + " |")
  return "\n".join(lines)
