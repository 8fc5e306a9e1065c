"""The ``http`` backend: an upstream search API (``POST {base}/v1/search``, bearer key,
``X-Workspace-ID``), with a timeout, retries with exponential backoff on 5xx / connection errors /
timeouts, and the response validated against :class:`UpstreamSearchResponse`. Its addresses pass the
outbound guard (``guarded_transport.py``): a private or loopback upstream needs
``TARGET_ALLOWED_NETWORKS``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from services.search_proxy.guarded_transport import guarded_client
from services.search_proxy.search_filters import SearchFilters
from shared.http.outbound_guard import OutboundPolicy, OutboundRefused
from yardstick.api.search_messages import SearchHit, SearchMode

log = logging.getLogger(__name__)


class UpstreamError(RuntimeError):
    """The upstream search API failed; the message says how."""


class UpstreamTimeout(UpstreamError):
    pass


class UpstreamUnavailable(UpstreamError):
    """Connection errors or 5xx answers, after every retry."""


class UpstreamRejected(UpstreamError):
    """A 4xx answer: retrying will not help (check the key, workspace or request)."""


class UpstreamRefused(UpstreamError):
    """The upstream's address is one the outbound guard refuses: no call was made."""


class UpstreamSchemaError(UpstreamError):
    """The upstream answered 200 with a body that is not a search response."""


class UpstreamHit(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    external_id: str = Field(alias="externalId", min_length=1)
    score: float | None = None
    title: str = ""
    snippet: str = ""
    source_type: str = Field(default="", alias="sourceType")


class UpstreamSearchResponse(BaseModel):
    model_config = ConfigDict(extra="ignore")

    results: list[UpstreamHit]


class UpstreamConfig(BaseModel):
    base_url: str = Field(min_length=1, description="e.g. https://search.example.com")
    api_key: SecretStr = Field(description="Bearer token")
    workspace_id: str = Field(default="", description="Sent as X-Workspace-ID")
    timeout_s: float = Field(default=10.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    backoff_base_s: float = Field(default=0.2, ge=0)
    backoff_max_s: float = Field(default=5.0, ge=0)


def _schema_problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<body>'}: {e['msg']}" for e in exc.errors())


class HttpSearchBackend:
    name = "http"

    def __init__(
        self,
        config: UpstreamConfig,
        *,
        policy: OutboundPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """``policy``: the outbound guard's (default: no private address allowed); a ``client``
        given instead is used as it is."""
        self._config = config
        self._url = config.base_url.rstrip("/") + "/v1/search"
        self._client = client or guarded_client(policy or OutboundPolicy(), config.timeout_s)
        self._sleep = sleep

    @property
    def cache_scope(self) -> str:
        return f"http:{self._url}:{self._config.workspace_id}"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def search(
        self, query: str, mode: SearchMode, limit: int, offset: int, filters: SearchFilters
    ) -> list[SearchHit]:
        body = {
            "query": query,
            "mode": mode,
            "limit": limit,
            "offset": offset,
            "filters": filters.model_dump(mode="json", exclude_none=True),
        }
        response = await self._post_with_retries(body)
        try:
            parsed = UpstreamSearchResponse.model_validate_json(response.content)
        except ValidationError as exc:
            raise UpstreamSchemaError(
                f"upstream {self._url} answered with a body that is not a search response: "
                f"{_schema_problems(exc)}"
            ) from exc
        return [
            SearchHit(
                id=hit.external_id,
                score=hit.score if hit.score is not None else 0.0,
                rank=offset + i + 1,
                title=hit.title,
                snippet=hit.snippet,
                source_type=hit.source_type,
            )
            for i, hit in enumerate(parsed.results[:limit])
        ]

    def _backoff(self, attempt: int) -> float:
        return float(min(self._config.backoff_max_s, self._config.backoff_base_s * 2**attempt))

    async def _post_with_retries(self, body: dict[str, object]) -> httpx.Response:
        headers = {
            "Authorization": f"Bearer {self._config.api_key.get_secret_value()}",
            "X-Workspace-ID": self._config.workspace_id,
        }
        attempts = self._config.max_retries + 1
        last: UpstreamError | None = None
        for attempt in range(attempts):
            if attempt:
                delay = self._backoff(attempt - 1)
                log.warning("retrying upstream search", extra={"attempt": attempt + 1, "delay_s": delay})
                await self._sleep(delay)
            try:
                response = await self._client.post(
                    self._url, json=body, headers=headers, timeout=self._config.timeout_s
                )
            except httpx.TimeoutException as exc:
                last = UpstreamTimeout(
                    f"upstream {self._url} did not answer within {self._config.timeout_s}s "
                    f"({attempts} attempts); raise SEARCH_UPSTREAM_TIMEOUT_S or check the upstream"
                )
                last.__cause__ = exc
                continue
            except OutboundRefused as exc:
                raise UpstreamRefused(f"upstream {self._url}: {exc}") from exc
            except httpx.TransportError as exc:
                last = UpstreamUnavailable(
                    f"cannot reach upstream {self._url} ({type(exc).__name__}: {exc}) after {attempts} "
                    "attempts; check SEARCH_UPSTREAM_URL"
                )
                last.__cause__ = exc
                continue
            if response.status_code >= 500:
                last = UpstreamUnavailable(
                    f"upstream {self._url} answered {response.status_code} after {attempts} attempts"
                )
                continue
            if response.status_code >= 400:
                raise UpstreamRejected(
                    f"upstream {self._url} rejected the request with {response.status_code}: "
                    f"{response.text[:200]} (check SEARCH_UPSTREAM_KEY / SEARCH_UPSTREAM_WORKSPACE)"
                )
            return response
        assert last is not None
        raise last
