"""experiments.benchmark: its rows per task, its jobs' configs, the init-scale verdict rule, and the
tables it builds from finished runs."""

import dataclasses
import json
import os

import pytest

from experiments import benchmark
from experiments.framework import records, stats
from learnpe_jax.training import config_validation
from learnpe_jax.pe.registry import REGISTRY, get_spec


def test_the_lst_takes_every_pe_once_with_the_reference_rows():
  rows = benchmark.rows("lst")
  pes = [r.name for r in rows if r.name in REGISTRY]
  assert pes == list(REGISTRY)  # every PE of the catalogue, in its order, once
  baselines = {r.name: r.job.build_config().model.kind for r in rows if r.name in benchmark.BASELINES}
  assert baselines == {name: kind for name, (kind, _) in benchmark.BASELINES.items()}


@pytest.mark.parametrize("task", list(benchmark.BUDGETS))
def test_coinciding_pes_are_named_not_trained(task):
  names = {r.name for r in benchmark.rows(task)}
  assert set(benchmark.COINCIDE[task]) <= names
  for row in benchmark.rows(task):
    if row.name in benchmark.COINCIDE[task]:
      assert row.job is None and row.equals[0] in names
      assert benchmark.COINCIDE[task].get(row.equals[0]) is None  # equals a PE that is trained
    else:
      assert row.job is not None and row.job.name == f"{task}/{row.name}"


@pytest.mark.parametrize("task", list(benchmark.BUDGETS))
def test_every_job_config_takes_its_overrides_and_its_sigmas(task):
  for row in benchmark.rows(task):
    if row.job is None:
      continue
    config = row.job.build_config()  # an unknown field or a wrong type raises here
    config_validation.validate(config)  # the checks a job runs before it loads data
    assert config.model.pe.name == row.pe
    expected = benchmark.SIGMAS if get_spec(row.pe).learnable else (1.0,)
    assert tuple(config.sweep.pe_init_scale) == expected
    assert tuple(config.sweep.seeds) == benchmark.SEEDS
    if task not in ("lst",) + benchmark.LENGTH_TASKS:  # positions unknown, except oracle rows
      assert config.data.coords_known == row.oracle == (get_spec(row.pe).needs == "coords")
      assert not get_spec(row.pe).module.needs_grid


@pytest.mark.e2e
@pytest.mark.parametrize("task", ["netsim", "brain"])
def test_every_job_passes_the_checks_that_need_its_task(task, data_dir):
  """What a job checks after loading its data (coordinates known, a grid, sizes), for every row of
  the tasks whose positions the model is not told: a row that fails here would fail hours into a
  benchmark run."""
  from learnpe_jax.tasks.registry import load_task
  tasks = {}
  for row in benchmark.rows(task):
    if row.job is None:
      continue  # a coinciding PE: not trained
    config = row.job.build_config()
    config.data.data_dir = data_dir
    key = config.data.coords_known
    if key not in tasks:
      tasks[key] = load_task(config)
    config_validation.validate_with_task(config, tasks[key])
  assert set(tasks) == {False, True}  # oracle rows and index-based rows


def _over_seeds(values):
  return stats.over_seeds(values)


def test_the_verdict_rule_on_known_values():
  small, large = _over_seeds([0.90, 0.91, 0.92]), _over_seeds([0.60, 0.62, 0.61])
  assert benchmark._verdict(small, large)[0] == "small σ better"
  assert benchmark._verdict(large, small)[0] == "large σ better"
  noisy = _over_seeds([0.5, 0.9, 0.7])
  verdict, p = benchmark._verdict(noisy, _over_seeds([0.6, 0.8, 0.65]))
  assert verdict == "no difference detected" and p >= 0.05
  assert stats.welch_two_sided(_over_seeds([0.9]), large) == 1.0  # one seed: no test


def test_geometry_is_judged_on_the_change_from_each_models_own_init():
  """A PE that starts aligned with the geometry and loses it at small σ (Fourier features) is not
  'small σ better' for staying higher than the large σ: the paired change decides."""
  def rec(sigma, end, start):
    models = [{"pe_rsa": e, "pe_rsa_init": s} for e, s in zip(end, start, strict=True)]
    return {"row": "fourier_learned", "sigma": sigma, "oracle": False, "mechanism": "add",
            "score": _over_seeds([0.8, 0.8, 0.8]), "pe_rsa": _over_seeds(end),
            "pe_rsa_change": stats.paired_change(models, "pe_rsa", "pe_rsa_init")}
  small = rec(0.1, [0.70, 0.72, 0.71], [0.93, 0.94, 0.93])   # high at init, falls
  large = rec(2.0, [0.30, 0.31, 0.29], [0.10, 0.12, 0.11])   # low at init, rises
  (verdict,) = benchmark.init_scale_verdicts([small, large])
  assert verdict["geometry_judged_on"] == "pe_rsa_change"
  assert verdict["geometry_verdict"] == "large σ better"
  assert verdict["geometry_raw_verdict"] == "small σ better"


