"""Golden data for tests/pipelines: what NumPy writes for the tensors the
pipelines should produce.  Run with /usr/bin/python3 from any directory;
writes pipe_*.npy into tests/data/pipelines."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/pipelines, whatever the cwd.
OUT = os.path.join(HERE, "..", "pipelines")

# tensorsrc pattern=arange start=0 step=0.5, float32 <2, 3>
np.save(os.path.join(OUT, "pipe_arange_f32_2x3.npy"), (np.arange(6) * 0.5).astype(np.float32).reshape(2, 3))
# tensorsrc pattern=arange start=-3 step=1, int16 <4>
np.save(os.path.join(OUT, "pipe_arange_i16_4.npy"), (np.arange(4) - 3).astype(np.int16))
# a [3, 2, 2] uint8 array for npydec split=true: three <2, 2> tensors
np.save(os.path.join(OUT, "pipe_split_u8_3x2x2.npy"), np.arange(12, dtype=np.uint8).reshape(3, 2, 2))
for i in range(3):
    np.save(os.path.join(OUT, f"pipe_split_u8_part{i}.npy"), np.arange(12, dtype=np.uint8).reshape(3, 2, 2)[i])
