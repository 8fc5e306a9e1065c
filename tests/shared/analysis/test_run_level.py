"""RunLevelEvaluation (run-level evaluators over columns) against the registry's evaluators.

Every test runs the same items both ways: the column path (``columns_from_items`` + one metric's
values at a time, as the finalizer feeds it) and ``run_run_evaluators`` over the full item results
(as ``load_run`` builds them), and asserts the evaluations are equal: names, values, comments,
metadata, errors and order. It also checks when the full results are loaded: never for the
built-ins, once for anything else.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Coroutine, Iterable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.analysis.aggregates import DEFAULT_BREAKDOWN_KEYS
from shared.analysis.columns import columns_from_items, item_metric_values
from shared.analysis.run_level import RunLevelEvaluation, metadata_keys
from shared.evaluators.aggregates import MISSING_GROUP
from shared.evaluators.item_results import ItemResult
from tests.evaluator_registry import REGISTRY, run_run_evaluators
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.run_data import ScoredItem

pytestmark = pytest.mark.unit

T = TypeVar("T")

METRICS = ("order_correctness", "tool_call_accuracy", "mrr")
AVG_ORDER = EvaluatorSpec(name="avg_order_correctness")
AVG_MRR = EvaluatorSpec(name="avg_score", args={"score": "mrr"})
BREAKDOWN = EvaluatorSpec(name="score_breakdown")
BUILTIN_SPECS = [AVG_ORDER, AVG_MRR, BREAKDOWN]


def item_result(item: ScoredItem) -> ItemResult:
    """What ``load_run`` gives the registry for one item: its scores as evaluations."""
    return ItemResult(
        item_id=item.item_id,
        trial=item.trial,
        metadata=item.metadata,
        evaluations=[Evaluation(name=name, value=value) for name, value in item.scores.items()],
        status=item.status,
    )


class FullResults:
    """The ``full_results`` callback, counting its calls."""

    def __init__(self, items: Sequence[ScoredItem]) -> None:
        self.results = [item_result(item) for item in items]
        self.calls = 0

    async def __call__(self) -> list[ItemResult]:
        self.calls += 1
        return self.results


def column_keys(specs: Sequence[EvaluatorSpec]) -> list[str]:
    """The metadata columns ``analyse_experiment`` loads for these specs."""
    return list(dict.fromkeys([*DEFAULT_BREAKDOWN_KEYS, *sorted(metadata_keys(specs))]))


async def by_columns(
    specs: Sequence[EvaluatorSpec],
    items: Sequence[ScoredItem],
    keys: Iterable[str] | None = None,
    metric_order: Sequence[str] | None = None,
) -> tuple[list[Evaluation], int]:
    """The column path's evaluations and how often it loaded the full results."""
    columns = columns_from_items("exp-1", "run", items, column_keys(specs) if keys is None else keys)
    evaluation = RunLevelEvaluation(REGISTRY, specs, columns)
    values = item_metric_values(items)
    order = list(reversed(columns.metric_names)) if metric_order is None else metric_order
    assert sorted(order) == columns.metric_names
    for name in order:
        evaluation.add_metric(name, values(name))
    full = FullResults(items)
    return await evaluation.results(full), full.calls


async def by_registry(specs: Sequence[EvaluatorSpec], items: Sequence[ScoredItem]) -> list[Evaluation]:
    return await run_run_evaluators(list(specs), item_results=[item_result(item) for item in items])


def dumps(evaluations: Sequence[Evaluation]) -> list[dict[str, Any]]:
    """As compared between the two paths: a failure's traceback differs by where it was raised."""
    return [evaluation.model_dump(exclude={"failure": {"traceback"}}) for evaluation in evaluations]


async def assert_same(
    specs: Sequence[EvaluatorSpec],
    items: Sequence[ScoredItem],
    *,
    loads: int | None = 0,
    keys: Iterable[str] | None = None,
) -> list[Evaluation]:
    """Both paths agree; the column path loaded the full results ``loads`` times (None: unchecked)."""
    actual, calls = await by_columns(specs, items, keys)
    expected = await by_registry(specs, items)
    assert dumps(actual) == dumps(expected)
    if loads is not None:
        assert calls == loads
    return expected


