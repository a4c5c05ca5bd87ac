"""The live API fixture of tests/api, for the semantic routes' tests."""

from tests.api.conftest import api  # noqa: F401 - a fixture, used by name
