"""A finished run's reports, above training (they read its workdir back through
``training.restore``); the measures they compute are ``learnpe_jax.measures``.

  run_analysis   every metric of every model and PE block of a run's checkpoint (analysis.json)
  plots          the figures of ``python -m learnpe_jax.analyze``
  report_doc     report.md / report.html

The launcher that uses them is ``learnpe_jax/analyze.py``.
"""
