"""experiments.companion: the side-by-side rules on known numbers, the table from runs, its jobs."""

import json
import sys

import pytest

from experiments import companion


def _model(pe, seed, train, test, human, rsa=0.0, sim=0.0, data="pluck"):
  levels = {lvl: test for lvl in companion.LEVELS}
  return {"pe": pe, "seed": seed, "data": data, "train_accuracy": train, "test_accuracy": test,
          "human_accuracy": human, "test_accuracy_by_level": levels,
          "human_accuracy_by_level": {lvl: human for lvl in companion.LEVELS},
          "pe_rsa": rsa, "pe_rsa_init": 0.0, "pe_sinusoid_similarity": sim,
          "pe_sinusoid_similarity_init": 0.0, "pe_norm": 1.0}


def test_companion_numbers_reproduce_and_the_claims_hold():
  models = [_model(0.2, 0, 1.0, 0.987, 0.954, rsa=0.5, sim=0.6),
            _model(2.0, 0, 0.982, 0.810, 0.389, rsa=0.1, sim=0.1),
            _model("2-D sinusoidal", 0, 0.977, 0.961, 0.938)]
  verdict = companion.verdicts(companion.per_condition(models))
  assert verdict["side_by_side"] == "reproduces"
  assert verdict["claim2"] == "holds" and verdict["claim1"] == "holds"


def test_a_row_outside_two_sd_and_a_sigma_that_does_not_fit():
  models = [_model(0.2, 0, 1.0, 0.987, 0.954), _model(0.2, 1, 1.0, 0.987, 0.954),
            _model(2.0, 0, 0.90, 0.50, 0.30)]  # test 0.50 < 0.810 − 2 × 0.090
  conditions = companion.per_condition(models)
  assert [c["pe"] for c in conditions] == [0.2, 2.0] and conditions[0]["seeds"] == [0, 1]
  verdict = companion.verdicts(conditions)
  assert verdict["rows_within_2sd"] == {"0.2": True, "2.0": False}
  assert verdict["side_by_side"] == "reproduces partly"
  assert verdict["claim2"] == "holds partly"  # human falls by > 0.1, but σ = 2 does not fit
  assert verdict["claim1"] == "does not hold at this scale"  # equal geometry


def test_other_data_is_not_compared_with_the_companion():
  models = [_model(0.2, 0, 1.0, 0.5, 0.5, data="reveal")]
  verdict = companion.verdicts(companion.per_condition(models))
  assert verdict["rows_within_2sd"] == {} and verdict["side_by_side"] == "does not reproduce"


def test_table_from_finished_pieces(tmp_path):
  """A finished piece's summary and metrics become the table, the figure and copies in results."""
  job = companion.JOBS[0]
  workdir = tmp_path / "runs" / job.name
  workdir.mkdir(parents=True)
  models = [dict(_model(s, 0, 1.0, 0.9, 0.9), pe_init_scale=s, learning_rate=1e-4, model=i)
            for i, s in enumerate((0.2, 2.0))]
  for m in models:
    del m["pe"], m["data"]
  (workdir / "summary.json").write_text(json.dumps({"pe": "learned", "models": models}))
  (workdir / "metrics.jsonl").write_text("".join(
      json.dumps(dict(m, step=step)) + "\n" for step in (0, 1600) for m in models))
  (workdir / "config.json").write_text("{}")
  # 20 min of 5-min log steps, 2 h of nothing (a resume in a later session), 20 min more.
  stamps = [f"07:{m:02d}" for m in range(0, 21, 5)] + [f"09:{m:02d}" for m in range(20, 41, 5)]
  (workdir / "train.log").write_text("".join(f"I1201 {t}:00.000 x] line\n" for t in stamps))
  results = tmp_path / "results"
  text = companion.tabulate(str(tmp_path / "runs"), str(results))
  assert "| learned σ = 0.2 | pluck | 1 | 1.000 / 1.000 | 0.900 / 0.987 ± 0.009 |" in text
  assert f"`{job.name}`: 40 min" in text
  assert (results / "figure.png").exists() and (results / job.name / "metrics.jsonl").exists()
  table = json.loads((results / "table.json").read_text())
  # σ = 0.2: test 0.9 < 0.987 − 2 × 0.009; σ = 2: human 0.9 > 0.389 + 2 × 0.156.
  assert table["verdict"]["rows_within_2sd"] == {"0.2": False, "2.0": False}


@pytest.mark.parametrize("argv", [["--jobs=nope"]])
def test_unknown_piece_is_refused(argv, capsys):
  with pytest.raises(SystemExit):
    companion.main(argv)
  assert "unknown piece(s) ['nope']" in capsys.readouterr().err


def test_print_gives_one_resumable_command_per_piece(capsys):
  assert companion.main(["--print", "--jobs=sinusoid_2d,reveal_s0", "--root=/r"]) == 0
  lines = capsys.readouterr().out.splitlines()
  main = f"{sys.executable} -m learnpe_jax.main "
  assert len(lines) == 2 and all(line.startswith(main) for line in lines)
  assert ("--config=configs/grid2d.py:companion,pe=sinusoidal_nd --workdir=/r/sinusoid_2d"
          in lines[0])
  assert "--workdir=/r/reveal_s0" in lines[1] and "--config.data.generator=reveal" in lines[1]
