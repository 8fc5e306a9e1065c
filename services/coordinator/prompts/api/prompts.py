"""The prompt registry: push versions, move labels, resolve a reference (what the agent runs)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from services.coordinator.access.store import audit
from services.coordinator.errors import CoordinatorError
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from shared.db import prompts as prompt_store
from yardstick.api.audit import AuditAction
from yardstick.api.prompts import LABEL_RE, LabelMove, PromptPush, PromptRef, PromptSummary, PromptVersionOut
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/prompts",
    tags=["prompts"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


class PromptNotFound(CoordinatorError):
    status_code = 404


class InvalidPromptRef(CoordinatorError):
    status_code = 422


@router.post("", status_code=201, **needs(Role.RUNNER))
async def push(body: PromptPush, session: SessionDep) -> PromptVersionOut:
    """A new version of the prompt (unless the template is unchanged), with the given labels on it."""
    out = await prompt_store.push_prompt(session, body)
    await session.commit()
    return out


@router.get("", **needs(Role.VIEWER))
async def list_prompts(session: SessionDep) -> list[PromptSummary]:
    return await prompt_store.list_prompts(session)


@router.get("/resolve", **needs(Role.VIEWER))
async def resolve(
    session: SessionDep,
    ref: str = Query(description="NAME, NAME@LABEL or NAME@VERSION (NAME alone: its production label)"),
) -> PromptVersionOut:
    """The version a reference names now: what the agent would run for it."""
    try:
        parsed = PromptRef.parse(ref)
    except ValueError as exc:
        raise InvalidPromptRef(str(exc)) from exc
    row = await prompt_store.resolve(session, parsed)
    if row is None:
        raise PromptNotFound(f"no prompt {parsed}: `yardstick prompts list` shows what there is")
    return await prompt_store.version_out(session, row)


@router.get("/{name:path}/versions", **needs(Role.VIEWER))
async def versions(name: str, session: SessionDep) -> list[PromptVersionOut]:
    rows = await prompt_store.versions(session, name)
    if not rows:
        raise PromptNotFound(
            f"no prompt named {name!r}: push one with `yardstick prompts push FILE --name {name}`"
        )
    return [await prompt_store.version_out(session, row) for row in rows]


@router.put("/{name:path}/labels/{label}", **needs(Role.RUNNER))
async def move_label(
    name: str,
    label: Annotated[str, Path(pattern=LABEL_RE.pattern)],
    body: LabelMove,
    session: SessionDep,
    caller: CallerDep,
) -> PromptVersionOut:
    """Point a label (``production``, ``staging``, …) at a version: the agent follows within its cache TTL."""
    row = await prompt_store.resolve(session, PromptRef(name=name, version=body.version))
    if row is None:
        raise PromptNotFound(f"prompt {name!r} has no version {body.version}")
    before = await prompt_store.resolve(session, PromptRef(name=name, label=label))
    await prompt_store.set_label(session, name, label, body.version)
    audit.record(
        session,
        audit.actor(caller),
        AuditAction.PROMPT_LABEL_MOVE,
        "prompt",
        f"{name}@{label}",
        before=None if before is None else {"version": before.version},
        after={"version": body.version},
    )
    await session.commit()
    return await prompt_store.version_out(session, row)
