"""What a learned PE looks like, from a run's checkpoints (one concern per module).

  rsa            PE–geometry RSA: Spearman/Pearson of 1 − cos(p_i, p_j) vs true distance, Mantel p
  geometry       layout recovery (classical MDS + Procrustes, R²), participation ratio, movement
  modularity     within/between similarity, silhouette, k-means ARI under module labels
  pe_metrics     the per-model PE metrics logged during training (metrics.jsonl, summary.json)
  run_analysis   every metric of every model and PE block of a run (analysis.json)
  plots          the figures; report_doc  report.md / report.html; cli  launcher helpers
"""
