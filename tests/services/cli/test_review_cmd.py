"""``yardstick review …`` against a real coordinator: a queue from sampled traces, labelled from the
keyboard (a skip, a wrong answer asked again, a quit), the labels stored as human scores, a bad
field spec exits 2, the reviewed items become a dataset version."""

from __future__ import annotations

import asyncio

import pytest
import typer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from services.cli.review_cmd import parse_field
from shared.online.sampling_config import SamplingSettings, save_config
from tests.services.live_api import Api
from tests.services.sampler.sampled_traces import store, trace_handler
from yardstick import Client


def run(api: Api, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["review", *args], env=api.env, input=stdin)


@pytest.mark.unit
def test_field_specs() -> None:
    assert parse_field("correct:binary") == {"name": "correct", "kind": "binary"}
    assert parse_field("helpfulness:ordinal:1-5")["scale"] == [1, 5]
    assert parse_field("tone:categorical:ok|rude")["options"] == ["ok", "rude"]
    assert parse_field("note:text")["required"] is False
    with pytest.raises(typer.BadParameter, match="needs a scale"):
        parse_field("helpfulness:ordinal")


@pytest.mark.integration
async def test_label_a_queue_from_the_keyboard(
    api: Api, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    async with session_factory() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        await session.commit()
    handler = trace_handler(session_factory)
    for n in range(3):
        assert await store(session_factory, n, handler=handler) == "stored"

    traces = ("--traces", "support-bot")
    bad = await asyncio.to_thread(run, api, "create", "q", *traces, "--field", "x:ordinal:5-1")
    assert bad.exit_code == 2 and "scale" in bad.stderr
    made = await asyncio.to_thread(
        run, api, "create", "q", *traces, "--field", "correct:binary", "--field", "helpfulness:ordinal:1-5"
    )
    assert made.exit_code == 0, made.output
    assert "3 items" in made.stderr

    # item 1: yes, then 9 (refused: outside 1-5) then 4; item 2: skipped; item 3: no, 2; then done.
    labelled = await asyncio.to_thread(
        run, api, "label", "q", "--reviewer", "ann", stdin="y\n9\n4\ns\nn\n2\n"
    )
    assert labelled.exit_code == 0, labelled.output
    assert "2 labelled" in labelled.stderr and "from 1 to 5" in labelled.output
    listed = await asyncio.to_thread(run, api, "list")
    assert "2/3" in listed.stdout

    with Client(api.url, api.key) as client:
        first = client.review.item("q", 1, reviewer="ann")
        assert [label.values for label in first.labels] == [{"correct": True, "helpfulness": 4}]
        assert client.review.item("q", 2, reviewer="ann").labels == []
        assert client.review.next("q", reviewer="ann") == 2
    quitting = await asyncio.to_thread(run, api, "label", "q", "--reviewer", "ann", stdin="q\n")
    assert quitting.exit_code == 0 and "0 labelled" in quitting.stderr

    version = await asyncio.to_thread(run, api, "dataset", "q", "reviewed-turns")
    assert version.exit_code == 0, version.output
    assert "reviewed-turns v1: 2 items" in version.stderr


@pytest.mark.integration
async def test_calibrate_prints_agreement_with_its_interval(
    api: Api, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    tool_called = [{"name": "tool_called", "args": {"tool": "lookup_order"}}]
    async with session_factory() as session:
        config = SamplingSettings.model_validate({"rate": 1.0, "evaluators": tool_called})
        await save_config(session, "default", config)
        await session.commit()
    handler = trace_handler(session_factory)
    for n in range(6):  # every other trace calls another tool than the one asked for
        tool = "refund" if n % 2 else "lookup_order"
        assert await store(session_factory, n, handler=handler, tool=tool) == "stored"
    traces = {"kind": "traces", "application": "support-bot"}
    with Client(api.url, api.key) as client:
        client.review.create("cal", traces, {"fields": [{"name": "ok", "kind": "binary"}]})
        for position in range(1, 7):
            item = client.review.item("cal", position)
            wrong_tool = "refund" in str(item.output)
            client.review.label("cal", position, {"ok": not wrong_tool})
    shown = await asyncio.to_thread(
        lambda: CliRunner().invoke(cli, ["calibrate", "cal", "--evaluator", "tool_called"], env=api.env)
    )
    assert shown.exit_code == 0, shown.output
    assert "tool_called vs people on ok (n = 6)" in shown.stdout
    assert "Cohen's kappa" in shown.stdout and "true-negative rate" in shown.stdout
    assert "people's mean of ok on [0, 1], from tool_called and 6 labels" in shown.stdout
    assert "No prediction-powered estimate: every judged item is labelled" in shown.stdout
    with Client(api.url, api.key) as client:  # four of the six traces labelled: two for the judge alone
        client.review.create(
            "part", {**traces, "sample": 4, "seed": 1}, {"fields": [{"name": "ok", "kind": "binary"}]}
        )
        for position in range(1, 5):
            client.review.label("part", position, {"ok": position != 2})
        report = client.review.calibration("part", evaluator="tool_called")
    part = await asyncio.to_thread(
        lambda: CliRunner().invoke(cli, ["calibrate", "part", "--evaluator", "tool_called"], env=api.env)
    )
    assert part.exit_code == 0, part.output
    result = report.human_scale["tool_called"]
    assert (result.n_labelled, result.n_unlabelled) == (4, 2) and result.estimate is not None
    lines = part.stdout.splitlines()
    for name, estimate in (
        ("prediction-powered (PPI)", result.estimate),
        ("judge only", result.judge_only),
        ("labels only", result.labels_only),
    ):
        assert estimate is not None and estimate.ci_low is not None and estimate.ci_high is not None
        row = next(line for line in lines if name in line)
        assert f"{estimate.value:.3f}" in row and f"[{estimate.ci_low:.3f}, {estimate.ci_high:.3f}]" in row
    assert result.reason.split(":")[0] in part.stdout and "population: the 6 sampled traces" in part.stdout
    unknown = await asyncio.to_thread(lambda: CliRunner().invoke(cli, ["calibrate", "nope"], env=api.env))
    assert unknown.exit_code == 2 and "not found" in unknown.stderr


@pytest.mark.integration
async def test_a_queue_of_an_applications_traces_and_one_from_a_drift_alert(
    api: Api, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    from shared.db.models import DriftAlertRow
    from tests.services.sampler.spans import trace_hex

    async with session_factory() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        alert = DriftAlertRow(
            project_id="default",
            evaluator="tool_called",
            model="gpt-test",
            prompt_version="-",
            reference="previous_window",
            application="support-bot",
            detail={},  # no window: every trace of the application
        )
        session.add(alert)
        await session.commit()
    handler = trace_handler(session_factory)
    for n in range(3):
        assert await store(session_factory, n, handler=handler, error=n == 1) == "stored"

    field = ("--field", "correct:binary")
    both = await asyncio.to_thread(
        run, api, "create", "q", "--experiment", "e", "--traces", "support-bot", *field
    )
    assert both.exit_code == 2 and "give one of" in both.stderr
    stray = await asyncio.to_thread(run, api, "create", "q", "--experiment", "e", "--errors", *field)
    assert stray.exit_code == 2 and "--errors selects traces" in stray.stderr
    unknown = await asyncio.to_thread(run, api, "create", "q", "--traces", "nope", *field)
    assert unknown.exit_code != 0 and "'nope'" in unknown.stderr
    made = await asyncio.to_thread(run, api, "create", "t", "--traces", "support-bot", "--errors", *field)
    assert made.exit_code == 0, made.output
    assert "1 items" in made.stderr
    with Client(api.url, api.key) as client:
        assert client.review.item("t", 1).trace_id == trace_hex(1)
    labelled = await asyncio.to_thread(run, api, "label", "t", "--reviewer", "ann", stdin="n\n")
    assert labelled.exit_code == 0 and f"trace {trace_hex(1)}" in labelled.output
    with Client(api.url, api.key) as client:
        assert client.review.item("t", 1, reviewer="ann").labels[0].values == {"correct": False}

    opened = await asyncio.to_thread(run, api, "alert", alert.id)
    assert opened.exit_code == 0, opened.output
    assert f"drift-{alert.id[:8]}" in opened.stderr and "3 items" in opened.stderr


@pytest.mark.unit
def test_source_options() -> None:
    from services.cli.review_cmd import _source

    def source(**given: object) -> dict[str, object]:
        options: dict[str, object] = {
            "experiment": None,
            "traces": None,
            "failing": None,
            "category": None,
            "since": None,
            "model": None,
            "below": None,
            "alert": None,
            "errors": False,
        }
        return _source(**{**options, **given})  # type: ignore[arg-type]

    traces = source(traces="support-bot", errors=True, below="tool_called=1", alert="a1")
    assert traces == {
        "kind": "traces",
        "application": "support-bot",
        "errors_only": True,
        "model": None,
        "alert_id": "a1",
        "evaluator": "tool_called",
        "below": 1.0,
    }
    assert str(source(traces="app", since="1h")["since"]) > "2026"
    for wrong in ({}, {"alert": "a1"}, {"experiment": "e", "traces": "app"}):  # an alert names no application
        with pytest.raises(typer.BadParameter, match="give one of"):
            source(**wrong)
    with pytest.raises(typer.BadParameter, match="--errors selects traces"):
        source(experiment="e", errors=True)
    with pytest.raises(typer.BadParameter, match="EVALUATOR=VALUE"):
        source(traces="app", below="tool_called")