def test_learned_coordinates_are_judged_on_their_coords_r2():
  """A PE with neither vectors nor content-free logits (learned coordinates into RoPE) gets its
  geometry verdict, and its ranking column, from ``coords_r2``."""
  records = [{"row": "learned_coords_rope", "pe": "learned_coords_rope", "sigma": sigma,
              "oracle": False, "learnable": True, "mechanism": "learned coords → inner PE",
              "minutes": 3, "cores": 1, "levels": {},
              "score": _over_seeds([0.8, 0.81, 0.79]), "train": _over_seeds([1.0, 1.0, 1.0]),
              "coords_r2": _over_seeds(r2)}
             for sigma, r2 in ((0.1, [0.90, 0.92, 0.91]), (2.0, [0.30, 0.35, 0.32]))]
  (verdict,) = benchmark.init_scale_verdicts(records)
  assert verdict["geometry"] == "coords_r2"
  assert verdict["geometry_verdict"] == "small σ better"
  assert verdict["score_verdict"] == "no difference detected"
  table = benchmark.ranking_table("netsim", records, [])
  assert "| coords R² | min |" in table and "| 0.91 [" in table


def _summary(pe, scores, rsa=None):
  models = []
  for sigma, values in scores.items():
    for seed, v in enumerate(values):
      m = {"model": len(models), "pe_init_scale": sigma, "seed": seed, "train_accuracy": 1.0, "test_accuracy": v,
           "test_accuracy_by_level": {"binary": v, "ternary": v, "quaternary": v}}
      if rsa is not None:
        m["pe_rsa"] = rsa[sigma][seed]
      models.append(m)
  return {"task": "lst", "pe": pe, "num_steps": 10, "eval_sets": ["test"], "models": models}


def test_tables_from_finished_runs(tmp_path, monkeypatch):
  study = dataclasses.replace(benchmark.STUDY, results_dir=str(tmp_path))
  monkeypatch.setattr(benchmark, "STUDY", study)
  monkeypatch.setattr(benchmark, "DOC", str(tmp_path / "benchmark.md"))
  root = tmp_path / "runs"
  runs = {"learned": _summary("learned", {0.1: [0.95, 0.96, 0.97], 2.0: [0.60, 0.62, 0.61]},
                              rsa={0.1: [0.4, 0.5, 0.45], 2.0: [0.0, 0.01, -0.01]}),
          "rope": _summary("rope", {1.0: [0.80, 0.81, 0.79]})}
  for name, summary in runs.items():
    (root / "lst" / name).mkdir(parents=True)
    (root / "lst" / name / "summary.json").write_text(json.dumps(summary))
    (root / "lst" / name / "metrics.jsonl").write_text("")
    (root / "lst" / name / "config.json").write_text("{}")
  # rope's time as train.py writes it; learned's from the log of a run made before it did
  (root / "lst" / "rope" / "timing.json").write_text(json.dumps({"wall_s": 170.0, "cores": 1}))
  (root / "lst" / "learned" / "train.log").write_text(
      "I1202 01:00:00.0 1 train.py:1] start\nI1202 01:03:00.0 1 train.py:1] end\n")
  (root / "lst" / "alibi").mkdir()
  (root / "lst" / "alibi" / "train.log").write_text("error: model.pe: cannot serve this\n")
  text = benchmark.tabulate(["lst"], str(root))
  ranking = text[text.index("### Ranking"):text.index("### Init scale")]
  order = [line.split(" | ")[1] for line in ranking.splitlines() if line.startswith("| 1")
           or line.startswith("| 2") or line.startswith("| 3")]
  assert order == ["`learned`", "`rope`", "`learned`"]  # best mean test accuracy first
  assert "coords R²" not in ranking  # the column only where a row has learned coordinates
  assert "identical by construction to `sinusoidal_nd`" in ranking
  assert "- `alibi`: model.pe: cannot serve this" in text
  assert "| `learned` | add | 0.960 [" in text and "small σ better" in text
  assert "Score verdicts: small σ better: 1." in text
  assert "Wall time: 6 min for the 2 jobs above" in text
  kept = [json.loads(l) for l in (tmp_path / "benchmark" / "records.jsonl").read_text().splitlines()]
  assert len(kept) == 9 and {r["job"] for r in kept} == {"lst/learned", "lst/rope"}
  assert {r["wall_s"] for r in kept if r["job"] == "lst/learned"} == {180.0}
  assert "| 3 (1 core) |" in ranking and "| 3 |" in ranking  # rope's timing gives its cores
  assert (tmp_path / "benchmark" / "lst" / "init_scale.png").exists()
  assert (tmp_path / "benchmark.md").read_text() == text
  assert "### What the results say" not in text
  (tmp_path / "benchmark" / "lst" / benchmark.FINDINGS).write_text("The small σ wins here.\n")
  assert "### What the results say\n\nThe small σ wins here.\n" in benchmark.tabulate(
      ["lst"], str(root))
  # A fresh checkout (no run folder) ranks the same from the kept records, and does not retrain.
  done = records.kept_or_finished(study.dir)
  rows = {r.name: r.job for r in benchmark.rows("lst") if r.job is not None}
  assert done(rows["learned"], str(tmp_path / "gone")) and not done(rows["alibi"], str(root))
  retrain = records.kept_or_finished(study.dir, retrain=True)  # --retrain: only what ran there
  assert not retrain(rows["learned"], str(tmp_path / "gone")) and retrain(rows["learned"], str(root))
  fresh = benchmark.tabulate(["lst"], str(tmp_path / "gone"))
  assert ranking.split("\n\n")[1] in fresh  # the ranking table itself


