"""The Latin Square Task: ``generate`` (generator and solver), ``tfds_builder`` (the cached tfds
dataset), ``task`` (``load_task`` → ``TaskData``); ``companion`` (the companion's shipped puzzles
and split), ``puzzle_csv`` (puzzle files), ``overlap`` (train/test overlap), ``data/`` (the shipped
CSV files)."""
