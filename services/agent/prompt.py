"""The orchestrator's system prompt: built-in template, rendering from state, and where a named
prompt comes from (Yardstick's registry, or Langfuse when configured)."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.domain import Menu, Order
from shared.db import prompts as prompt_store
from shared.db.project_scope import scope_to_project
from shared.db.session import make_engine, make_session_factory
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.prompts import DEFAULT_LABEL, DEFAULT_PROMPT_NAME, PromptRef

logger = logging.getLogger(__name__)

PROMPT_NAME = DEFAULT_PROMPT_NAME
PROMPT_LABEL = DEFAULT_LABEL
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
    version: str  # "builtin", "<name>@<version>" (registry) or "langfuse:<name>@<version>"


BUILTIN_PROMPT = SystemPrompt(template=BUILTIN_TEMPLATE, version=BUILTIN_VERSION)


class PromptUnavailable(Exception):
    """A prompt an experiment asked for by name does not exist (here or in Langfuse)."""


class PromptSource:
    """Where the template comes from, for a reference (``name@label``, ``name@version``; None: the
    ``production`` label of ``drive-thru/orchestrator``, what the chat API uses).

    Langfuse when both keys are configured (opt-in: with keys and an unreachable host the SDK blocks
    on retries), Yardstick's registry in Postgres otherwise; the same name and label semantics in
    both. Resolved templates are cached for ``ttl_s`` per reference, so a moved label is followed
    within that time. The default reference falls back to the built-in template when nothing is
    registered; a reference an experiment names explicitly must exist (``PromptUnavailable``).
    """

    def __init__(
        self,
        public_key: str | None = None,
        secret_key: str | None = None,
        host: str | None = None,
        ttl_s: float = 60.0,
        database_url: str | None = None,
    ) -> None:
        self._keys = (public_key, secret_key) if public_key and secret_key else None
        self._host = host
        self._ttl_s = ttl_s
        self._database_url = database_url
        self._sessions: async_sessionmaker[AsyncSession] | None = None
        self._cached: dict[str, tuple[float, SystemPrompt | None]] = {}
        self._lock = asyncio.Lock()
        self._client: Any = None

    @property
    def uses_langfuse(self) -> bool:
        return self._keys is not None

    async def get(self, ref: PromptRef | None = None, project: str = DEFAULT_PROJECT) -> SystemPrompt:
        """The template ``ref`` names in ``project``'s registry (Langfuse has no projects here: its
        keys name one Langfuse project)."""
        wanted = ref or PromptRef(name=PROMPT_NAME, label=PROMPT_LABEL)
        cache_key = f"{project}|{wanted}"
        async with self._lock:
            now = time.monotonic()
            hit = self._cached.get(cache_key)
            # A miss is remembered only for the default lookup: a prompt pushed a moment ago and
            # named explicitly by an experiment must be found at once.
            if hit is not None and now - hit[0] < self._ttl_s and (hit[1] is not None or ref is None):
                prompt = hit[1]
            else:
                prompt = await self._lookup(wanted, project, explicit=ref is not None)
                self._cached[cache_key] = (now, prompt)
        if prompt is not None:
            return prompt
        if ref is None:
            return BUILTIN_PROMPT
        raise PromptUnavailable(
            f"prompt {wanted} not found in {'Langfuse' if self._keys else 'the registry'}: push it with "
            f"`yardstick prompts push FILE --name {wanted.name} --label {wanted.selector}`"
        )

    async def _lookup(self, ref: PromptRef, project: str, explicit: bool) -> SystemPrompt | None:
        if self._keys is not None:
            return await asyncio.to_thread(self._fetch_langfuse, ref)
        if not self._database_url:
            return None
        try:
            if self._sessions is None:
                self._sessions = make_session_factory(make_engine(self._database_url, pool_size=2))
            async with self._sessions() as session:
                scope_to_project(session, project)
                row = await prompt_store.resolve(session, ref)
        except Exception as exc:  # the registry unreachable: say so, answer with what we can
            if explicit:
                raise PromptUnavailable(f"prompt registry unreachable for {ref}: {exc}") from exc
            logger.warning("prompt registry unreachable, using the built-in prompt: %s", exc)
            return None
        if row is None:
            return None
        return SystemPrompt(template=row.template, version=f"{row.name}@{row.version}")

    def _fetch_langfuse(self, ref: PromptRef) -> SystemPrompt | None:
        assert self._keys is not None
        try:
            from langfuse import Langfuse

            if self._client is None:
                self._client = Langfuse(
                    public_key=self._keys[0], secret_key=self._keys[1], host=self._host, tracing_enabled=False
                )
            selector: dict[str, Any] = (
                {"version": ref.version} if ref.version is not None else {"label": ref.selector}
            )
            fetched: Any = self._client.get_prompt(
                ref.name,
                type="chat",
                fallback=[{"role": "system", "content": BUILTIN_TEMPLATE}],
                max_retries=1,
                fetch_timeout_seconds=5,
                **selector,
            )
        except Exception as exc:  # the SDK raises many kinds; the fallback is the documented answer
            logger.warning("Langfuse prompt fetch failed for %s: %s", ref, exc)
            return None
        if getattr(fetched, "is_fallback", False):
            logger.warning("Langfuse returned the fallback prompt for %s (%s unreachable?)", ref, self._host)
            return None
        return SystemPrompt(
            template=_system_text(fetched.prompt), version=f"langfuse:{ref.name}@{fetched.version}"
        )


def _system_text(prompt: Any) -> str:
    """A chat prompt's system message, or a text prompt as is."""
    if isinstance(prompt, list):
        for message in prompt:
            if isinstance(message, dict) and message.get("role") == "system":
                return str(message.get("content", ""))
        return BUILTIN_TEMPLATE
    return str(prompt)
