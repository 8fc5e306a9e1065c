"""An application instrumented with the real Langfuse SDK as its documentation shows: one question
answered by a ``span`` over a ``generation`` (chat messages in, a message out, model, usage) and a
``tool``, with the user, session, tags and metadata propagated to the trace.

``python -m tests.shared.traces.langfuse_app`` runs it configured only by the SDK's own environment
variables (``LANGFUSE_BASE_URL``, ``LANGFUSE_PUBLIC_KEY``, ``LANGFUSE_SECRET_KEY``) and flushes."""

from __future__ import annotations

from typing import Any

from langfuse import get_client, propagate_attributes

QUESTION = "How much is a burger?"
ANSWER = "A burger is 5 dollars."
MODEL = "gpt-4o-mini"


def answer_question(langfuse: Any) -> None:
    with langfuse.start_as_current_observation(
        as_type="span", name="answer-question", input=QUESTION
    ) as root:
        with propagate_attributes(
            user_id="user-7",
            session_id="conversation-42",
            tags=["production", "menu"],
            metadata={"tier": "gold"},
        ):
            with langfuse.start_as_current_observation(
                as_type="generation",
                name="chat",
                model=MODEL,
                input=[
                    {"role": "system", "content": "You sell burgers."},
                    {"role": "user", "content": QUESTION},
                ],
            ) as generation:
                generation.update(
                    output={"role": "assistant", "content": ANSWER}, usage_details={"input": 21, "output": 9}
                )
            with langfuse.start_as_current_observation(
                as_type="tool", name="get_price", input={"item": "burger"}
            ) as tool:
                tool.update(output={"price": 5})
        root.update(output=ANSWER)


def main() -> None:
    langfuse = get_client()
    answer_question(langfuse)
    langfuse.flush()
    langfuse.shutdown()


if __name__ == "__main__":
    main()
