"""One door to every LLM Yardstick calls: the judges, the agent, the RAG answerer and dataset
generation build their models here from one :class:`LlmConfig` (``mistral``, ``openai`` = any
OpenAI-compatible endpoint, or ``offline``).

- :func:`llm_config` resolves a provider choice and model name against :class:`LlmSettings`
  (``MISTRAL_API_KEY``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``, ``LLM_*``).
- :class:`StructuredLlm` asks for a pydantic model and never raises for provider trouble: the reply
  is the value, or None with the reason and the raw text; :class:`LlmCallStats` counts tokens,
  requests, retries and response-format fallbacks. It asks for structured output the way
  ``LLM_STRUCTURED_OUTPUT`` says (``json_schema``, then ``json_object`` with the schema, then the
  prompt alone; see :mod:`shared.llm.response_formats`).
- :func:`chat_model` builds the LangChain tool-calling model (``ChatMistralAI`` / ``ChatOpenAI``);
  :func:`counting` counts the requests the OpenAI one sends (its SDK retries out of sight).
- :class:`StructuredModel` gives :class:`StructuredLlm` LangChain's ``with_structured_output`` shape.
"""

from shared.llm.call_stats import LlmCallStats
from shared.llm.chat_models import chat_model
from shared.llm.config import (
    LlmConfig,
    LlmNotConfigured,
    LlmSettings,
    Provider,
    ProviderChoice,
    StructuredOutput,
    llm_config,
)
from shared.llm.json_reply import ReplyUnparsable, parse_reply
from shared.llm.request_count import RequestCount, counting
from shared.llm.response_formats import PROCESS_FORMATS, FormatMemory, ResponseFormat, strict_schema
from shared.llm.structured import StructuredLlm, StructuredReply
from shared.llm.structured_runnable import LlmReplyInvalid, StructuredModel

__all__ = [
    "PROCESS_FORMATS",
    "FormatMemory",
    "LlmCallStats",
    "LlmConfig",
    "LlmNotConfigured",
    "LlmReplyInvalid",
    "LlmSettings",
    "Provider",
    "ProviderChoice",
    "ReplyUnparsable",
    "RequestCount",
    "ResponseFormat",
    "StructuredLlm",
    "StructuredModel",
    "StructuredOutput",
    "StructuredReply",
    "chat_model",
    "counting",
    "llm_config",
    "parse_reply",
    "strict_schema",
]
