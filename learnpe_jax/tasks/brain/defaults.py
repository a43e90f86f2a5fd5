"""The brain task's defaults as plain constants, so that a config file (``configs/brain3d.py``) can
read them without importing the generator or tfds: the synthetic generator's parameters
(``generate``) and the held-out HCP subjects (``hcp_tfds_builder``)."""

GENERATOR_DEFAULTS = {
    "g_global": 0.1, "g_dist": 1.0, "length_scale_mm": 20.0, "g_net": 0.0,
    "within_between_ratio": 2.0,  # > 0: calibrate g_net to this ratio; 0: use g_net as given
    "lowrank_rank": 5, "lowrank_scale": 0.3, "private_var": 0.3, "ar_coef": 0.5,
    "num_train_subjects": 40, "num_test_subjects": 10, "num_time_points": 50, "seed": 0,
}

DEFAULT_TEST_SUBJECTS = "102816,211619"  # 2 of the 7, seeded: default_rng(0).permutation(7)[:2]
