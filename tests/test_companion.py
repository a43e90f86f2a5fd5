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


def _shifted(shifts: dict, seeds=3, column="test"):
  """Every row at the companion's means, the rows in ``shifts`` moved by that much on ``column``."""
  out = []
  for pe, ref in companion.COMPANION.items():
    if pe in (1.2, 1.8):
      continue
    d = shifts.get(pe, 0.0)
    test, human = ref[1] + d * (column == "test"), ref[4] + d * (column == "human")
    out += [_model(pe, s, ref[0], test, human) for s in range(seeds)]
  return out


def _sbs(models):
  return companion.side_by_side(companion.per_condition(models))


def test_side_by_side_reproduces_at_the_companions_numbers():
  verdict = _sbs(_companion_rows())
  assert verdict["verdict"] == "reproduces" and verdict["v2"]["counts"]["agrees"] == 7
  assert verdict["v1"]["rows_within_on_both"] == 7


def test_a_mean_over_seeds_is_judged_at_the_spread_of_a_mean():
  """σ 0.1 test 0.015 below the companion: inside the single-model band (2 × 0.010) that v1 used,
  outside the band of a 3-seed mean against a 15-seed one (2 × 0.010 × √(1/3 + 1/15) = 0.0126)."""
  verdict = _sbs(_shifted({0.1: -0.015}))
  assert verdict["v1"]["rows_within_2sd"]["0.1"]["test"] is True
  row = verdict["v2"]["rows"]["0.1"]
  assert row["test"]["outcome"] == "differs" and row["outcome"] == "differs"
  assert row["test"]["se"] == pytest.approx(0.010 * (1 / 3 + 1 / 15) ** 0.5)
  assert row["test"]["detectable"] == pytest.approx(2.8016 * row["test"]["se"], rel=1e-4)
  # At five seeds the band narrows further: 0.011 below still differs, 0.009 agrees.
  assert _sbs(_shifted({0.1: -0.011}, seeds=5))["v2"]["rows"]["0.1"]["outcome"] == "differs"
  assert _sbs(_shifted({0.1: -0.009}, seeds=5))["v2"]["rows"]["0.1"]["outcome"] == "agrees"


def test_six_rows_reproduce_five_do_not():
  one = _sbs(_shifted({0.1: -0.015}))
  assert one["v2"]["counts"] == {"agrees": 6, "differs": 1, "uninformative": 0}
  assert one["verdict"] == "reproduces"
  two = _sbs(_shifted({0.1: -0.015, 0.5: -0.015}))
  assert two["v2"]["counts"]["agrees"] == 5 and two["verdict"] == "reproduces partly"
  assert two["v1"]["verdict"] == "reproduces"  # the single-model band lets both through


def test_a_band_from_chance_to_perfect_is_uninformative():
  """σ 1.5 human: 0.617 ± 2 × 0.192 × 0.632 = [0.374, 0.860], wider than half of 0.25 … 1, so
  any human accuracy 'agrees' under v1; under v2 the cell counts for nothing, and a row with no
  informative cell does not count towards 'reproduces'."""
  far = _sbs(_shifted({1.5: -0.3}, column="human"))
  cell = far["v2"]["rows"]["1.5"]["human"]
  assert cell["outcome"] == "uninformative" and far["v1"]["rows_within_2sd"]["1.5"]["human"]
  assert far["v2"]["rows"]["1.5"]["outcome"] == "agrees"  # its test cell is informative
  assert far["v2_strict"]["rows"]["1.5"]["outcome"] == "uninformative"
  cells = {"test": ([0.9] * 3, 0.6, 0.3), "human": ([0.9] * 3, 0.6, 0.3)}
  from experiments.rules import companion as rules_companion
  row = rules_companion.side_by_side({"x": cells})["rows"]["x"]
  assert row["outcome"] == "uninformative"


def test_other_data_is_not_compared_with_the_companion():
  verdict = _sbs([_model(0.2, s, 1.0, 0.987, 0.954, data="pluck") for s in range(3)])
  assert verdict["v2"]["rows"] == {} and verdict["verdict"] == "incomplete"


