import pytest

from battlesim.ecs.decisions import make_agent
from battlesim.ecs.ruleset import get_ruleset


@pytest.fixture(scope="session")
def lanes():
    """The lanes ruleset with the shipped data (loaded once per test session)."""
    return get_ruleset("lanes").load()


@pytest.fixture
def random_agents():
    return [make_agent("random"), make_agent("random")]
