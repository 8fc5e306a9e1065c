"""Which calls share one provider limit: the identity of a target, hashed into a KV key token."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from yardstick.api.eval_messages import AgentTarget, HttpTarget, PythonTarget, TargetSpec


def target_identity(spec: TargetSpec) -> str:
    """``http``: scheme, host, port and path of the URL (not the query, method or headers), so every
    experiment calling one endpoint shares its limit; ``agent``: its model's provider and name (the
    limit an agent meets is its model's); other kinds: the kind (and a python target's name)."""
    if isinstance(spec, HttpTarget):
        parts = urlsplit(spec.url)
        host = (parts.hostname or "").lower()
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return f"http {parts.scheme}://{host}:{port}{parts.path or '/'}"
    if isinstance(spec, AgentTarget):
        return f"agent {spec.model.provider}:{spec.model.name or 'default'}"
    if isinstance(spec, PythonTarget):
        return f"python {spec.name}"
    return spec.kind


def throttle_key(spec: TargetSpec) -> str:
    """A KV-key-safe token for the target's identity."""
    return identity_key(target_identity(spec))


def identity_key(identity: str) -> str:
    """A KV-key-safe token for any identity (a target's, a judge's provider's): the first 32 hex
    digits of its SHA-256."""
    return hashlib.sha256(identity.encode()).hexdigest()[:32]