def mixed_run(seed: int = 7, size: int = 40, trials: int = 2) -> list[ScoredItem]:
    """Items with a few metadata values (some None, some missing, one literally 'unspecified'),
    scores that are fractions, bools, random floats, None or missing, and some error items."""
    rng = random.Random(seed)
    items: list[ScoredItem] = []
    for n in range(size):
        for trial in range(trials):
            metadata: dict[str, Any] = {}
            draw = rng.random()
            if draw < 0.8:
                metadata["category"] = rng.choice(["menu", "upsell", "combo", MISSING_GROUP])
            elif draw < 0.9:
                metadata["category"] = None
            draw = rng.random()
            if draw < 0.6:
                metadata["difficulty"] = rng.choice(["easy", "hard", 3])
            elif draw < 0.75:
                metadata["difficulty"] = None
            if rng.random() < 0.5:
                metadata["tier"] = rng.choice([1, True, "gold"])
            scores: dict[str, float | None] = {}
            for metric in METRICS:
                draw = rng.random()
                if draw < 0.75:
                    if metric == "order_correctness":
                        scores[metric] = rng.choice([0.0, 1 / 3, 2 / 3, 1.0])
                    elif metric == "tool_call_accuracy":
                        scores[metric] = float(rng.random() < 0.7)
                    else:
                        scores[metric] = rng.random()
                elif draw < 0.85:
                    scores[metric] = None
            items.append(
                ScoredItem(
                    item_id=f"item-{n:03d}",
                    trial=trial,
                    status="error" if rng.random() < 0.1 else "ok",
                    metadata=metadata,
                    scores=scores,
                )
            )
    return items


@pytest.fixture
def run_items() -> list[ScoredItem]:
    items = mixed_run()
    # The fixture covers what the tests are about.
    assert any(i.status == "error" and i.scores for i in items)
    assert any(i.metadata.get("category", "") is None for i in items)
    assert any("category" not in i.metadata for i in items)
    assert any(i.metadata.get("category") == MISSING_GROUP for i in items)
    assert any(v is None for i in items for v in i.scores.values())
    assert any(len(i.scores) < len(METRICS) for i in items)
    return items


async def test_avg_order_correctness(run_items: list[ScoredItem]) -> None:
    expected = await assert_same([AVG_ORDER], run_items)
    assert expected[0].value is not None and expected[0].metadata["count"] > 0


@pytest.mark.parametrize("score", ["mrr", "tool_call_accuracy", "order_correctness", "never_scored"])
async def test_avg_score(run_items: list[ScoredItem], score: str) -> None:
    await assert_same([EvaluatorSpec(name="avg_score", args={"score": score})], run_items)


async def test_score_breakdown_default_args(run_items: list[ScoredItem]) -> None:
    expected = await assert_same([BREAKDOWN], run_items)
    assert {e.metadata["key"] for e in expected} == {"category", "difficulty"}
    assert any(e.metadata["group"] == MISSING_GROUP for e in expected)


@pytest.mark.parametrize(
    "keys",
    [
        ["category"],
        ["tier"],
        ["difficulty", "tier", "category"],
        ["query_type"],  # no item has it: every item is 'unspecified'
        [],
    ],
)
async def test_score_breakdown_with_keys(run_items: list[ScoredItem], keys: list[str]) -> None:
    await assert_same([EvaluatorSpec(name="score_breakdown", args={"keys": keys})], run_items)


@pytest.mark.parametrize(
    "scores", [["mrr"], ["order_correctness", "tool_call_accuracy"], ["mrr", "not_a_metric"], []]
)
async def test_score_breakdown_with_scores(run_items: list[ScoredItem], scores: list[str]) -> None:
    await assert_same([EvaluatorSpec(name="score_breakdown", args={"scores": scores})], run_items)
    both = EvaluatorSpec(name="score_breakdown", args={"keys": ["tier", "category"], "scores": scores})
    await assert_same([both], run_items)


async def test_missing_and_none_metadata() -> None:
    items = [
        ScoredItem(item_id="a", status="ok", metadata={"category": None}, scores={"mrr": 1.0}),
        ScoredItem(item_id="b", status="ok", metadata={}, scores={"mrr": 0.5}),
        ScoredItem(item_id="c", status="ok", metadata={"category": MISSING_GROUP}, scores={"mrr": 0.25}),
        ScoredItem(item_id="d", status="ok", metadata={"category": "menu", "difficulty": None}, scores={}),
        ScoredItem(item_id="e", status="ok", metadata={"difficulty": None}, scores={"mrr": 0.0}),
    ]
    # difficulty is present (as None) on some items, so it is one of the default keys
    expected = await assert_same([BREAKDOWN], items)
    assert {e.metadata["key"] for e in expected} == {"category", "difficulty"}
    await assert_same([EvaluatorSpec(name="score_breakdown", args={"keys": ["difficulty"]})], items)
    # no item has either default key: the breakdown is empty
    bare = [ScoredItem(item_id=str(n), status="ok", scores={"mrr": n / 3}) for n in range(3)]
    expected = await assert_same(BUILTIN_SPECS, bare)
    assert expected[-1].name == "score_breakdown" and expected[-1].value is None


