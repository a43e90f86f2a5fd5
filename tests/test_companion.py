"""experiments.companion: the like-for-like rules on known numbers, the tables from runs, its jobs."""

import dataclasses
import json
import shutil
import sys

import pytest

from experiments import companion


def _change(delta, p=0.001, movement=0.5):
  rsa = {"init": [0.0] * 4, "final": [delta] * 4, "delta": [delta] * 4, "delta_mean": delta}
  return {"rsa_cosine": rsa, "rsa_euclidean": rsa, "rsa_no_readout": rsa, "partial_rsa": rsa,
          "mantel_p": {"init": [0.5] * 4, "final": [p] * 4}, "movement": [movement] * 4}


def _model(pe, seed, train, test, human, data="companion", variant=companion.CURRENT,
           change=None, lr=1e-4):
  return {"pe": pe, "pe_init_scale": pe, "learning_rate": lr, "seed": seed, "data": data,
          "variant": variant, "train_accuracy": train, "test_accuracy": test,
          "human_accuracy": human,
          "test_accuracy_by_level": {lvl: test for lvl in companion.LEVELS},
          "human_accuracy_by_level": {lvl: human for lvl in companion.LEVELS},
          "pe_rsa": 0.0, "pe_rsa_init": 0.0, "pe_sinusoid_similarity": 0.0,
          "pe_sinusoid_similarity_init": 0.0, "pe_change": change}


def _companion_rows(seeds=3, shift=0.0):
  """Every row at the companion's own means (test shifted by ``shift``)."""
  out = []
  for pe, ref in companion.COMPANION.items():
    if pe in (1.2, 1.8):
      continue
    out += [_model(pe, s, ref[0], ref[1] + shift, ref[4]) for s in range(seeds)]
  return out


def test_side_by_side_reproduces_at_the_companions_numbers():
  verdict = companion.side_by_side(companion.per_condition(_companion_rows()))
  assert verdict["verdict"] == "reproduces" and verdict["rows_within_on_both"] == 7


def test_side_by_side_needs_three_seeds_and_counts_rows():
  assert companion.side_by_side(
      companion.per_condition(_companion_rows(seeds=2)))["verdict"] == "incomplete"
  # Test accuracy 0.1 below everywhere: outside every test band but the sinusoid's and σ 1.5/2's.
  verdict = companion.side_by_side(companion.per_condition(_companion_rows(shift=-0.1)))
  assert verdict["verdict"] == "reproduces partly"
  assert {k for k, v in verdict["rows_within_2sd"].items() if v["test"]} == {
      "2-D sinusoidal", "1.5", "2.0"}


def test_other_data_is_not_compared_with_the_companion():
  verdict = companion.side_by_side(companion.per_condition(
      [_model(0.2, s, 1.0, 0.987, 0.954, data="pluck") for s in range(3)]))
  assert verdict["rows_within_2sd"] == {} and verdict["verdict"] == "incomplete"


def test_variant_matters_only_beyond_two_companion_sd():
  same = [_model(0.2, 0, 1, 0.98, 0.95), _model(2.0, 0, 1, 0.80, 0.40),
          _model(0.2, 0, 1, 0.975, 0.93, variant=companion.TOKEN_GELU),  # within 2 × 0.009/0.041
          _model(2.0, 0, 1, 0.70, 0.30, variant=companion.TOKEN_GELU)]   # within 2 × 0.090/0.156
  assert companion.variant_verdict(same)["verdict"] == "does not change the result at this scale"
  flax = [dict(m, variant=companion.FLAX) for m in same[2:]]
  assert companion.variant_verdict(same[:2] + flax, companion.FLAX)["verdict"] == (
      "does not change the result at this scale")
  same[2] = _model(0.2, 0, 1, 0.95, 0.95, variant=companion.TOKEN_GELU)  # test 0.03 > 0.018
  got = companion.variant_verdict(same)
  assert got["verdict"] == "matters"
  assert got["by_sigma"]["0.2"]["beyond_2_companion_sd"] == {"test": True, "human": False}
  assert companion.variant_verdict(same[:2])["verdict"] == "incomplete"


def test_claim1_rule_is_paired_and_needs_two_of_three_seeds():
  assert companion.grid_like(_model(0.1, 0, 1, 1, 1, change=_change(0.3)))
  assert not companion.grid_like(_model(0.1, 0, 1, 1, 1, change=_change(0.2)))
  assert not companion.grid_like(_model(0.1, 0, 1, 1, 1, change=_change(0.3, p=0.05)))
  assert companion.grid_like(_model(0.1, 0, 1, 1, 1)) is None
  small = [_model(0.1, s, 1, 0.98, 0.95, change=_change(d)) for s, d in enumerate((0.3, 0.3, 0))]
  large = [_model(2.0, s, 1, 0.80, 0.40, change=_change(0.3 if s == 0 else 0.0)) for s in range(3)]
  claims = companion.claim_verdicts(companion.per_condition(small + large))
  assert claims["claim1"] == "holds" and claims["claim1_grid_like_sigma"] == [0.1]
  assert claims["claim2"] == "holds"  # every σ fits, human falls 0.95 → 0.40
  none = [dict(m, pe_change=_change(0.0)) for m in small + large]
  assert companion.claim_verdicts(companion.per_condition(none))["claim1"] == (
      "does not hold at this scale")
  both = [dict(m, pe_change=_change(0.3)) for m in small + large]
  assert companion.claim_verdicts(companion.per_condition(both))["claim1"] == "holds partly"


