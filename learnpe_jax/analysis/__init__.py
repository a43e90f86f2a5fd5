"""What a learned PE looks like: the measures, what training logs, and a run's figures and report
(one concern per module).

  rsa            PE–geometry RSA: Spearman/Pearson of 1 − cos(p_i, p_j) vs true distance, Mantel p;
                 similarity to a reference PE (the fixed N-D sinusoid)
  geometry       layout recovery (classical MDS + Procrustes, R²), learned coordinates vs true
                 (Procrustes disparity), participation ratio, movement
  modularity     within/between similarity, silhouette, k-means ARI under module labels
  functional     the brain's functional connectivity (FC), its communities, Newman's modularity, and
                 a PE's RSA against the FC and modularity under the communities and hemispheres
  pe_metrics     the per-model PE metrics logged during training (metrics.jsonl, summary.json)
  run_analysis   every metric of every model and PE block of a run's checkpoint (analysis.json)
  plots          the figures of ``python -m learnpe_jax.analyze``
  report_doc     report.md / report.html

The measures (rsa, geometry, modularity, functional) import nothing of the package outside this
folder. The launcher that uses the rest is ``learnpe_jax/analyze.py``.
"""
