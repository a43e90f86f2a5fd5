"""The network simulation (experiment 2): ``generate`` (the simulator), ``tfds_builder`` (the cached
tfds dataset), ``task`` (``load_task`` → ``TaskData``)."""
