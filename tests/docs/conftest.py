"""The bad-day provider fixture for the docs' examples."""

from tests.llm_provider import provider

__all__ = ["provider"]
