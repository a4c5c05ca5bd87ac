"""The live API fixture of tests/api, for the guide route."""

from tests.api.conftest import LiveApi, api

__all__ = ["LiveApi", "api"]