async def test_none_and_missing_scores() -> None:
    items = [
        ScoredItem(item_id="a", status="ok", metadata={"category": "x"}, scores={"mrr": None}),
        ScoredItem(item_id="b", status="ok", metadata={"category": "x"}, scores={"order_correctness": None}),
        ScoredItem(item_id="c", status="ok", metadata={"category": "y"}, scores={}),
    ]
    # every metric is named but never has a value
    expected = await assert_same(BUILTIN_SPECS, items)
    assert [e.value for e in expected] == [None, None, None]
    items.append(ScoredItem(item_id="d", status="ok", metadata={"category": "y"}, scores={"mrr": 0.125}))
    await assert_same(BUILTIN_SPECS, items)


async def test_error_items_count_like_any_other() -> None:
    items = [
        ScoredItem(item_id="a", status="ok", metadata={"category": "x"}, scores={"order_correctness": 1.0}),
        ScoredItem(
            item_id="b", status="error", metadata={"category": "x"}, scores={"order_correctness": 0.0}
        ),
        ScoredItem(item_id="c", status="error", metadata={"category": "y"}, error="TargetTimeout"),
    ]
    expected = await assert_same(BUILTIN_SPECS, items)
    assert expected[0].metadata == {"count": 2}


async def test_empty_run() -> None:
    expected = await assert_same(BUILTIN_SPECS, [])
    assert [e.value for e in expected] == [None, None, None]


async def test_no_specs(run_items: list[ScoredItem]) -> None:
    assert await assert_same([], run_items) == []


@pytest.mark.parametrize(
    ("spec", "loads"),
    [
        # refused by the evaluator before looking at any item: the same failure record on both paths
        (EvaluatorSpec(name="avg_score"), 0),
        (EvaluatorSpec(name="avg_score", args={"scores": "mrr"}), 0),
        (EvaluatorSpec(name="avg_score", args={"score": 3}), 0),
        (EvaluatorSpec(name="avg_score", args={"score": ["mrr"]}), 0),
        (EvaluatorSpec(name="score_breakdown", args={"keys": "category"}), 0),
        (EvaluatorSpec(name="score_breakdown", args={"keys": [1]}), 0),
        (EvaluatorSpec(name="score_breakdown", args={"scores": "mrr"}), 0),
        # a repeated key counts once
        (EvaluatorSpec(name="score_breakdown", args={"keys": ["category", "category"]}), 0),
        # an 'item_results' argument never replaces the run's items
        (EvaluatorSpec(name="avg_order_correctness", args={"item_results": []}), 0),
        (EvaluatorSpec(name="avg_score", args={"score": "mrr", "item_results": []}), 0),
        # unknown arguments are refused (submission refuses them first): the same failure record
        (EvaluatorSpec(name="avg_order_correctness", args={"unused": True}), 0),
        (EvaluatorSpec(name="score_breakdown", args={"keys": None, "scores": None, "x": 1}), 0),
        # not registered: the registry's failure record (whether it loads the items is not the point)
        (EvaluatorSpec(name="no_such_run_evaluator"), None),
    ],
)
async def test_unusual_args_match_the_registry(
    run_items: list[ScoredItem], spec: EvaluatorSpec, loads: int | None
) -> None:
    expected = await assert_same([AVG_ORDER, spec, AVG_MRR], run_items, loads=loads)
    if spec.name == "avg_score" and "score" not in spec.args:
        assert expected[1].error is not None and expected[1].error.startswith("EvaluatorArgumentsError: ")


