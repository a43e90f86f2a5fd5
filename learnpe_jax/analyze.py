"""Turn a run's workdir (local or ``gs://``) into metrics, figures and a report:
``python -m learnpe_jax.analyze --workdir=DIR [--step=N] [--num_permutations=1000]``.

Writes, from the saved checkpoint (the latest, or ``--step``):
  DIR/analysis.json   every metric of every model, per PE block (``analysis.run_analysis``)
  DIR/figures/*.png   similarity_matrices, layouts, score_rsa_vs_sigma, score_by_level (tasks with
                      levels), training_curves,
                      similarity_by_network (tasks with modules), fc_and_pe_similarity and
                      brain_measures_vs_sigma (the brain's HCP data)
  DIR/report.md       the tables and figures; DIR/report.html the same in one self-contained file.
PEs that add no per-token vectors get the score figures only. A bad workdir exits 2 with one line.
"""

import io
import shlex
import sys

from absl import app
from absl import flags
from absl import logging

from learnpe_jax import cli, paths
from learnpe_jax.run.workdir import read_metrics


def define_flags():
  """The command-line flags (defined only when run as a command, so that importing this module
  from a notebook or beside another command defines none)."""
  flags.DEFINE_string("workdir", None, "A run's workdir (holds config.json).")
  flags.DEFINE_integer("step", None, "Checkpoint step to analyse (default: the latest).")
  flags.DEFINE_integer("num_permutations", 1000,
                       "Mantel permutations for the RSA p-value (0: skip).")
  flags.DEFINE_enum("mds_distance", "euclidean", ["euclidean", "cosine"],
                    "PE distance for classical MDS.")
  flags.DEFINE_integer("num_sigmas", 4, "How many σ the matrix and layout figures show.")
  flags.mark_flags_as_required(["workdir"])


def analyze(workdir: str, step=None, num_permutations: int = 1000,
            mds_distance: str = "euclidean", num_sigmas: int = 4, command: str | None = None):
  """Everything ``analyze`` writes; returns the analysis dict. Importable from a notebook."""
  from learnpe_jax.analysis import plots, report_doc, run_analysis
  from learnpe_jax.run.workdir import write_json
  from learnpe_jax.training.restore import load_run

  run = load_run(workdir, step)
  workdir = run.workdir
  if run.step == 0:
    logging.warning("%s has no checkpoint yet: analysing the models at init.", workdir)
  result = run_analysis.analyze_run(
      run, run_analysis.Settings(num_permutations=num_permutations, mds_distance=mds_distance))
  data = run_analysis.to_jsonable(result.data)
  write_json(paths.join(workdir, "analysis.json"), data)

  fig_dir = paths.join(workdir, "figures")
  paths.makedirs(fig_dir)
  figures = []

  def save(fig, name, caption):
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=110)
    paths.write_bytes(paths.join(fig_dir, name), png.getvalue())
    figures.append((f"figures/{name}", caption))

  save(plots.score_rsa_vs_sigma(data), "score_rsa_vs_sigma.png",
       f"Test {data['score']} (and, where the PE adds vectors, PE–geometry RSA) against the init "
       "scale σ; line = mean over seeds, band = ±1 sd, dots = seeds.")
  if plots.has_levels(data):
    save(plots.score_by_level(data), "score_by_level.png",
         f"Test {data['score']} per level (the length tasks: per length n; shaded: levels the "
         "training split does not have), one line per σ: mean over seeds, band = ±1 sd.")
  rows = read_metrics(workdir)
  if rows:
    save(plots.training_curves(rows, data["score"]), "training_curves.png",
         "Training curves per σ from metrics.jsonl: train loss, the score on every eval set and, "
         "where the PE adds vectors, block 0's PE–geometry RSA and similarity to the fixed "
         "sinusoid (thick: mean over seeds; thin: seeds).")
  if result.pe is not None:
    save(plots.similarity_matrices(data, result.pe, result.coords, num_sigmas),
         "similarity_matrices.png",
         "PE cosine similarity (per PE block) beside the true distance matrix, one seed per σ. "
         "A PE that mirrors the geometry looks like the distance matrix.")
    save(plots.layouts(data, result.pe, result.coords, result.labels, num_sigmas, mds_distance),
         "layouts.png",
         "Layout recovered from PE block 0 (classical MDS + Procrustes, drawn at the true "
         "layout's spread) over the true positions (open circles), one seed per σ"
         + (", coloured by network." if result.labels is not None else "."))
    if result.labels is not None:
      save(plots.similarity_by_network(data, result.pe, result.labels, run.task.module_names,
                                       num_sigmas),
           "similarity_by_network.png",
           "PE block 0 cosine similarity with tokens ordered by network (module borders in "
           "black).")
    fc = run.task.extras.get("fc")
    if fc is not None:  # the brain's real data: FC-based figures
      save(plots.fc_and_pe_similarity(data, result.pe, fc, result.labels, num_sigmas),
           "fc_and_pe_similarity.png",
           "Group functional connectivity of the training data beside the PE block 0 cosine "
           "similarity (one seed per σ), regions ordered by FC community.")
      save(plots.brain_measures_vs_sigma(data), "brain_measures_vs_sigma.png",
           "Block 0 against σ: RSA vs 3-D centre distance, RSA vs group FC, modularity Q under "
           "the FC communities and the hemispheres, movement from init (mean ± sd over seeds).")
  command = command or "python -m learnpe_jax.analyze " + " ".join(
      shlex.quote(a) for a in sys.argv[1:])
  blocks = report_doc.build_blocks(data, figures, run.config.to_dict(), command)
  md, htm = report_doc.write_reports(workdir, blocks)
  logging.info("Wrote %s, %s, %s and %d figures in %s.", paths.join(workdir, "analysis.json"),
               md, htm, len(figures), fig_dir)
  return data


def main(argv):
  cli.start(argv)
  with cli.user_errors():
    f = flags.FLAGS
    data = analyze(f.workdir, f.step, f.num_permutations, f.mds_distance, f.num_sigmas)
  from learnpe_jax.analysis import report_doc
  from learnpe_jax.training import report
  print(report.format_table(data))
  geo = report_doc.geometry_table(data)
  if geo:
    print(geo)


if __name__ == "__main__":
  define_flags()
  app.run(main, flags_parser=cli.parse_flags)
