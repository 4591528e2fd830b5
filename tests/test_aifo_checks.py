"""The AIFO figures' checks on made-up results: what passes, what an experiment explains, what fails."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pfabric.figures import _aifo
from pfabric.figures import aifo_fig8 as fig8


def _runs(values: dict[float, list[float]], loads=(0.2, 0.5)) -> list:
    """Small-flow means per k: the first value at every load (seed 1), the rest as extra seeds at the lowest."""
    done = []
    for k, samples in values.items():
        for load in loads:
            scale = 1.0 if load == loads[0] else 1.5 + k  # increasing in k at the higher load
            done.append(({"load": load, "scheme": f"AIFO k={k}"}, SimpleNamespace(value=samples[0] * scale)))
        for seed, v in zip(fig8.MORE_SEEDS, samples[1:], strict=False):
            done.append(
                ({"load": loads[0], "scheme": fig8.seeded(k, seed), "seed": seed}, SimpleNamespace(value=v))
            )
    return done


@pytest.mark.parametrize(
    "values, verdict",
    [
        # Increasing in k on the seeds' means: holds.
        ({0.1: [1.0, 1.0, 1.0], 0.3: [1.1, 1.1, 1.1], 0.7: [1.2, 1.2, 1.2], 0.9: [1.3, 1.3, 1.3]}, "passed"),
        # k = 0.1 and 0.3 tie within the seeds' noise at the lowest load: explained by the seeds.
        (
            {0.1: [1.0, 1.1, 0.9], 0.3: [1.01, 0.9, 1.05], 0.7: [1.2, 1.2, 1.2], 0.9: [1.3, 1.3, 1.3]},
            "diverges: explained",
        ),
        # k = 0.1 clearly above k = 0.3, seed after seed: a real inversion.
        (
            {0.1: [1.2, 1.21, 1.19], 0.3: [1.0, 1.01, 0.99], 0.7: [1.3, 1.3, 1.3], 0.9: [1.4, 1.4, 1.4]},
            "failed",
        ),
    ],
)
def test_fig8_ordering_over_k_explained_only_within_seed_noise(monkeypatch, values, verdict):
    monkeypatch.setattr(_aifo, "small_mean_ms", lambda r: r.value)
    monkeypatch.setattr(fig8, "AUTHORS_KS", tuple(values))
    check = fig8.increasing_in_k(_runs(values))
    assert check is not None and check.verdict == verdict