def test_mechanism_rule_reads_movement_against_delta_rsa():
  models = [_model(s, 0, 1, 0.9, 0.9, variant="mechanism", lr=lr,
                   change=_change(0.1 * i, movement=0.01 * (i + 1)))
            for i, (s, lr) in enumerate((s, lr) for s in (0.01, 0.1, 1.0) for lr in (1e-4, 1e-3))]
  got = companion.mechanism(models)
  assert got["verdict"] == "holds" and got["spearman_rho"] == pytest.approx(1.0)
  assert len(got["cells"]) == 6
  flat = [dict(m, pe_change=_change(0.1, movement=0.01 * i)) for i, m in enumerate(models)]
  assert companion.mechanism(flat)["verdict"] == "does not hold"


def test_tables_from_finished_pieces(tmp_path):
  """A finished piece's summary and metrics become the records, curves, tables and figure; a
  checkout without the run folder rebuilds the same tables from the kept records."""
  job = companion.JOBS[0]
  workdir = tmp_path / "runs" / job.name
  workdir.mkdir(parents=True)
  models = []
  for i, s in enumerate((0.2, 2.0)):
    m = _model(s, 0, 1.0, 0.9, 0.9, change=_change(0.3 if s == 0.2 else 0.0))
    for key in ("pe", "data", "variant"):
      del m[key]
    models.append(dict(m, model=i))
  (workdir / "summary.json").write_text(json.dumps(
      {"task": "lst", "pe": "learned", "num_steps": 1600, "eval_sets": ["test", "human"],
       "models": models}))
  (workdir / "metrics.jsonl").write_text("".join(
      json.dumps(dict(m, step=step)) + "\n" for step in (0, 1600) for m in models))
  (workdir / "config.json").write_text("{}")
  # 20 min of 5-min log steps, 2 h of nothing (a resume in a later session), 20 min more.
  stamps = [f"07:{m:02d}" for m in range(0, 21, 5)] + [f"09:{m:02d}" for m in range(20, 41, 5)]
  (workdir / "train.log").write_text("".join(f"I1201 {t}:00.000 x] line\n" for t in stamps))
  study = dataclasses.replace(companion.STUDY, results_dir=str(tmp_path / "results"))
  results = tmp_path / "results" / "companion"
  text = companion.tabulate(str(tmp_path / "runs"), study)
  assert "| learned σ = 0.2 | 1 | 1.000 / 1.000 | 0.900 / 0.987 ± 0.009 |" in text
  assert "| learned σ = 0.2 | 1 | 0.300 | +0.30 / +0.30 / +0.30 / +0.30 |" in text
  assert f"`{job.name}`: 40 min" in text and "**Side by side:** incomplete" in text
  assert (results / "figure.png").exists()
  kept = [json.loads(l) for l in (results / "records.jsonl").read_text().splitlines()]
  assert [(r["job"], r["pe_init_scale"], r["wall_s"]) for r in kept] == [
      (job.name, 0.2, 2400.0), (job.name, 2.0, 2400.0)]
  assert len((results / "curves.jsonl").read_text().splitlines()) == 4
  shutil.rmtree(tmp_path / "runs")
  assert companion.tabulate(str(tmp_path / "runs"), study) == text
  table = json.loads((results / "table.json").read_text())
  # σ = 0.2: test 0.9 < 0.987 − 2 × 0.009; σ = 2: human 0.9 > 0.389 + 2 × 0.156.
  rows = table["verdict"]["side_by_side"]["rows_within_2sd"]
  assert rows["0.2"]["test"] is False and rows["2.0"]["human"] is False


@pytest.mark.parametrize("argv", [["--jobs=nope"]])
def test_unknown_piece_is_refused(argv, capsys):
  with pytest.raises(SystemExit):
    companion.main(argv)
  assert "unknown job(s) ['nope']" in capsys.readouterr().err


def test_print_gives_one_resumable_command_per_piece(capsys):
  assert companion.main(["--print", "--jobs=cmp_sinusoid_s01,variant_s0", "--root=/r"]) == 0
  lines = capsys.readouterr().out.splitlines()
  main = f"{sys.executable} -m learnpe_jax.main "
  assert len(lines) == 2 and all(line.startswith(main) for line in lines)
  assert "--workdir=/r/variant_s0" in lines[0] and "--config.model.readout=token" in lines[0]
  assert "--config.model.mlp_final_activation=gelu" in lines[0]
  assert ("--config=configs/grid2d.py:companion,pe=sinusoidal_nd --workdir=/r/cmp_sinusoid_s01"
          in lines[1]) and "--config.data.generator=companion" in lines[1]


def test_every_piece_is_a_valid_config():
  """No piece fails hours into the run: each one's config passes validation."""
  from learnpe_jax.training import config_validation
  for job in companion.JOBS:
    config_validation.validate(job.build_config())
