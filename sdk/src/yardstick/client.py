"""``Client``: the coordinator's HTTP API as typed Python calls.

It speaks HTTP only (no NATS, no database): anything it can do, ``curl`` can do too. Every call
returns a pydantic model (or a list of them) and raises :class:`~yardstick.errors.ApiError` with the
API's message on a 4xx/5xx::

    with yardstick.Client() as client:               # finds `yardstick stack up`'s coordinator
        client.push_dataset("qa", [{"id": "q1", "input": {...}, "expected_output": {...}}])
        run = client.run_experiment("v1", dataset="qa", target=my_task, evaluators=["exact_match"])
        client.items(run.id).to_pandas()
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

import httpx
from pydantic import TypeAdapter

from yardstick.api.audit import AuditAction, AuditEntry
from yardstick.api.comparisons import ComparisonCreate, ComparisonOut
from yardstick.api.datasets import (
    DatasetItemIn,
    DatasetOut,
    DatasetSettings,
    DatasetVersionOut,
    ItemsUpsert,
    UpsertResult,
    validate_items,
)
from yardstick.api.eval_messages import TargetSpec
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.experiment_document import ExperimentDocument
from yardstick.api.experiment_events import ExperimentEvent
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import (
    ExperimentAccepted,
    ExperimentCreate,
    ExperimentFailures,
    ExperimentOut,
    ItemsPage,
    RescoreCreate,
)
from yardstick.api.gates import Gate
from yardstick.api.keys import SignInLinkCreate, SignInLinkOut
from yardstick.api.pairwise import PairwiseJudgeSpec, PairwiseJudging
from yardstick.api.planning import PlanCreate, PowerPlan
from yardstick.api.validation_messages import did_you_mean_each
from yardstick.discovery import find_api
from yardstick.errors import ApiError
from yardstick.events import parse_sse
from yardstick.models import TERMINAL_STATUSES, ExperimentList, ItemList
from yardstick.resources import Keys, Online, Projects, Prompts
from yardstick.review import Review
from yardstick.tasks import TaskFunction
from yardstick.traces import Traces
from yardstick.transport import Transport, segment

TargetLike = TargetSpec | TaskFunction | Mapping[str, Any]
"""A target model (``PythonTarget(name=...)``), a ``@yardstick.task`` function, or a target dict."""
EvaluatorLike = EvaluatorSpec | str
"""``EvaluatorSpec`` or its short form ``"NAME"`` / ``'NAME:{"arg": 1}'``."""
ItemStatus = Literal["pending", "running", "ok", "error"]
ReportFormat = Literal["md", "json", "junit"]
"""json: the document of :meth:`report` (or the comparison), as text."""

_targets: TypeAdapter[TargetSpec] = TypeAdapter(TargetSpec)
ITEMS_PAGE = 1000
RECONNECT_PAUSE_S = 0.5
COMPARISON_POLL_S = 1.0
"""How often :meth:`Client.wait_comparison` asks how far the judging is."""


def as_target(target: TargetLike) -> TargetSpec:
    """The target model of a task function, a target model or a target dict."""
    if isinstance(target, TaskFunction):
        return target.target
    return _targets.validate_python(target)


def _specs(evaluators: Sequence[EvaluatorLike] | None) -> list[EvaluatorSpec] | None:
    """Each evaluator as its spec (``"NAME"`` / ``'NAME:{json}'`` parsed); None stays None (the default)."""
    return None if evaluators is None else [EvaluatorSpec.model_validate(e) for e in evaluators]


class Client:
    """The coordinator API over HTTP.

    ``url`` and ``api_key`` default to ``YARDSTICK_API_URL`` / ``YARDSTICK_API_KEY``, then to the
    local stack (``yardstick stack up``, state in ``$YARDSTICK_HOME``). ``project`` (default
    ``YARDSTICK_PROJECT``, else the key's own project) is the project every call acts in; only an
    owner key may name another project than its own. Use it as a context manager or call
    :meth:`close`.
    """

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        project: str | None = None,
        timeout_s: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._api = Transport(find_api(url, api_key, project), timeout_s, transport)
        self.url = self._api.url
        self.project = self._api.project
        self.projects = Projects(self._api)
        self.review = Review(self._api)
        self.prompts = Prompts(self._api)
        self.online = Online(self._api)
        self.keys = Keys(self._api)
        self.traces = Traces(self._api)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._api.close()

    # ---- datasets ----------------------------------------------------------------------------

    def push_dataset(
        self,
        name: str,
        items: Iterable[DatasetItemIn | Mapping[str, Any]],
        *,
        kind: str = "generic",
        description: str = "",
        replace: bool = True,
        source: str = "sdk",
    ) -> UpsertResult:
        """Store ``items`` (``{"id", "input", "expected_output", "metadata"}``) as the dataset's next
        version, creating the dataset if needed. ``replace``: the version is exactly these items;
        False merges them by id into the latest version. Pushing the same items twice makes no new
        version. An item with an unknown field is refused before anything is sent
        (``yardstick.api.datasets.InvalidItems``, a ``ValueError`` naming the item from 1, the field
        and the closest known name): extra data goes in ``metadata``."""
        body = ItemsUpsert(
            items=validate_items(items, f"push_dataset({name!r})"),
            replace=replace,
            source=source,
            create=DatasetSettings(description=description, kind=kind),
        )
        return self._api.post(UpsertResult, f"/datasets/{segment(name)}/items", body)

    def list_datasets(self) -> list[DatasetOut]:
        return self._api.get_list(DatasetOut, "/datasets")

    def get_dataset(self, name: str) -> DatasetOut:
        return self._api.get(DatasetOut, f"/datasets/{segment(name)}")

    def dataset_versions(self, name: str) -> list[DatasetVersionOut]:
        return self._api.get_list(DatasetVersionOut, f"/datasets/{segment(name)}/versions")

    def accept_dataset_version(self, name: str, version: int) -> DatasetVersionOut:
        """Accept a version awaiting review: runs that name no version use the newest accepted one."""
        return self._api.post(DatasetVersionOut, f"/datasets/{segment(name)}/versions/{version}/accept")

    def delete_dataset(self, name: str) -> None:
        """Delete the dataset with all its versions (409 while an experiment uses it)."""
        self._api.delete(f"/datasets/{segment(name)}")

    # ---- experiments -------------------------------------------------------------------------

    def start_experiment(
        self,
        name: str,
        *,
        dataset: str,
        target: TargetLike,
        evaluators: Sequence[EvaluatorLike] | None = None,
        run_evaluators: Sequence[EvaluatorLike] | None = None,
        dataset_version: int | None = None,
        baseline_id: str | None = None,
        baseline_name: str | None = None,
        **settings: Any,
    ) -> ExperimentAccepted:
        """Start running ``dataset`` through ``target``; returns at once (202) with the id.

        ``settings`` are the other fields of ``POST /experiments`` (``concurrency``, ``repetitions``,
        ``timeout_s``, ``item_filter``, ``item_ids``, ``pass_criteria``, ``gates``, ``metadata`` …),
        checked here by the same model the API uses. A python target no task worker serves is
        refused (422) with the command that starts one."""
        unknown = sorted(set(settings) - set(ExperimentCreate.model_fields))
        if unknown:
            valid = sorted(set(ExperimentCreate.model_fields) - {"name", "dataset", "target"})
            raise TypeError(
                f"start_experiment() got unknown settings {unknown} (valid: {valid})"
                + did_you_mean_each(unknown, valid)
            )
        body = ExperimentCreate(
            name=name,
            dataset=dataset,
            dataset_version=dataset_version,
            target=as_target(target),
            evaluators=_specs(evaluators),
            run_evaluators=_specs(run_evaluators),
            baseline_id=baseline_id,
            baseline_name=baseline_name,
            **settings,
        )
        return self._api.post(ExperimentAccepted, "/experiments", body)

    def run_experiment(
        self,
        name: str,
        *,
        dataset: str,
        target: TargetLike,
        evaluators: Sequence[EvaluatorLike] | None = None,
        timeout_s: float = 3600.0,
        **settings: Any,
    ) -> ExperimentOut:
        """:meth:`start_experiment`, then :meth:`wait` for it: the finished experiment with its
        aggregates (and its comparison, when a baseline was given)."""
        accepted = self.start_experiment(
            name, dataset=dataset, target=target, evaluators=evaluators, **settings
        )
        return self.wait(accepted.id, timeout_s=timeout_s)

    def stream(self, experiment_id: str, *, timeout_s: float | None = None) -> Iterator[ExperimentEvent]:
        """Live events of one experiment (``GET /experiments/{id}/events``): its state now, then each
        progress event, ending after ``completed``, ``failed`` or ``cancelled``. ``TimeoutError``
        after ``timeout_s`` without the end."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        lines = self._api.event_lines(f"/experiments/{segment(experiment_id)}/events", deadline)
        for event in parse_sse(lines):
            yield event
            if event.kind in TERMINAL_STATUSES:
                return

    def wait(
        self,
        experiment_id: str,
        *,
        timeout_s: float = 3600.0,
        on_event: Callable[[ExperimentEvent], None] | None = None,
    ) -> ExperimentOut:
        """Follow the experiment's events until it is over; returns it (``TimeoutError`` after
        ``timeout_s``). A broken event stream is reopened. ``on_event`` sees every event (e.g. to
        draw a progress bar)."""
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"experiment {experiment_id} not finished after {timeout_s:g}s")
            try:
                for event in self.stream(experiment_id, timeout_s=remaining):
                    if on_event is not None:
                        on_event(event)
            except ApiError as exc:
                if exc.status is not None:  # the API refused (404 …): reopening will not help
                    raise
                time.sleep(RECONNECT_PAUSE_S)
            experiment = self.get_experiment(experiment_id)
            if experiment.status in TERMINAL_STATUSES:
                return experiment

    def get_experiment(self, experiment_id: str) -> ExperimentOut:
        return self._api.get(ExperimentOut, f"/experiments/{segment(experiment_id)}")

    def list_experiments(
        self,
        *,
        name: str | None = None,
        dataset: str | None = None,
        status: ExperimentStatus | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> ExperimentList:
        """Newest first."""
        params = {"name": name, "dataset": dataset, "status": status, "limit": limit, "offset": offset}
        return ExperimentList(self._api.get_list(ExperimentOut, "/experiments", **params))

    def delete_experiment(self, experiment_id: str) -> None:
        """Delete a finished experiment with its items, scores and comparisons (409 while it runs)."""
        self._api.delete(f"/experiments/{segment(experiment_id)}")

    def rescore(
        self,
        experiment_id: str,
        *,
        evaluators: Sequence[EvaluatorLike] | None = None,
        run_evaluators: Sequence[EvaluatorLike] | None = None,
        name: str | None = None,
        judge_cache: bool = True,
    ) -> ExperimentAccepted:
        """Score a finished experiment's stored outputs again (no target call) with these evaluators
        (default: the source's); returns the new experiment at once, like :meth:`start_experiment`.
        ``judge_cache=False``: every LLM judge asks its model (no verdict reused)."""
        body = RescoreCreate(
            evaluators=_specs(evaluators),
            run_evaluators=_specs(run_evaluators),
            name=name,
            judge_cache=judge_cache,
        )
        return self._api.post(ExperimentAccepted, f"/experiments/{segment(experiment_id)}/rescore", body)

    def items(
        self,
        experiment_id: str,
        *,
        status: ItemStatus | None = None,
        failing: str | None = None,
        category: str | None = None,
    ) -> ItemList:
        """Every item of the experiment (all pages), optionally only those with ``status``, those
        failing the metric ``failing``, or of one ``category``."""
        found = ItemList()
        while True:
            page = self.items_page(
                experiment_id, status=status, failing=failing, category=category, offset=len(found)
            )
            found.extend(page.items)
            if not page.items or len(found) >= page.total:
                return found

    def items_page(
        self,
        experiment_id: str,
        *,
        status: ItemStatus | None = None,
        failing: str | None = None,
        category: str | None = None,
        offset: int = 0,
        limit: int = ITEMS_PAGE,
    ) -> ItemsPage:
        """One page of :meth:`items`, with the total that match."""
        path = f"/experiments/{segment(experiment_id)}/items"
        return self._api.get(
            ItemsPage, path, status=status, failing=failing, category=category, offset=offset, limit=limit
        )

    def failures(self, experiment_id: str, *, limit: int = 10) -> ExperimentFailures:
        """Target errors grouped by message, then the worst failing scores."""
        return self._api.get(
            ExperimentFailures, f"/experiments/{segment(experiment_id)}/failures", limit=limit
        )

    def cancel(self, experiment_id: str) -> ExperimentOut:
        return self._api.post(ExperimentOut, f"/experiments/{segment(experiment_id)}/cancel")

    def report(self, experiment_id: str) -> ExperimentDocument:
        """The experiment's report as data (what ``yardstick report --format json`` prints)."""
        return self._api.get(
            ExperimentDocument, f"/experiments/{segment(experiment_id)}/report", format="json"
        )

    def report_text(self, experiment_id: str, format: ReportFormat = "md") -> str:
        """The report as markdown, JSON or JUnit XML."""
        path = f"/experiments/{segment(experiment_id)}/report"
        return self._api.request("GET", path, params={"format": format}).text

    # ---- comparisons -------------------------------------------------------------------------

    def compare(
        self,
        baseline_id: str,
        candidate_id: str,
        *,
        metrics: Sequence[str] | None = None,
        thresholds: Mapping[str, float | str] | None = None,
        primary: Sequence[str] | None = None,
        multiplicity: Literal["westfall_young", "holm"] = "westfall_young",
        must_pass_categories: Sequence[str] = (),
        alpha: float = 0.05,
        gate: Literal["point", "ci"] = "point",
        gates: Sequence[Gate | str] = (),
        judge: PairwiseJudgeSpec | Mapping[str, Any] | None = None,
        wait: bool = True,
        timeout_s: float = 24 * 3600.0,
        on_progress: Callable[[PairwiseJudging], None] | None = None,
    ) -> ComparisonOut:
        """Compare two completed experiments item by item: the items that broke, per metric the delta,
        its interval, the paired test and a verdict; ``regression`` is True when a must-pass item
        broke or a primary metric regressed (``primary``: the metrics that gate; ``thresholds``:
        ``{"latency_ms": "+20%"}`` or signed deltas; ``multiplicity``: ``"holm"`` for Holm). ``gates``:
        absolute gates on the candidate's means, such as ``"order_correctness>=0.9"``. ``judge``:
        also judge every matched pair with ``llm_pairwise`` (``{"criteria": …, "judge_model": …}``),
        in both orders; the report's ``pairwise`` has win/tie/loss rates with intervals. The judging
        runs in the background on the coordinator: with ``wait`` (default) this returns when it is
        over (see :meth:`wait_comparison`), else at once with ``judging.status == "judging"``."""
        body = ComparisonCreate(
            baseline_id=baseline_id,
            candidate_id=candidate_id,
            metrics=None if metrics is None else list(metrics),
            thresholds=dict(thresholds or {}),
            primary=None if primary is None else list(primary),
            multiplicity=multiplicity,
            must_pass_categories=list(must_pass_categories),
            alpha=alpha,
            gates=[Gate.model_validate(g) for g in gates],
            gate=gate,
            judge=None if judge is None else PairwiseJudgeSpec.model_validate(judge),
        )
        created = self._api.post(ComparisonOut, "/comparisons", body)
        if not wait or created.judging is None:
            return created
        return self.wait_comparison(created.id, timeout_s=timeout_s, on_progress=on_progress)

    def wait_comparison(
        self,
        comparison_id: str,
        *,
        timeout_s: float = 24 * 3600.0,
        on_progress: Callable[[PairwiseJudging], None] | None = None,
    ) -> ComparisonOut:
        """The comparison once its pairwise judging is over (``done`` or ``failed``), asking every
        second; ``on_progress`` sees each answer's ``judging``. ``TimeoutError`` after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            comparison = self.get_comparison(comparison_id)
            judging = comparison.judging
            if judging is not None and on_progress is not None:
                on_progress(judging)
            if judging is None or judging.status != "judging":
                return comparison
            if time.monotonic() > deadline:
                raise TimeoutError(f"comparison {comparison_id} still judging after {timeout_s:g}s")
            time.sleep(COMPARISON_POLL_S)  # the coordinator's progress is polled (no event stream)

    def plan(
        self,
        experiment_id: str,
        metric: str,
        drop: float,
        *,
        alpha: float = 0.05,
        power: float = 0.8,
        family_size: int | None = None,
        correlation: float = 0.5,
    ) -> PowerPlan:
        """How many items a comparison needs to detect a change ``drop`` of ``metric``, from this
        run's spread (or pass rate), and what the run's own size can detect."""
        body = PlanCreate(
            experiment_id=experiment_id,
            metric=metric,
            drop=drop,
            alpha=alpha,
            power=power,
            family_size=family_size,
            correlation=correlation,
        )
        return self._api.post(PowerPlan, "/plans", body)

    def get_comparison(self, comparison_id: str) -> ComparisonOut:
        return self._api.get(ComparisonOut, f"/comparisons/{segment(comparison_id)}")

    def comparison_text(self, comparison_id: str, format: ReportFormat = "md") -> str:
        """A comparison as markdown (or JUnit XML)."""
        return self._api.request(
            "GET", f"/comparisons/{segment(comparison_id)}", params={"format": format}
        ).text

    # ---- web UI ------------------------------------------------------------------------------

    def audit(
        self, *, action: AuditAction | None = None, object_id: str | None = None, limit: int = 100
    ) -> list[AuditEntry]:
        """Recorded changes (who deleted, revoked, moved, promoted what), newest first (admin keys)."""
        return self._api.get_list(AuditEntry, "/audit", action=action, object_id=object_id, limit=limit)

    def sign_in_link(self, path: str = "/ui/experiments") -> str:
        """A one-time link (single use, valid a few minutes) that signs in to the web UI and lands
        on ``path``."""
        created = self._api.post(SignInLinkOut, "/ui-links", SignInLinkCreate(path=path))
        return f"{self.url}{created.url}"
