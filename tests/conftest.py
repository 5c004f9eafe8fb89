"""Shared fixtures: the seed fixture loaded once, and hypothesis settings for CI."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

import custody_lab as cl

settings.register_profile("lab", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lab"))


@pytest.fixture(scope="session")
def fixture() -> cl.loading.Fixture:
    return cl.load_fixture()


@pytest.fixture(scope="session")
def seed_cases(fixture) -> dict[str, dict]:
    """The six seed cases and four variants as camelCase mappings, by id."""
    return {c.id: c.to_dict() for c in fixture.all_cases}
