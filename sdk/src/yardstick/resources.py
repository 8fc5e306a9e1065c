"""The coordinator's operational resources, reached as attributes of :class:`~yardstick.Client`:
``client.prompts`` (the prompt registry), ``client.online`` (production traffic sampling) and
``client.keys`` (API keys). Each call returns a pydantic model and raises
:class:`~yardstick.errors.ApiError` with the API's message, as the client's own calls do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from yardstick.api.keys import KeyCreate, KeyCreated, KeyOut
from yardstick.api.online import DriftAlertOut
from yardstick.api.projects import ProjectCreate, ProjectOut
from yardstick.api.prompts import LabelMove, PromptPush, PromptSummary, PromptVersionOut
from yardstick.api.roles import Role
from yardstick.api.traces import TracePage
from yardstick.transport import Transport, segment

if TYPE_CHECKING:
    from yardstick.api.online import OnlineMetrics


class Prompts:
    """Prompt versions and the labels (``production``, ``staging`` …) the agent resolves."""

    def __init__(self, api: Transport) -> None:
        self._api = api

    def push(
        self, name: str, template: str, *, labels: Sequence[str] = (), source: str = "sdk"
    ) -> PromptVersionOut:
        """A new version when ``template`` changed (else the current one); ``labels`` move to it."""
        body = PromptPush(name=name, template=template, labels=list(labels), source=source)
        return self._api.post(PromptVersionOut, "/prompts", body)

    def list(self) -> list[PromptSummary]:
        return self._api.get_list(PromptSummary, "/prompts")

    def resolve(self, ref: str) -> PromptVersionOut:
        """The version ``NAME``, ``NAME@LABEL`` or ``NAME@VERSION`` names now."""
        return self._api.get(PromptVersionOut, "/prompts/resolve", ref=ref)

    def move_label(self, name: str, label: str, version: int) -> PromptVersionOut:
        """Point ``label`` at ``version``."""
        path = f"/prompts/{segment(name)}/labels/{segment(label)}"
        return self._api.put(PromptVersionOut, path, LabelMove(version=version))


class Online:
    """Production traffic: the sampling config, online scores, drift alerts, sampled traces."""

    def __init__(self, api: Transport) -> None:
        self._api = api

    def config(self) -> dict[str, Any]:
        """The sampling config as the API sends it (``SamplingSettings`` as JSON: the server checks
        its evaluators against the ones it has, which this process need not have)."""
        config: dict[str, Any] = self._api.request("GET", "/online/config").json()
        return config

    def set_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Replace the sampling config; returns it as stored."""
        saved: dict[str, Any] = self._api.request("PUT", "/online/config", json=dict(config)).json()
        return saved

    def metrics(self, *, window: str = "1h", bucket: str = "5m") -> OnlineMetrics:
        """Mean and 95% CI per evaluator, application and model, per ``bucket`` over ``window``."""
        from yardstick.api.online import OnlineMetrics  # deferred: it also holds the SQL query

        return self._api.get(OnlineMetrics, "/online/metrics", window=window, bucket=bucket)

    def alerts(self, *, limit: int = 100) -> list[DriftAlertOut]:
        """Drift alerts, newest first."""
        return self._api.get_list(DriftAlertOut, "/online/alerts", limit=limit)

    def traces(
        self, *, service: str | None = None, since: datetime | None = None, limit: int = 50
    ) -> TracePage:
        """Sampled traces (of ``service``, started at or after ``since``), newest first, with scores."""
        return self._api.get(
            TracePage, "/traces", service=service, since=since.isoformat() if since else None, limit=limit
        )


class Keys:
    """API keys: create (an admin or owner key creates keys up to its own role), list, revoke."""

    def __init__(self, api: Transport) -> None:
        self._api = api

    def create(
        self, name: str, role: Role, expires_in: str | None = None, project: str | None = None
    ) -> KeyCreated:
        """A new key of ``role`` acting in ``project`` (default: the client's project) (``expires_in``:
        30d, 12h, 90m); ``.key`` is shown only now."""
        body = KeyCreate(name=name, role=role, expires_in=expires_in, project=project)
        return self._api.post(KeyCreated, "/keys", body)

    def list(self) -> list[KeyOut]:
        return self._api.get_list(KeyOut, "/keys")

    def revoke(self, key: str) -> None:
        """Revoke the key with this id or prefix."""
        self._api.delete(f"/keys/{segment(key)}")


class Projects:
    """Projects: create one (owner keys), list the ones the key may act in."""

    def __init__(self, api: Transport) -> None:
        self._api = api

    def create(self, name: str, description: str = "") -> ProjectOut:
        return self._api.post(ProjectOut, "/projects", ProjectCreate(name=name, description=description))

    def list(self) -> list[ProjectOut]:
        return self._api.get_list(ProjectOut, "/projects")
