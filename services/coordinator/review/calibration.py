"""A review queue's calibration report: read the labelled items, the population the queue was drawn
from (for the human-scale estimates) and the specs, compute (``shared.analysis.calibration``)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.review import store as review
from services.coordinator.review.store.calibration import calibration_items, population, specs_for
from shared.analysis import calibrate
from shared.evaluators.registry import EvaluatorRegistry
from yardstick.api.calibration import CalibrationReport
from yardstick.api.review import RubricField


class UnknownField(CoordinatorError):
    status_code = 422


def _field(fields: list[RubricField], name: str | None) -> RubricField:
    if name is None:
        numeric = [f for f in fields if f.numeric]
        return numeric[0] if numeric else fields[0]
    found = next((f for f in fields if f.name == name), None)
    if found is None:
        raise UnknownField(
            f"the queue's rubric has no field {name!r}: it has {', '.join(f.name for f in fields)}"
        )
    return found


async def calibration_report(
    session: AsyncSession,
    registry: EvaluatorRegistry,
    queue_ref: str,
    field_name: str | None,
    evaluator: str | None,
    against: str | None,
) -> CalibrationReport:
    queue = await review.get_queue(session, queue_ref)
    rubric_field = _field(queue.definition.rubric.fields, field_name)
    items = await calibration_items(session, queue, rubric_field.name)
    specs = await specs_for(session, queue, registry)
    judges = [name for name in (evaluator, against) if name]
    return calibrate(
        rubric_field,
        items,
        evaluator,
        specs.spec(evaluator) if evaluator else None,
        against=against,
        against_spec=specs.spec(against) if against else None,
        population=(
            await population(session, queue, rubric_field.name, judges)
            if judges and rubric_field.numeric
            else None
        ),
    )
