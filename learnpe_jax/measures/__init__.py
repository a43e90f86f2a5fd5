"""What a learned PE looks like, as numbers: the pure measures that training logs at every eval and
the reports read back (numpy, scipy, scikit-learn; one concern per module). Below training, above
the tasks, PEs and models (docs/design.md, "Layers").

  rsa            PE–geometry RSA: Spearman/Pearson of 1 − cos(p_i, p_j) vs true distance, Mantel p;
                 similarity to a reference PE (the fixed N-D sinusoid)
  geometry       layout recovery (classical MDS + Procrustes, R²), learned coordinates vs true
                 (Procrustes disparity), participation ratio, movement
  modularity     within/between similarity, silhouette, k-means ARI under module labels
  functional     a PE's RSA against the brain's functional connectivity (``tasks.brain.fc``) and
                 its modularity under the FC communities and the hemispheres
  bias_geometry  the bias analogue of the PE–geometry RSA (content-free attention logits)
  grid_change    the paired measures of what a PE learned from its own init (ΔRSA, partial ρ)
  pe_metrics     the per-model PE metrics logged during training (metrics.jsonl, summary.json)
"""