def test_print_gives_one_resumable_command_per_job(capsys):
  assert benchmark.main(["--task=lst", "--names=learned,rope", "--root=gs://b/bench",
                         "--print"]) == 0
  lines = capsys.readouterr().out.splitlines()
  assert len(lines) == 2 and "--workdir=gs://b/bench/lst/learned" in lines[0]
  assert "'--config.sweep.pe_init_scale=(0.1,2.0)'" in lines[0]
  assert "configs/grid2d.py:pe=rope" in lines[1] and "pe_init_scale=(1.0,)" in lines[1]
  with pytest.raises(SystemExit):
    benchmark.main(["--task=lst", "--names=time_continuous", "--print"])  # coinciding: no job


def _length_rec(row, sigma, unseen, seen=1.0, change=(0.1, 0.1, 0.1)):
  """A length task's row record (``row_records``) with a geometry change per seed."""
  return {"row": row, "pe": row, "sigma": sigma, "oracle": False, "learnable": True,
          "mechanism": "add", "score": _over_seeds(unseen), "seen": _over_seeds([seen] * 3),
          "per_seed": [{"seed": i, "seen": seen, "unseen": u} for i, u in enumerate(unseen)],
          "pe_rsa": _over_seeds(change), "pe_rsa_change": _over_seeds(change)}


def test_length_init_scale_verdicts_under_both_rules():
  """On a length task the init-scale verdict stands beside its rule-v2 verdict: a tie at 0 is
  uninformative, a σ that does not fit gets no verdict, a clear difference is judged with its
  detectable difference; the other tasks keep their one verdict."""
  tie = [_length_rec("learned", 0.1, [0, 0, 0]), _length_rec("learned", 2.0, [0, 0, 0])]
  unfit = [_length_rec("t5_bias", 0.1, [0.5, 0.6, 0.55], seen=0.9),
           _length_rec("t5_bias", 2.0, [0.1, 0.12, 0.11], change=(0.0, 0.01, 0.02))]
  clear = [_length_rec("xl_rel", 0.1, [0.5, 0.6, 0.55]),
           _length_rec("xl_rel", 2.0, [0.1, 0.12, 0.11])]
  got = {v["row"]: v for v in benchmark.init_scale_verdicts(tie + unfit + clear, "copy")}
  assert got["learned"]["score_verdict"] == "no difference detected"
  assert got["learned"]["score_verdict_v2"] == "uninformative: tie at 0"
  assert got["t5_bias"]["score_verdict"] == "small σ better"
  assert got["t5_bias"]["score_verdict_v2"] == got["t5_bias"]["geometry_verdict_v2"] == \
      "did not fit: no verdict" and got["t5_bias"]["not_fitting"] == ["σ=0.1"]
  assert got["xl_rel"]["score_verdict_v2"] == "small σ better"
  assert got["xl_rel"]["score_detectable"] > 0
  table = benchmark.verdict_table(list(got.values()), "copy")
  assert "| score verdict v1 (p) | score verdict v2 [detectable] |" in table
  assert "did not fit: no verdict (σ=0.1 seen < 0.95)" in table
  assert "Score verdicts (rule v2): did not fit: no verdict: 1, small σ better: 1, " \
         "uninformative: tie at 0: 1." in table
  other = benchmark.init_scale_verdicts(tie, "lst")[0]
  assert "score_verdict_v2" not in other
  assert "v2" not in benchmark.verdict_table([other], "lst")


def _kept_models():
  return records.read(benchmark.STUDY.dir)


@pytest.mark.parametrize("task", benchmark.LENGTH_TASKS)
def test_length_table_json_rebuilds_from_the_kept_records(task):
  """The committed ``table.json`` of a length task is what its rows in ``records.jsonl`` give."""
  with open(os.path.join(benchmark.STUDY.dir, task, "table.json")) as f:
    committed = json.load(f)
  assert json.loads(json.dumps(benchmark.task_table(task, _kept_models()))) == committed


def test_the_side_by_side_and_the_length_doc_rebuild_from_the_kept_records():
  """``length_side_by_side.json`` and the part of docs/length_generalisation.md that --tabulate
  writes are what ``records.jsonl`` gives under both rules."""
  models = _kept_models()
  with open(os.path.join(benchmark.STUDY.dir, benchmark.SIDE_BY_SIDE)) as f:
    committed = json.load(f)
  assert json.loads(json.dumps(benchmark.side_by_side(models))) == committed
  assert committed["v1"]["verdict"] == "agrees" and committed["v2"]["verdict"] == "inconclusive"
  with open(benchmark.LENGTH_DOC) as f:
    doc = f.read()
  start, end = benchmark.LENGTH_MARKERS
  assert doc[doc.index(start) + len(start):doc.index(end)] == benchmark.length_summary(models)
