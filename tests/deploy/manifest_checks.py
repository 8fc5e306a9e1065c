"""Offline validation of deploy/k8s (test support): built-in kinds against the Kubernetes schemas that
``kubernetes-validate`` ships (strict: an unknown field is an error), the custom resources against
their CRDs' OpenAPI schemas vendored in deploy/k8s/schemas (closed the same way: the API server
prunes or, with strict field validation, refuses a field its schema does not name)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
SCHEMAS = K8S / "schemas"
KUBERNETES_VERSION = "1.37.0"

CUSTOM_SCHEMAS = {
    ("keda.sh/v1alpha1", "ScaledObject"): "keda-scaledobject-v1alpha1.json",
    ("postgresql.cnpg.io/v1", "Cluster"): "cnpg-cluster-v1.json",
}


def manifests(folder: Path = K8S) -> list[tuple[str, dict[str, Any]]]:
    """(file name, document) for every non-empty document of every ``*.yaml`` in ``folder``."""
    return [
        (path.name, doc)
        for path in sorted(folder.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


def closed(schema: Any) -> Any:
    """The schema with ``additionalProperties: false`` on every object that lists its properties and
    neither allows more nor preserves unknown fields."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: closed(value) for key, value in schema.items()}
    if (
        isinstance(schema.get("properties"), dict)
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


@cache
def custom_validator(api_version: str, kind: str) -> jsonschema.protocols.Validator:
    schema = closed(json.loads((SCHEMAS / CUSTOM_SCHEMAS[(api_version, kind)]).read_text()))
    validator_class = jsonschema.Draft202012Validator
    validator_class.check_schema(schema)
    return validator_class(schema)


def problems(doc: dict[str, Any]) -> list[str]:
    """What is wrong with one manifest document (empty: valid)."""
    key = (doc.get("apiVersion", ""), doc.get("kind", ""))
    if key in CUSTOM_SCHEMAS:
        validator = custom_validator(*key)
        return [
            f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in validator.iter_errors(doc)
        ]
    try:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"{'/'.join(map(str, exc.path)) or '(root)'}: {exc.message}"]
    except kubernetes_validate.SchemaNotFoundError:
        return [f"no schema for {key[1]} ({key[0]}): vendor its CRD schema in deploy/k8s/schemas"]
    return []
