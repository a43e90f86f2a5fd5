"""The network simulation's generator parameters (``generate``) as plain constants, so that a config
file (``configs/netsim.py``) can read them without importing the generator."""

GENERATOR_DEFAULTS = {
    "num_nodes": 64, "dim": 2, "layout": "random", "num_modules": 4, "module_assignment": "spatial",
    "length_scale": 0.2, "g_dist": 1.0, "g_module": 0.5, "coupling_sign": "balanced",
    "spectral_radius": 1.5, "alpha": 1.0, "bias_sd": 0.1, "noise_sd": 0.3,
    "num_train_trajectories": 10, "num_test_trajectories": 10, "trajectory_length": 200,
    "burn_in": 100, "seed": 0,
}
