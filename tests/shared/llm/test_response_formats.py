"""The strict schema sent with a structured call, and the way each setting asks."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from shared.llm import FormatMemory, ResponseFormat, llm_config
from shared.llm.config import LlmConfig
from shared.llm.response_formats import response_format_field, strict_schema

pytestmark = pytest.mark.unit


class Inner(BaseModel):
    default: str = Field(default="x", description="a property that happens to be called 'default'")
    note: str = Field(default="", max_length=80)


class Outer(BaseModel):
    items: list[Inner]
    best: Inner | None = None
    score: float = Field(default=0.0, json_schema_extra={"minimum": 0, "maximum": 1})


def test_every_object_is_closed_with_all_its_properties_required_and_no_defaults() -> None:
    schema = strict_schema(Outer.model_json_schema())
    assert schema["required"] == ["items", "best", "score"] and schema["additionalProperties"] is False
    inner = schema["$defs"]["Inner"]
    assert inner["required"] == ["default", "note"] and inner["additionalProperties"] is False
    assert "default" in inner["properties"]  # the property keeps its name; only default values go
    assert "default" not in inner["properties"]["default"] and "default" not in schema["properties"]["score"]
    assert inner["properties"]["note"] == {"title": "Note", "type": "string"}  # no maxLength in strict mode
    assert (schema["properties"]["score"]["minimum"], schema["properties"]["score"]["maximum"]) == (0, 1)
    assert Outer.model_json_schema()["required"] == ["items"]  # the model's own schema is left alone


def test_an_object_that_chose_its_additional_properties_keeps_them() -> None:
    extra = {"type": "string"}
    schema = strict_schema({"type": "object", "properties": {"a": {}}, "additionalProperties": extra})
    assert schema["additionalProperties"] == {"type": "string"} and schema["required"] == ["a"]


def test_the_request_field_of_each_way() -> None:
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert response_format_field(ResponseFormat.JSON_SCHEMA, "V", schema) == {
        "type": "json_schema",
        "json_schema": {"name": "V", "schema": schema, "strict": True},
    }
    assert response_format_field(ResponseFormat.JSON_OBJECT, "V", schema) == {
        "type": "json_object",
        "schema": schema,
    }
    assert response_format_field(ResponseFormat.TEXT, "V", schema) is None


def _config(setting: str) -> LlmConfig:
    return llm_config("offline", "m").model_copy(update={"structured_output": setting})


def test_auto_falls_back_and_remembers_per_endpoint() -> None:
    memory, auto = FormatMemory(), _config("auto")
    assert memory.first_way(auto) is ResponseFormat.JSON_SCHEMA
    assert memory.next_way(auto, ResponseFormat.JSON_SCHEMA) is ResponseFormat.JSON_OBJECT
    assert memory.next_way(auto, ResponseFormat.JSON_OBJECT) is ResponseFormat.TEXT
    memory.accepted(auto, ResponseFormat.JSON_OBJECT)
    assert memory.first_way(auto) is ResponseFormat.JSON_OBJECT
    assert memory.first_way(auto.model_copy(update={"model": "other"})) is ResponseFormat.JSON_SCHEMA


@pytest.mark.parametrize(
    ("setting", "way"),
    [
        ("json_schema", ResponseFormat.JSON_SCHEMA),
        ("json_object", ResponseFormat.JSON_OBJECT),
        ("off", ResponseFormat.TEXT),
    ],
)
def test_a_named_setting_asks_one_way_and_never_falls_back(setting: str, way: ResponseFormat) -> None:
    memory, pinned = FormatMemory(), _config(setting)
    memory.accepted(_config("auto"), ResponseFormat.TEXT)
    memory.accepted(pinned, ResponseFormat.TEXT)
    assert memory.first_way(pinned) is way and memory.next_way(pinned, way) is None


def test_the_setting_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_STRUCTURED_OUTPUT", "json_object")
    assert llm_config("offline", None).structured_output == "json_object"
    monkeypatch.setenv("LLM_STRUCTURED_OUTPUT", "grammar")
    with pytest.raises(ValueError, match=r"llm_structured_output"):
        llm_config("offline", None)
