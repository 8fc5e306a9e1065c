"""``yardstick review …`` against a real coordinator: a queue from sampled traffic, labelled from the
keyboard (a skip, a wrong answer asked again, a quit), the labels stored as human scores, a bad
field spec exits 2, the reviewed items become a dataset version."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
import typer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from services.cli.review_cmd import parse_field
from services.sampler.turn_handler import TurnHandler
from shared.online.sampling_config import SamplingSettings, save_config
from tests.services.live_api import Api
from tests.services.sampler.turns import make_turn
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
    handler = TurnHandler(session_factory)
    for n in range(3):
        assert await handler.handle(make_turn(f"conv-{n}", at=datetime.now(UTC))) == "stored"

    bad = await asyncio.to_thread(run, api, "create", "q", "--online", "--field", "x:ordinal:5-1")
    assert bad.exit_code == 2 and "scale" in bad.stderr
    made = await asyncio.to_thread(
        run, api, "create", "q", "--online", "--field", "correct:binary", "--field", "helpfulness:ordinal:1-5"
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
    async with session_factory() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        await session.commit()
    handler = TurnHandler(session_factory)
    for n in range(6):
        await handler.handle(
            make_turn(f"c-{n}", item_id="big-mac" if n % 2 else "egg-mcmuffin", at=datetime.now(UTC))
        )
    with Client(api.url, api.key) as client:
        client.review.create("cal", {"kind": "online"}, {"fields": [{"name": "ok", "kind": "binary"}]})
        for position in range(1, 7):
            item = client.review.item("cal", position)
            hallucinated = "big-mac" in str(item.output)
            client.review.label("cal", position, {"ok": not hallucinated})
    shown = await asyncio.to_thread(
        lambda: CliRunner().invoke(
            cli, ["calibrate", "cal", "--evaluator", "no_hallucinated_items"], env=api.env
        )
    )
    assert shown.exit_code == 0, shown.output
    assert "no_hallucinated_items vs people on ok (n = 6)" in shown.stdout
    assert "Cohen's kappa" in shown.stdout and "true-negative rate" in shown.stdout
    unknown = await asyncio.to_thread(lambda: CliRunner().invoke(cli, ["calibrate", "nope"], env=api.env))
    assert unknown.exit_code == 2 and "not found" in unknown.stderr
