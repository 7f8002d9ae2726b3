"""Settings shared by every test: hypothesis checks behaviour, never how long an example took."""

from __future__ import annotations

from hypothesis import settings

# Hypothesis fails an example slower than 200 ms by default: a timing threshold, which these shared,
# noisy machines break (test_hands_properties once took 448 ms for an example that takes 0.07 ms).
settings.register_profile("dealer-assist", deadline=None)
settings.load_profile("dealer-assist")
