from learnpe_jax.models.encoder import Encoder
