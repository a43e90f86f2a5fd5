"""What every study shares, each module importing only those above it in this list:

  stats         mean ± sd and 95% interval over seeds, Welch's test: one rule for missing values
  runner        Job; train a list of jobs on this machine (resumable, in lanes)
  records       one record format for every study: records.jsonl (a row per model, with its job's
                wall time and cores) and, where a figure draws them, curves.jsonl
  cluster       the same jobs as commands for a cluster (print, TPU VM and SLURM scripts), gather
  results_doc   RESULTS.md: each result's ``table.md`` spliced in between its markers
  study         the results pipeline every study shares: train, collect (records), reduce (stats),
                present (interval, mean_sd), publish (table.md/json, the RESULTS.md section)
"""
