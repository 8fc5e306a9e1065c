"""The chat API ("production" traffic): conversations with the drive-thru agent. Its errors are
``ProblemError``s, each with its status, answered as problem details."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request, status
from pydantic import BaseModel, Field, field_validator

from services.agent.conversations import ConversationService, TurnResult
from shared.http.problem_details import ProblemError
from yardstick.api.agent_messages import OrderLine, TrajectoryMessage

MAX_UTTERANCE_CHARS = 2000


class ConversationCreated(BaseModel):
    conversation_id: str


class MessageIn(BaseModel):
    text: str = Field(description=f"What the customer said (1 to {MAX_UTTERANCE_CHARS} characters)")

    @field_validator("text")
    @classmethod
    def _sensible_length(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("text is empty: send what the customer said")
        if len(value) > MAX_UTTERANCE_CHARS:
            raise ValueError(f"text is {len(value)} characters long; the limit is {MAX_UTTERANCE_CHARS}")
        return value


class ChatLine(BaseModel):
    role: Literal["customer", "agent"]
    text: str


class ConversationOut(BaseModel):
    conversation_id: str
    history: list[ChatLine] = Field(description="What the customer and the agent said, in order")
    trajectory: list[TrajectoryMessage] = Field(description="Every message, tool calls included")
    order: list[OrderLine]
    finalized: bool
    turn_count: int


class ServiceNotReadyError(ProblemError, RuntimeError):
    """The service has not finished starting (database / NATS not connected yet)."""

    status_code = 503


def get_conversations(request: Request) -> ConversationService:
    service: ConversationService | None = getattr(request.app.state, "conversations", None)
    if service is None:
        raise ServiceNotReadyError("the agent service is still starting: retry shortly")
    return service


ConversationsDep = Annotated[ConversationService, Depends(get_conversations)]


async def existing_conversation(conversation_id: str, conversations: ConversationsDep) -> str:
    await conversations.ensure_exists(conversation_id)
    return conversation_id


ConversationIdDep = Annotated[str, Depends(existing_conversation)]

router = APIRouter(prefix="/conversations", tags=["conversations"])


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_conversation(conversations: ConversationsDep) -> ConversationCreated:
    return ConversationCreated(conversation_id=await conversations.create())


@router.post("/{conversation_id}/messages")
async def send_message(
    conversation_id: ConversationIdDep, body: MessageIn, conversations: ConversationsDep
) -> TurnResult:
    return await conversations.send(conversation_id, body.text)


@router.get("/{conversation_id}")
async def get_conversation(
    conversation_id: ConversationIdDep, conversations: ConversationsDep
) -> ConversationOut:
    view = await conversations.view(conversation_id)
    history = [
        ChatLine(role="customer" if m.type == "human" else "agent", text=m.content)
        for m in view.messages
        if m.type == "human" or (m.type == "ai" and m.content)
    ]
    return ConversationOut(
        conversation_id=view.conversation_id,
        history=history,
        trajectory=view.messages,
        order=view.order,
        finalized=view.finalized,
        turn_count=view.turn_count,
    )
