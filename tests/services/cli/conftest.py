"""The CLI's tests talk to a live coordinator (see tests/services/live_api.py)."""

from tests.services.live_api import Api, api

__all__ = ["Api", "api"]
