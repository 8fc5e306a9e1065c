"""The bad-day provider fixture for the generation tests."""

from tests.llm_provider import provider

__all__ = ["provider"]
