"""/ui/review: the project's queues; /ui/review/{queue}: the next item for you;
/ui/review/{queue}/{n}: one item with the rubric, labelled from the keyboard (saved at once)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from services.coordinator.access.store import audit
from services.coordinator.http.deps import RuntimeDep, SessionDep
from services.coordinator.review import store as review
from services.coordinator.review.calibration import calibration_report
from services.coordinator.ui.session import RunnerDep, UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.calibration import agreement_view, human_scale_views
from services.coordinator.ui.views.review import review_page
from yardstick.api.limits import INT4_MAX
from yardstick.api.review import LabelIn

router = APIRouter()

Position = Annotated[int, Path(ge=1, le=INT4_MAX)]


@router.get("/review", response_class=HTMLResponse)
async def queues_page(request: Request, ui: UiSessionDep, session: SessionDep) -> HTMLResponse:
    return render(
        request, "review_queues.html", ui=ui, section="review", queues=await review.list_queues(session)
    )


@router.get("/review/{queue}", response_class=HTMLResponse)
async def next_for_me(queue: str, request: Request, ui: UiSessionDep, session: SessionDep) -> Response:
    row = await review.get_queue(session, queue)
    position = await review.next_position(session, row, ui.key_name)
    if position is not None:
        return RedirectResponse(f"/ui/review/{row.id}/{position}", status_code=303)
    return render(
        request, "review_done.html", ui=ui, section="review", queue=await review.queue_out(session, row)
    )


@router.get("/review/{queue}/calibration", response_class=HTMLResponse)
async def calibration_page(
    queue: str,
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    runtime: RuntimeDep,
    field: Annotated[str | None, Query(max_length=40)] = None,
    evaluator: Annotated[str | None, Query(max_length=100)] = None,
    against: Annotated[str | None, Query(max_length=100)] = None,
) -> HTMLResponse:
    report = await calibration_report(
        session, runtime.registry, queue, field or None, evaluator or None, against or None
    )
    return render(
        request,
        "review_calibration.html",
        ui=ui,
        section="review",
        queue=await review.queue_out(session, await review.get_queue(session, queue)),
        report=report,
        against=against,
        judge=agreement_view(report.judge_vs_human),
        people=agreement_view(report.between_reviewers),
        human_scale=human_scale_views(report),
    )


@router.get("/review/{queue}/{position}", response_class=HTMLResponse)
async def item_page(
    queue: str, position: Position, request: Request, ui: UiSessionDep, session: SessionDep
) -> HTMLResponse:
    row = await review.get_queue(session, queue)
    item = await review.item_view(session, row, position, ui.key_name)
    following = await review.next_position(session, row, ui.key_name, position)
    return render(
        request,
        "review_item.html",
        ui=ui,
        section="review",
        page=review_page(await review.queue_out(session, row), item, ui.key_name),
        next_position=following,
    )


@router.post("/review/{queue}/{position}/label")
async def label(
    queue: str, position: Position, request: Request, ui: RunnerDep, session: SessionDep
) -> Response:
    """The page's script posts the label as JSON (``LabelIn``, with the CSRF header); the answer
    is the stored label, and ``X-Next`` the page to go to next."""
    row = await review.get_queue(session, queue)
    try:
        body = LabelIn.model_validate_json(await request.body())
    except ValidationError as exc:
        raise review.InvalidLabel(
            f"the label is not a JSON object of field values: {exc.errors()[0]['msg']}"
        ) from exc
    saved, before = await review.put_label(session, row, position, body, ui.key_name)
    audit.record_label(session, ui.actor, row.name, position, ui.key_name, before, saved.values)
    await session.commit()
    following = await review.next_position(session, row, ui.key_name, position)
    return Response(
        saved.model_dump_json(),
        media_type="application/json",
        headers={"X-Next": f"/ui/review/{row.id}/{following}" if following else f"/ui/review/{row.id}"},
    )