def test_dropout_explains_the_sinusoid_only_when_it_moves_the_row_into_the_band():
  ref = companion.COMPANION["2-D sinusoidal"]
  low = [_model("2-D sinusoidal", s, 1, ref[1] - 0.12, ref[4] - 0.25) for s in range(5)]
  with_dropout = [_model("2-D sinusoidal", s, ref[0], ref[1], ref[4],
                         variant=companion.PE_DROPOUT) for s in range(5)]
  rows = [m for m in _companion_rows() if m["pe"] != "2-D sinusoidal"]
  got = _sbs(rows + low + with_dropout)
  assert got["sinusoid_dropout"]["verdict"] == "explains"
  assert got["v2"]["verdict"] == "reproduces"  # 6 of 7, the sinusoid differs
  assert got["v2_with_dropout_row"]["counts"]["agrees"] == 7
  assert _sbs(rows + low[:3] + with_dropout)["sinusoid_dropout"]["verdict"] == "incomplete"
  same = [dict(m, variant=companion.PE_DROPOUT) for m in low]
  assert _sbs(rows + low + same)["sinusoid_dropout"]["verdict"] == "does not explain"


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


def _pe_lr_sweep(delta_of):
  """The mechanism sweep's lr 3e-4 models (scale 1) and PE-lr pieces, 3 seeds per cell, with
  movement = 0.02 · scale^¼ / σ (it grows with the PE's steps and shrinks with ‖P⁰‖ ∝ σ) and
  ΔRSA = ``delta_of(σ, scale, seed)``."""
  models = []
  for sigma in companion.PE_LR_SIGMAS:
    for scale in companion.PE_LR_SCALES:
      for seed in range(3):
        variant = "mechanism" if scale == 1.0 else "pe_lr"
        m = _model(sigma, seed, 1, 0.9, 0.9, variant=variant, lr=3e-4,
                   change=_change(delta_of(sigma, scale, seed),
                                  movement=0.02 * scale ** 0.25 / sigma * (1 + 0.01 * seed)))
        models.append(dict(m, pe_lr_scale=scale))
  return models


def test_mechanism_within_sigma_fails_when_delta_rsa_follows_sigma_alone():
  """σ-confounded data: ΔRSA is a function of σ (and noise), movement ∝ 1/σ. The pooled v1 rule
  says 'holds'; the within-σ rule must not."""
  import numpy as np
  noise = np.random.default_rng(0).normal(0, 0.005, 200)
  confounded = _pe_lr_sweep(lambda s, k, seed: 0.03 / s + noise[hash((s, k, seed)) % 200])
  got = companion.mechanism(confounded)
  assert got["pe_lr"]["pooled_v1"]["verdict"] == "holds"
  assert got["pe_lr"]["v2"]["verdict"] == "does not hold within σ"
  driven = _pe_lr_sweep(lambda s, k, seed: 0.05 * np.log10(k) + 0.01 / s)
  got = companion.mechanism(driven)["pe_lr"]["v2"]
  assert got["verdict"] == "holds within σ" and got["mean_rho"] == pytest.approx(1.0)
  assert got["p"] < 0.01


def _converse_cells(delta_of):
  """PE-lr cells (σ, scale) with block-0 displacement 0.02·σ^½·scale^½ (it grows with the PE's
  steps and overlaps across σ) and ΔRSA = ``delta_of(σ, displacement)``."""
  cells = []
  for sigma in companion.PE_LR_SIGMAS:
    for scale in companion.PE_LR_SCALES:
      d = 0.02 * sigma ** 0.5 * scale ** 0.5
      cells.append({"cell": (sigma, scale), "displacement_block0": d,
                    "delta_rsa_block0": delta_of(sigma, d)})
  return cells


def test_mechanism_converse_tells_distance_from_distance_relative_to_init():
  """ΔRSA a function of the distance moved alone: no σ effect; a function of distance / σ (what
  a relative movement measures): σ matters, smaller σ higher at matched displacement."""
  import numpy as np
  from experiments.rules import companion as rules_companion
  noise = iter(np.random.default_rng(1).normal(0, 0.002, 100))
  absolute = rules_companion.mechanism_converse(
      _converse_cells(lambda s, d: np.log(d) + next(noise)))
  assert absolute["verdict"] != "σ matters at matched displacement"
  assert absolute["p"] >= 0.05
  relative = rules_companion.mechanism_converse(_converse_cells(lambda s, d: np.log(d / s)))
  assert relative["verdict"] == "σ matters at matched displacement" and relative["rho"] < 0
  assert relative["pairs"] and relative["pairs_small_sigma_higher"] == len(relative["pairs"])
  assert 0.5 < relative["detectable_rho"] < 1


