"""Every number the claims' prose quotes, recomputed from the kept records.

RESULTS.md's head, its table of every claim (between ``<!-- claims-summary -->`` markers,
``experiments.claims.summary``) and its claim sections are written by ``python -m experiments.claims
--all``. Each test rebuilds what they quote from
``experiments/results/claims/records.jsonl`` (and each claim's ``table.json`` from it) and compares.
"""

import json
import os
import re

import pytest

from experiments import RESULTS_DIR, RESULTS_MD
from experiments.framework import records, results_doc
from experiments import claim5_brain as claim5
from experiments.claims import cli, jobs, suite, summary, table
from experiments.claims.records import CLAIMS_DIR, model_records

CLAIMS = suite.claims() + [claim5.SYNTHETIC]


@pytest.fixture(scope="module")
def rows():
  return records.read(CLAIMS_DIR)


def _kept(name):
  with open(os.path.join(RESULTS_DIR, name, "table.json")) as f:
    return json.load(f)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.name)
def test_table_json_rebuilds_from_records(claim, rows):
  """A claim's table.json is what its records give: groups, verdicts under both rules, the
  comparisons with their power."""
  t = table.make_table(claim, model_records(claim, rows))
  verdict, judged = cli.judge(claim, t)
  rebuilt = json.loads(json.dumps(cli.table_json(claim, _kept(claim.name)["command"], verdict,
                                                 judged, t)))
  assert rebuilt == _kept(claim.name)


def _section(path, name):
  with open(path) as f:
    text = f.read()
  start, end = f"<!-- {name} -->", f"<!-- /{name} -->\n"
  return text[text.index(start):text.index(end) + len(end)]


def test_the_claims_table_is_the_publish_steps():
  """RESULTS.md's table of the claims, every number in it, as the publish step writes it from the
  kept tables (which the test above rebuilds from the records)."""
  control = [c for _, c in suite.controls()]
  assert control == [claim5.SYNTHETIC]
  assert _section(RESULTS_MD, summary.MARKER) == summary.section(suite.claims(), control[0])


def test_results_md_claims_part_is_the_publish_steps(monkeypatch):
  """RESULTS.md from its start to the first section another script splices in: the head, the
  claims' table and the claim sections, as ``--all`` writes them from the kept tables."""
  sections = []
  for c in suite.claims():
    kept = _kept(c.name)
    t = table.table_from_kept(c, kept["groups"])
    verdict, judged = cli.judge(c, t)
    sections.append((table.markdown(t, kept["command"], verdict, "figure.png", judged), c.name,
                     suite.summary_verdict(kept)))
  with open(RESULTS_MD) as f:
    text = f.read()
  first_other = min(text.index(f"<!-- {n} -->") for n in results_doc.OTHER_RESULTS
                    if f"<!-- {n} -->" in text)
  monkeypatch.setattr(results_doc.paths, "write_text", lambda path, text: None)  # read only
  claims_table = summary.section(suite.claims(), claim5.SYNTHETIC)
  made = results_doc.write_results(sections, RESULTS_MD, RESULTS_DIR, claims_table)
  assert text[:first_other] == made[:first_other]


def test_results_head_numbers_are_the_records(rows):
  """The numbers RESULTS.md's hand-written head quotes: the pool's size, seeds, steps per task
  and the kept `lst_init_uniform` run (the two-core rerun it is compared with has no record; the
  head names the commit that measured it)."""
  head = results_doc.RESULTS_HEAD
  flat = " ".join(head.split())
  assert f"{len({r['job'] for r in rows})} jobs, {len(rows)} models" in flat
  seeds = {len(g["seeds"]) for c in suite.claims() for g in _kept(c.name)["groups"]}
  assert seeds == {5} and "mean over 5 seeds" in flat
  steps = lambda job: f"{job.at().build_config().train.num_steps:,}"
  assert f"{steps(jobs.LST_LEARNED)} steps on the LST and the generated brain control" in flat
  assert steps(jobs.BRAIN_SYNTHETIC) == steps(jobs.LST_LEARNED)
  assert f"{steps(jobs.BRAIN)} on the real brain data" in flat
  assert f"{steps(jobs.NETSIM)} on the network" in flat
  long = [r for r in rows if r["job"] in {j.name for j in jobs.LST_LONG}]
  assert f"{len(long)} LST models to {steps(jobs.LST_LONG[0])}" in flat
  others = {r["job"] for r in rows} - {jobs.BRAIN.name}
  assert f"The {len(others)} jobs other than the real-brain one" in flat
  uniform = {g["condition"]: g for g in _kept("init_family")["groups"]}["init_uniform"]
  assert f"the kept run's {uniform['test_accuracy']['mean']:.3f}" in flat
  assert f"against {uniform['pe_rsa']['mean']:.3f}" in flat
  assert "commit fc525b9" in flat and "commit ed5bdef" in flat


def test_no_unrecorded_claim_numbers_in_the_head():
  """Every decimal the head quotes is one the test above checks, or one it names a commit for."""
  flat = " ".join(results_doc.RESULTS_HEAD.split())
  decimals = set(re.findall(r"\d+\.\d+", flat))
  # 0.05: the tests' α; 0.558 and 0.017: the unrecorded rerun (commit fc525b9); 0.560 and 0.268:
  # the kept run's; 2406.08272: the study's arXiv number.
  assert decimals <= {"0.05", "0.558", "0.560", "0.268", "0.017", "2406.08272"}, decimals
