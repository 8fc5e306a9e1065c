"""The orchestrator's system prompt: built-in template, rendering from state, and the opt-in
Langfuse prompt (``drive-thru/orchestrator``, label ``production``)."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from services.agent.domain import Menu, Order

logger = logging.getLogger(__name__)

PROMPT_NAME = "drive-thru/orchestrator"
PROMPT_LABEL = "production"
BUILTIN_VERSION = "builtin"

BUILTIN_TEMPLATE = """You are a friendly McDonald's drive-thru assistant taking breakfast orders.

LOCATION: {location_name} — {location_address}

CURRENT MENU:
{menu_items}

CURRENT ORDER:
{current_order}

RULES:
1. Greet the customer warmly when the conversation starts.
2. When a customer orders an item, ALWAYS call lookup_menu_item first to verify it exists.
3. Only call add_item_to_order for items confirmed to exist via lookup_menu_item.
   Pass the exact item_id, item_name, and category_name from the lookup result.
4. If an item isn't found, suggest the alternatives from lookup_menu_item results.
   Do NOT invent alternatives. If the lookup says the name is ambiguous, ask which one they want
   and do not add anything until they tell you.
5. When the customer says they're done, call get_current_order, read back the
   full order, and ask them to confirm.
6. Only call finalize_order AFTER the customer confirms their order.
7. Handle multiple items in a single request — call lookup_menu_item for each,
   then add_item_to_order for each confirmed item.
8. Keep responses concise and friendly — this is a drive-thru, not a sit-down restaurant.
9. Answer menu questions from the CURRENT MENU above. Do NOT make up items.
10. You do NOT have access to prices. Do not quote prices or totals.
    Say "your total will be at the window" if asked.
11. If the customer asks to remove or change an item, explain you can only
    add items right now.
12. When adding modifiers, only use modifiers from the item's available_modifiers
    list returned by lookup_menu_item. Do not accept modifiers that aren't
    available for that item.
13. Sizes are: snack, small, medium, large, regular. If the customer doesn't
    specify a size, do not ask — the item's default size will be used automatically.
"""

_PLACEHOLDERS = ("location_name", "location_address", "menu_items", "current_order")


def menu_lines(menu: Menu) -> str:
    return "\n".join(
        f"- {item.name} [{item.category_name.value}] (default size: {item.default_size.value})"
        for item in menu.items
    )


def order_lines(order: Order) -> str:
    lines = []
    for item in order.items:
        size = (item.size or item.default_size).value
        line = f"- {item.quantity}x {item.name} ({size})"
        if item.modifiers:
            line += f" [{', '.join(m.name for m in item.modifiers)}]"
        lines.append(line)
    return "\n".join(lines) or "Empty"


def render_system_prompt(template: str, menu: Menu, order: Order) -> str:
    """Fill the known placeholders (``{name}`` or Langfuse's ``{{name}}``); other braces stay."""
    values = {
        "location_name": menu.location.name,
        "location_address": menu.location.one_line_address,
        "menu_items": menu_lines(menu),
        "current_order": order_lines(order),
    }
    text = template
    for key in _PLACEHOLDERS:
        text = text.replace("{{" + key + "}}", values[key]).replace("{" + key + "}", values[key])
    return text


@dataclass(frozen=True)
class SystemPrompt:
    template: str
    version: str  # "builtin" or "langfuse:<version>"


BUILTIN_PROMPT = SystemPrompt(template=BUILTIN_TEMPLATE, version=BUILTIN_VERSION)


class PromptSource:
    """Where the template comes from. Langfuse only when both keys are configured (opt-in: with
    keys and an unreachable host the SDK blocks on retries), cached for ``ttl_s``; any failure
    falls back to the built-in template."""

    def __init__(
        self,
        public_key: str | None = None,
        secret_key: str | None = None,
        host: str | None = None,
        ttl_s: float = 60.0,
    ) -> None:
        self._keys = (public_key, secret_key) if public_key and secret_key else None
        self._host = host
        self._ttl_s = ttl_s
        self._cached: tuple[float, SystemPrompt] | None = None
        self._lock = asyncio.Lock()
        self._client: Any = None

    @property
    def uses_langfuse(self) -> bool:
        return self._keys is not None

    async def get(self) -> SystemPrompt:
        if self._keys is None:
            return BUILTIN_PROMPT
        async with self._lock:
            now = time.monotonic()
            if self._cached is not None and now - self._cached[0] < self._ttl_s:
                return self._cached[1]
            prompt = await asyncio.to_thread(self._fetch)
            self._cached = (now, prompt)
            return prompt

    def _fetch(self) -> SystemPrompt:
        assert self._keys is not None
        try:
            from langfuse import Langfuse

            if self._client is None:
                self._client = Langfuse(
                    public_key=self._keys[0], secret_key=self._keys[1], host=self._host, tracing_enabled=False
                )
            fetched: Any = self._client.get_prompt(
                PROMPT_NAME,
                label=PROMPT_LABEL,
                type="chat",
                fallback=[{"role": "system", "content": BUILTIN_TEMPLATE}],
                max_retries=1,
                fetch_timeout_seconds=5,
            )
        except Exception as exc:  # the SDK raises many kinds; the fallback is the documented answer
            logger.warning("Langfuse prompt fetch failed, using the built-in prompt: %s", exc)
            return BUILTIN_PROMPT
        if getattr(fetched, "is_fallback", False):
            logger.warning("Langfuse returned the fallback prompt (%s unreachable?)", self._host)
            return BUILTIN_PROMPT
        return SystemPrompt(template=_system_text(fetched.prompt), version=f"langfuse:{fetched.version}")


def _system_text(prompt: Any) -> str:
    """A chat prompt's system message, or a text prompt as is."""
    if isinstance(prompt, list):
        for message in prompt:
            if isinstance(message, dict) and message.get("role") == "system":
                return str(message.get("content", ""))
        return BUILTIN_TEMPLATE
    return str(prompt)