def test_claim1_v2_needs_a_majority_of_seeds_and_says_fragile_when_variants_disagree():
  from experiments.rules import companion as rules_companion
  grid = lambda d0, mean: {**_change(mean), "rsa_cosine": {"delta": [d0, 0, 0, 0],
                                                           "delta_mean": mean},
                           "mantel_p": {"init": [0.5] * 4, "final": [0.001] * 4}}
  # σ 0.01: 2 of 5 seeds grid-like on the mean of blocks (v1's '≥ 2 of ≥ 3' says yes).
  small = [dict(_model(0.01, s, 1, 1, 1), pe_change=grid(0.4, 0.3 if s < 2 else 0.0))
           for s in range(5)]
  large = [dict(_model(2.0, s, 1, 1, 1), pe_change=grid(0.0, 0.0)) for s in range(3)]
  by_sigma = {0.01: small, 2.0: large}
  assert rules_companion.claim1(by_sigma, majority=False)["verdict"] == "holds"
  assert rules_companion.claim1(by_sigma)["verdict"] == "does not hold"
  # Block 0 moved in every seed: the block-0 variants say 'holds', the primary 'does not hold'.
  got = rules_companion.claim1_sensitivity(by_sigma)
  assert got["primary"]["verdict"] == "does not hold" and got["verdict"] == "fragile"
  assert {t["verdict"] for t in got["variants"]
          if t["block"] == 0 and t["measure"] == "rsa_cosine"} == {"holds"}


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
  assert f"`{job.name}`: 40 min" in text and "**Side by side (rule v2):** incomplete" in text
  assert (results / "figure.png").exists()
  kept = [json.loads(l) for l in (results / "records.jsonl").read_text().splitlines()]
  assert [(r["job"], r["pe_init_scale"], r["wall_s"]) for r in kept] == [
      (job.name, 0.2, 2400.0), (job.name, 2.0, 2400.0)]
  assert len((results / "curves.jsonl").read_text().splitlines()) == 4
  shutil.rmtree(tmp_path / "runs")
  assert companion.tabulate(str(tmp_path / "runs"), study) == text
  table = json.loads((results / "table.json").read_text())
  # σ = 0.2: test 0.9 < 0.987 − 2 × 0.009; σ = 2: human 0.9 > 0.389 + 2 × 0.156.
  rows = table["verdict"]["side_by_side"]["v1"]["rows_within_2sd"]
  assert rows["0.2"]["test"] is False and rows["2.0"]["human"] is False


@pytest.mark.e2e
def test_kept_tables_rebuild_from_the_kept_records(tmp_path):
  """table.json of the study is a function of its records.jsonl and curves.jsonl: rebuilt in a
  temporary results folder from copies of them, it equals the committed one."""
  kept = companion.STUDY.dir
  results = tmp_path / "results" / "companion"
  results.mkdir(parents=True)
  for name in ("records.jsonl", "curves.jsonl", "findings.md"):
    shutil.copy(f"{kept}/{name}", results / name)
  study = dataclasses.replace(companion.STUDY, results_dir=str(tmp_path / "results"))
  companion.tabulate(str(tmp_path / "no_runs"), study)
  rebuilt = json.loads((results / "table.json").read_text())
  committed = json.loads(open(f"{kept}/table.json").read())
  assert rebuilt == committed


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


def test_claim2_v2_needs_the_fall_beyond_the_seeds_spread():
  """Means 0.15 apart pass v1's '> 0.1'; with seeds spread ±0.2 the fall is not beyond the margin
  and v2 says 'holds partly'; a tight spread holds."""
  from experiments.rules import companion as rules_companion
  wide = rules_companion.claim2([0.95, 0.55, 0.95], [0.6, 0.7, 0.7], fits=True)
  assert wide["drop"] > 0.1 and wide["verdict"] == "holds partly"
  tight = rules_companion.claim2([0.95, 0.96, 0.97], [0.6, 0.61, 0.62], fits=True)
  assert tight["verdict"] == "holds" and tight["p"] < 0.05
  assert tight["detectable_drop"] == pytest.approx(0.1 + 2.80 * tight["se"], rel=1e-3)
  assert rules_companion.claim2([0.95, 0.96, 0.97], [0.6, 0.61, 0.62], fits=False)["verdict"] \
      == "holds partly"
