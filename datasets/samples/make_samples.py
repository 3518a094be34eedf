"""Regenerate the tiny in-repo samples from the full offline datasets.

    python3 datasets/samples/make_samples.py [SHARED_DATASETS_DIR]   # default: ../shared/datasets

Each sample is a seeded random subset of the ORIGINAL text lines (byte-for-byte, no reformatting),
kept in the original row order, written xz-compressed.  The sha256 of each uncompressed sample is
printed; it must match olk/data/registry.yaml (update the registry if you change a recipe).
"""
from __future__ import annotations

import hashlib
import lzma
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20240501

# name -> (source files in order, number of rows)
RECIPES = {
    "a9a-small": (["a9a.train.xz", "a9a.test.xz"], 2000),
    "codrna-small": (["cod-rna.train.xz"], 2000),
    "w7a-small": (["w7a.train.xz", "w7a.test.xz"], 2000),
    "german-small": (["german.numer.xz"], 300),
}


def _lines(path: Path) -> list[bytes]:
    return [ln for ln in lzma.decompress(path.read_bytes()).splitlines(keepends=True) if ln.strip()]


def make(src_dir: Path) -> None:
    for name, (files, n) in RECIPES.items():
        lines = [ln for f in files for ln in _lines(src_dir / f)]
        rng = np.random.default_rng(SEED)
        keep = np.sort(rng.choice(len(lines), size=n, replace=False))
        body = b"".join(lines[i] if lines[i].endswith(b"\n") else lines[i] + b"\n" for i in keep)
        out = HERE / f"{name}.libsvm.xz"
        out.write_bytes(lzma.compress(body, preset=9 | lzma.PRESET_EXTREME))
        print(f"{name}: {n} rows of {len(lines)}, {out.stat().st_size} bytes, "
              f"sha256 {hashlib.sha256(body).hexdigest()}")


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared" / "datasets")
