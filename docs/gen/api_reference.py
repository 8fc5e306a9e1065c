"""The HTTP API reference, rendered from the coordinator's OpenAPI document.

The app is built as the service builds it (``create_app``) but never started: building it opens
no connection, and ``app.openapi()`` needs only the routes and their models.
"""

from __future__ import annotations

from typing import Any

from docs.gen.json_schema import cell, type_text
from services.coordinator.app import create_app
from services.coordinator.settings import CoordinatorSettings

METHODS = ("get", "post", "put", "patch", "delete")


def openapi_document() -> dict[str, Any]:
    """The coordinator's OpenAPI document (placeholder connection settings: nothing connects)."""
    settings = CoordinatorSettings(
        _env_file=None,
        YARDSTICK_API_KEY_SECRET="docs-build",
        database_url="postgresql+asyncpg://docs@127.0.0.1/docs",
    )
    return create_app(settings).openapi()


def _link(name: str) -> str:
    return f"[{name}](#schema-{name.lower()})"


def _body(op: dict[str, Any]) -> list[str]:
    content = op.get("requestBody", {}).get("content", {})
    return [
        f"**Body** (`{media}`): {type_text(spec.get('schema', {}), _link)}" for media, spec in content.items()
    ]


def _parameters(op: dict[str, Any]) -> list[str]:
    params = op.get("parameters", [])
    if not params:
        return []
    lines = ["| parameter | in | type | required | description |", "|---|---|---|---|---|"]
    for p in params:
        required = "yes" if p.get("required") else "no"
        kind = type_text(p.get("schema", {}), _link)
        lines.append(
            f"| `{p['name']}` | {p['in']} | {kind} | {required} | {cell(p.get('description', ''))} |"
        )
    return [*lines, ""]


def _responses(op: dict[str, Any]) -> list[str]:
    lines = ["| status | meaning | body |", "|---|---|---|"]
    for status, response in op.get("responses", {}).items():
        schemas = [spec.get("schema") for spec in response.get("content", {}).values()]
        bodies = dict.fromkeys(type_text(schema, _link) for schema in schemas if schema)
        lines.append(f"| {status} | {cell(response.get('description', ''))} | {'<br>'.join(bodies)} |")
    return [*lines, ""]


def _operation(path: str, method: str, op: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", "", f"{op.get('summary', '')}.", ""]
    if op.get("description"):
        lines += [op["description"].strip(), ""]
    lines += _parameters(op)
    body = _body(op)
    if body:
        lines += [*body, ""]
    return lines + _responses(op)


def _schema(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### {name} {{#schema-{name.lower()}}}", ""]
    if schema.get("description"):
        lines += [cell(schema["description"]), ""]
    properties = schema.get("properties", {})
    if not properties:
        return [*lines, f"Type: {type_text(schema, _link)}", ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | description |", "|---|---|---|---|"]
    for field, spec in properties.items():
        description = cell(spec.get("description", ""))
        is_required = "yes" if field in required else "no"
        lines.append(f"| `{field}` | {type_text(spec, _link)} | {is_required} | {description} |")
    return [*lines, ""]


def api_page() -> str:
    """The whole HTTP API page: operations grouped by tag, then every schema they use."""
    doc = openapi_document()
    info = doc["info"]
    lines = [
        "# HTTP API",
        "",
        f"{info['title']} {info['version']}, generated from its OpenAPI document when the docs are",
        "built. The running coordinator serves the same document at `/openapi.json` and an",
        "interactive page at `/docs`.",
        "",
        info.get("description", ""),
        "",
        "Every error is an RFC 9457 problem (`application/problem+json`): `detail` says what was",
        "wrong and what to do, `error` names it, `errors` lists field problems with their location.",
        "",
    ]
    by_tag: dict[str, list[str]] = {}
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                tag = (item[method].get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).extend(_operation(path, method, item[method]))
    for tag, operations in by_tag.items():
        lines += [f"## {tag}", "", *operations]
    lines += ["## Schemas", ""]
    for name, schema in sorted(doc.get("components", {}).get("schemas", {}).items()):
        lines += _schema(name, schema)
    return "\n".join(lines)
