#!/usr/bin/python3
"""Runs pipelines/audio_spectrum.sh and pipelines/video_batch.sh and checks
what they wrote against NumPy: the energies are NumPy's windows of the
audio tensors that went in (4096 frames every 1024, mean square per
channel), the batches NumPy's stack of every 8 CHW frames, cast to
float32 and divided by 255.  Usage: check_window.py SOURCE_ROOT OUT_DIR
"""
import os
import subprocess
import sys

import numpy as np


def run(root, script, out):
    env = dict(os.environ)
    if env.get("TN_EXAMPLES_PRELOAD"):
        env["LD_PRELOAD"] = env["TN_EXAMPLES_PRELOAD"]
    subprocess.run(["bash", os.path.join(root, "pipelines", script), out],
                   env=env, check=True, timeout=120,
                   stdout=subprocess.DEVNULL)


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)

    run(root, "audio_spectrum.sh", out)
    audio = np.fromfile(os.path.join(out, "audio.f32"), np.float32)
    audio = audio.reshape(-1, 2)
    got = np.fromfile(os.path.join(out, "energy.f32"), np.float32)
    got = got.reshape(-1, 2)
    starts = range(0, len(audio) - 4096 + 1, 1024)
    want = np.array([(audio[s:s + 4096].astype(np.float64) ** 2).mean(0)
                     for s in starts]).astype(np.float32)
    assert len(audio) == 16 * 1024, len(audio)
    assert got.shape == want.shape == (13, 2), (got.shape, want.shape)
    # tensorop squares in float32 (one rounding), tensorreduce sums in
    # float64 and rounds once: within a few float32 ulps of NumPy's
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert abs(float(want.mean()) - 0.32) < 0.01, want.mean()
    print("audio_spectrum.sh: %d windows match NumPy" % len(got))

    run(root, "video_batch.sh", out)
    frames = np.fromfile(os.path.join(out, "frames.u8"), np.uint8)
    frames = frames.reshape(-1, 3, 48, 64)
    got = np.fromfile(os.path.join(out, "batches.f32"), np.float32)
    got = got.reshape(-1, 8, 3, 48, 64)
    assert len(frames) == 16 and got.shape[0] == 2, (frames.shape, got.shape)
    want = frames.reshape(2, 8, 3, 48, 64).astype(np.float32) / np.float32(255)
    np.testing.assert_array_equal(got, want)
    print("video_batch.sh: %d batches match NumPy" % len(got))
    return 0


if __name__ == "__main__":
    sys.exit(main())
