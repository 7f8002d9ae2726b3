"""hidden._percentiles gives np.percentile's own floats (the strip search's shifts depend on them)."""

from __future__ import annotations

import numpy as np

from vision.pipeline.hidden import _percentiles


def test_the_percentiles_are_numpys_to_the_bit() -> None:
    rng = np.random.default_rng(7)
    for k in range(600):
        n = int(rng.integers(1, 3000)) if k % 3 else int(rng.integers(1, 12))
        values = rng.normal(0.0, 40.0, n) if k % 2 else np.round(rng.uniform(-90.0, 250.0, n)) * 0.37
        if k % 5 == 0:  # ties, as a strip's pixel rows give
            values = np.repeat(values, 4)
        low, high = np.percentile(values, (1, 99))
        assert _percentiles(values) == (float(low), float(high))