async def test_non_builtin_evaluators_get_the_full_results_loaded_once(
    run_items: list[ScoredItem], item_ids_evaluator: list[list[ItemResult]]
) -> None:
    specs = [
        AVG_ORDER,
        EvaluatorSpec(name="item_ids", args={"tag": "first"}),
        BREAKDOWN,
        EvaluatorSpec(name="item_ids", args={"tag": "second"}),
        AVG_MRR,
    ]
    expected = await assert_same(specs, run_items, loads=1)
    assert [e.name for e in expected if e.name == "item_ids"] == ["item_ids", "item_ids"]
    # twice by each path, every time every item in item order
    assert len(item_ids_evaluator) == 4
    assert all(seen == item_ids_evaluator[-1] for seen in item_ids_evaluator)
    assert [(r.item_id, r.trial) for r in item_ids_evaluator[0]] == [(i.item_id, i.trial) for i in run_items]


async def test_only_builtins_never_load_full_results(run_items: list[ScoredItem]) -> None:
    specs = [
        *BUILTIN_SPECS,
        EvaluatorSpec(name="score_breakdown", args={"keys": ["tier"], "scores": ["mrr"]}),
        EvaluatorSpec(name="avg_score", args={"score": "tool_call_accuracy"}),
    ]
    await assert_same(specs, run_items, loads=0)


async def test_metric_order_does_not_matter(run_items: list[ScoredItem]) -> None:
    specs = [*BUILTIN_SPECS, EvaluatorSpec(name="score_breakdown", args={"keys": ["tier"]})]
    forward, _ = await by_columns(specs, run_items, metric_order=sorted(METRICS))
    shuffled = list(METRICS)
    random.Random(3).shuffle(shuffled)
    other, _ = await by_columns(specs, run_items, metric_order=shuffled)
    assert dumps(forward) == dumps(other) == dumps(await by_registry(specs, run_items))


async def test_a_nan_score_value_counts_as_missing_on_both_paths() -> None:
    items = [
        ScoredItem(item_id="a", status="ok", scores={"order_correctness": 1.0}),
        ScoredItem(item_id="b", status="ok", scores={"order_correctness": math.nan}),
    ]
    actual, _ = await by_columns([AVG_ORDER], items)
    expected = await by_registry([AVG_ORDER], items)
    assert dumps(actual) == dumps(expected)
    assert actual[0].value == 1.0 and actual[0].metadata == {"count": 1}


# --- property: random runs and specs ---------------------------------------------------------

CATEGORY_VALUES = st.sampled_from(["menu", "upsell", MISSING_GROUP, None, 7, True])
DIFFICULTY_VALUES = st.sampled_from(["easy", "hard", None, 2])
SCORE_VALUES = st.one_of(
    st.none(),
    st.sampled_from([0.0, 1.0, 0.5, 1 / 3]),
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
)
SPECS = st.lists(
    st.one_of(
        st.just(AVG_ORDER),
        st.sampled_from(METRICS).map(lambda m: EvaluatorSpec(name="avg_score", args={"score": m})),
        st.just(BREAKDOWN),
        st.builds(
            lambda keys, scores: EvaluatorSpec(name="score_breakdown", args={"keys": keys, "scores": scores}),
            st.none() | st.lists(st.sampled_from(["category", "difficulty", "tier"]), unique=True),
            st.none() | st.lists(st.sampled_from([*METRICS, "other"]), unique=True),
        ),
    ),
    max_size=4,
)


@st.composite
def scored_items(draw: st.DrawFn) -> ScoredItem:
    metadata: dict[str, Any] = {}
    for key, values in (("category", CATEGORY_VALUES), ("difficulty", DIFFICULTY_VALUES)):
        if draw(st.booleans()):
            metadata[key] = draw(values)
    if draw(st.booleans()):
        metadata["tier"] = draw(st.sampled_from(["a", "b"]))
    scores = draw(st.dictionaries(st.sampled_from(METRICS), SCORE_VALUES))
    return ScoredItem(
        item_id=f"i{draw(st.integers(0, 10**6))}",
        status=draw(st.sampled_from(["ok", "ok", "ok", "error"])),
        metadata=metadata,
        scores=scores,
    )


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a loop of its own (hypothesis tests are synchronous)."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


@settings(max_examples=200, deadline=None)
@given(items=st.lists(scored_items(), max_size=25), specs=SPECS, data=st.data())
def test_random_runs_match_the_registry(
    items: list[ScoredItem], specs: list[EvaluatorSpec], data: st.DataObject
) -> None:
    metric_names = sorted({m for item in items for m in item.scores})
    order = data.draw(st.permutations(metric_names))
    actual, calls = run_sync(by_columns(specs, items, metric_order=order))
    expected = run_sync(by_registry(specs, items))
    assert dumps(actual) == dumps(expected)
    assert calls == 0
