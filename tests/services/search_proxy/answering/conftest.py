"""The bad-day provider fixture for the answerer's tests."""

from tests.llm_provider import provider

__all__ = ["provider"]
