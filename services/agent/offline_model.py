"""A deterministic chat model that speaks the same tool-calling protocol as the LLM.

It reads the conversation like the LLM would: the menu from the system prompt, the customer's
last utterance, and the tool results since. Each call returns either tool calls (lookups first,
adds only for items a lookup confirmed) or the reply to the customer.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from services.agent import offline_replies as say
from services.agent.tools import ADD_ITEM_TO_ORDER, FINALIZE_ORDER, GET_CURRENT_ORDER, LOOKUP_MENU_ITEM
from services.agent.utterance import Intent, ItemRequest, parse_utterance
from yardstick.api.agent_messages import OfflineBehaviour

OFFLINE_USAGE = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}


def with_usage(reply: AIMessage, identity: str) -> AIMessage:
    """``reply`` reporting usage honestly: no tokens (nothing was billed), under the model name
    ``offline:…`` that marks it as the offline model wherever usage is summed or priced."""
    metadata = {**reply.response_metadata, "model_name": identity}
    return reply.model_copy(update={"usage_metadata": dict(OFFLINE_USAGE), "response_metadata": metadata})


_MENU_LINE = re.compile(r"^- (.+?) \[[a-z-]+\] \(default size: [a-z]+\)\s*$", re.MULTILINE)


class OfflineDriveThruModel(BaseChatModel):
    """Deterministic stand-in for the orchestrator LLM (no network, no key)."""

    behaviour: OfflineBehaviour = OfflineBehaviour()
    tool_names: tuple[str, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "offline-drive-thru"

    @property
    def identity(self) -> str:
        return self.behaviour.identity

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        names = tuple(t.name if isinstance(t, BaseTool) else str(getattr(t, "__name__", t)) for t in tools)
        return self.model_copy(update={"tool_names": names})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.behaviour.simulated_latency_ms:  # BENCHMARK ONLY
            time.sleep(self.behaviour.simulated_latency_ms / 1000)
        reply = with_usage(self.next_message(messages), self.identity)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.behaviour.simulated_latency_ms:  # BENCHMARK ONLY: stands in for network time
            await asyncio.sleep(self.behaviour.simulated_latency_ms / 1000)
        reply = with_usage(self.next_message(messages), self.identity)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def next_message(self, messages: list[BaseMessage]) -> AIMessage:
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        if not humans:
            return AIMessage(content="Welcome! What can I get started for you today?")
        last = humans[-1]
        system = next((m for m in messages if isinstance(m, SystemMessage)), None)
        menu_names = _MENU_LINE.findall(str(system.content)) if system else []
        turn = _Turn(
            prefix=f"t{len(humans)}",
            results={
                str(m.tool_call_id): _json(m.content)
                for m in messages[last + 1 :]
                if isinstance(m, ToolMessage)
            },
            previous_ai=next(
                (str(m.content) for m in reversed(messages[:last]) if isinstance(m, AIMessage) and m.content),
                "",
            ),
        )
        parsed = parse_utterance(
            str(messages[last].content), menu_names, self.behaviour.understand_quantity_words
        )
        intent = parsed.intent
        if intent in (Intent.AFFIRMATIVE, Intent.NEGATIVE) and say.CONFIRM_QUESTION in turn.previous_ai:
            return self._confirmation(turn, intent)
        if intent is Intent.DONE and self.behaviour.simulate_silent_drift:
            return self._confirmation(turn, Intent.AFFIRMATIVE)  # skips the read-back
        if intent in (Intent.DONE, Intent.READBACK):
            summary = turn.results.get(f"{turn.prefix}_order")
            if summary is None:
                return turn.call(GET_CURRENT_ORDER, {}, "order")
            return AIMessage(content=say.readback(summary, confirm=intent is Intent.DONE))
        if intent in (Intent.ORDER, Intent.AVAILABILITY):
            return self._order(turn, parsed.items, answer_only=intent is Intent.AVAILABILITY)
        return AIMessage(content=_canned(intent, menu_names))

    def _confirmation(self, turn: _Turn, intent: Intent) -> AIMessage:
        if intent is Intent.NEGATIVE:
            return AIMessage(content="No problem. I can only add items right now: what else can I get you?")
        result = turn.results.get(f"{turn.prefix}_finalize")
        if result is None:
            farewell = "Thank you! Your order is in. Please pull forward to the window."
            return turn.call(FINALIZE_ORDER, {}, "finalize", farewell)
        return AIMessage(content=str(result.get("error") or "Your order is submitted. Have a great day!"))

    def _order(self, turn: _Turn, requests: list[ItemRequest], answer_only: bool) -> AIMessage:
        lookups = [turn.results.get(f"{turn.prefix}_lookup_{i}") for i in range(len(requests))]
        if all(r is None for r in lookups):
            message = turn.calls()
            for i, request in enumerate(requests):
                turn.add_call(message, LOOKUP_MENU_ITEM, {"item_name": request.name}, f"lookup_{i}")
            return message
        if answer_only:
            return AIMessage(content=_availability_answer(lookups))
        pending = turn.calls()
        notes: list[str] = []
        for i, (request, lookup) in enumerate(zip(requests, lookups, strict=True)):
            found = lookup if lookup and lookup.get("found") else None
            if lookup and not found and lookup.get("ambiguous"):
                if self.behaviour.ambiguous_policy == "guess_first" and lookup.get("suggestions"):
                    guess = turn.results.get(f"{turn.prefix}_guess_{i}")
                    if guess is None:
                        first = str(lookup["suggestions"][0])
                        turn.add_call(pending, LOOKUP_MENU_ITEM, {"item_name": first}, f"guess_{i}")
                        continue
                    found = guess if guess.get("found") else None
                else:
                    choices = say.join_words([str(s) for s in lookup.get("suggestions", [])], "or")
                    notes.append(f"Which {request.name} would you like: {choices}?")
                    continue
            if found is None:
                notes.append(_not_on_menu(request.name, lookup or {}))
                continue
            args, unknown = self._add_args(request, found)
            notes.extend(f"Sorry, '{u}' isn't an option for the {found['name']}." for u in unknown)
            if f"{turn.prefix}_add_{i}" not in turn.results:
                turn.add_call(pending, ADD_ITEM_TO_ORDER, args, f"add_{i}")
        if pending.tool_calls:
            return pending
        return AIMessage(content=_order_reply(turn, len(requests), notes))

    def _add_args(self, request: ItemRequest, found: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        args: dict[str, Any] = {
            "item_id": found["item_id"],
            "item_name": found["name"],
            "category_name": found["category_name"],
            "quantity": request.quantity,
        }
        if request.size:
            args["size"] = request.size
        modifiers: list[dict[str, str]] = []
        unknown: list[str] = []
        if self.behaviour.understand_modifiers:
            for phrase in request.modifiers:
                mapped = say.map_modifier(phrase, list(found.get("available_modifiers", [])))
                if mapped is None:
                    unknown.append(phrase.text)
                elif mapped not in modifiers:
                    modifiers.append(mapped)
        if modifiers:
            args["modifiers"] = modifiers
        return args, unknown


class _Turn:
    """Tool results of the current turn, and deterministic tool-call ids for it."""

    def __init__(self, prefix: str, results: dict[str, dict[str, Any]], previous_ai: str) -> None:
        self.prefix = prefix
        self.results = results
        self.previous_ai = previous_ai

    def calls(self, content: str = "") -> AIMessage:
        return AIMessage(content=content, tool_calls=[])

    def add_call(self, message: AIMessage, name: str, args: dict[str, Any], key: str) -> None:
        message.tool_calls.append(ToolCall(name=name, args=args, id=f"{self.prefix}_{key}", type="tool_call"))

    def call(self, name: str, args: dict[str, Any], key: str, content: str = "") -> AIMessage:
        message = self.calls(content)
        self.add_call(message, name, args, key)
        return message


def _json(content: Any) -> dict[str, Any]:
    try:
        value = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        return {"error": str(content)}
    return value if isinstance(value, dict) else {"value": value}


def _not_on_menu(name: str, lookup: dict[str, Any]) -> str:
    text = f"Sorry, we don't have {name} on our breakfast menu."
    suggestions = [str(s) for s in lookup.get("suggestions", [])]
    return f"{text} How about {say.join_words(suggestions, 'or')}?" if suggestions else text


def _availability_answer(lookups: list[dict[str, Any] | None]) -> str:
    parts = []
    for lookup in filter(None, lookups):
        if lookup.get("found"):
            parts.append(f"Yes, we have the {lookup['name']}.")
        else:
            parts.append(_not_on_menu(str(lookup.get("requested", "that")), lookup))
    return " ".join(parts) + " Would you like to order something?"


def _order_reply(turn: _Turn, count: int, notes: list[str]) -> str:
    keys = [f"{turn.prefix}_add_{i}" for i in range(count)]
    added = [turn.results[key] for key in keys if key in turn.results]
    lines = [say.describe_line(r) for r in added if r.get("added")]
    errors = [f"Sorry, I couldn't add that: {r['error']}." for r in added if not r.get("added")]
    parts = [f"Got it: {say.join_words(lines)}." if lines else "", *errors, *notes]
    if lines:
        parts.append("Anything else?")
    return " ".join(p for p in parts if p) or "What can I get for you?"


def _canned(intent: Intent, menu_names: list[str]) -> str:
    if intent is Intent.GREETING:
        return "Good morning, welcome! What can I get started for you today?"
    if intent is Intent.PRICE:
        return "I don't have prices here, sorry: your total will be at the window."
    if intent is Intent.CHANGE:
        return "Sorry, I can only add items to your order right now. Anything else I can add?"
    if intent is Intent.QUESTION:
        return say.menu_overview(menu_names)
    if intent in (Intent.AFFIRMATIVE, Intent.NEGATIVE):
        return "Okay! What can I get for you?"
    return "Sorry, I didn't catch that. What can I get for you?"
