"""Which services the launcher starts, in which order, on which ports."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    module: str
    port_offset: int
    replicas: int = 1
    grpc_port_offset: int | None = None
    """A second port, for OTLP over gRPC (the ingest; one replica)."""
    more_port_offset: int | None = None
    """Where the replicas after the first are (when the ports after the first's are taken)."""

    def offset(self, index: int) -> int:
        """The port offset of replica ``index``."""
        if index == 0 or self.more_port_offset is None:
            return self.port_offset + index
        return self.more_port_offset + index - 1

    def exists(self) -> bool:
        try:
            return importlib.util.find_spec(self.module) is not None
        except ModuleNotFoundError:  # the service's package is not there at all
            return False


def port_base() -> int:
    return int(os.environ.get("YARDSTICK_PORT_BASE", "8700"))


def nats_port() -> int:
    return int(os.environ.get("YARDSTICK_NATS_PORT", "14222"))


def eval_worker_replicas() -> int:
    return int(os.environ.get("YARDSTICK_EVAL_WORKERS", "2"))


def sampler_replicas() -> int:
    """``YARDSTICK_SAMPLERS`` sampler processes (1): they share the spans' durable consumer."""
    return int(os.environ.get("YARDSTICK_SAMPLERS", "1"))


def service_specs() -> list[ServiceSpec]:
    """Start order: targets first, then the workers that call them, then the coordinator."""
    return [
        ServiceSpec("agent", "services.agent.main", 1),
        ServiceSpec("search_proxy", "services.search_proxy.main", 2),
        ServiceSpec("evaluator", "services.evaluator.main", 10, replicas=eval_worker_replicas()),
        ServiceSpec("coordinator", "services.coordinator.main", 0),
        ServiceSpec("sampler", "services.sampler.main", 3, replicas=sampler_replicas(), more_port_offset=20),
        ServiceSpec("ingest", "services.ingest.main", 4, grpc_port_offset=5),
    ]


def service_port(name: str) -> int:
    """The port of the (first replica of the) service ``name`` in this environment."""
    spec = next(spec for spec in service_specs() if spec.name == name)
    return port_base() + spec.port_offset


def service_grpc_port(name: str) -> int | None:
    """The gRPC port of the service ``name`` (None when it serves none)."""
    spec = next(spec for spec in service_specs() if spec.name == name)
    return None if spec.grpc_port_offset is None else port_base() + spec.grpc_port_offset
