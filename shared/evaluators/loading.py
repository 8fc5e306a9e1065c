"""Building the evaluator registry: the built-in modules, the configured plugin modules
(``YARDSTICK_EVALUATOR_MODULES``) and the ``yardstick.evaluators`` entry points, in that order.

Every service that scores builds one registry at start-up (``build_registry()``) and hands it to
the code that scores; nothing is registered by importing a module. A built-in module is imported
here by name in Python (a renamed module is an ImportError at start-up, never a silent gap), and
a plugin module that fails to import stops the service with a sentence naming it
(:class:`~shared.evaluators.plugins.PluginLoadError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from shared.evaluators import (
    aggregates,
    conversation,
    drive_thru,
    generic,
    item_checks,
    judges,
    multi_turn,
    rag,
    retrieval,
    rubric,
    trajectory,
)
from shared.evaluators.plugins import PluginSettings, import_modules, load_entry_points
from shared.evaluators.registry import EvaluatorRegistry, marked

BUILTIN_MODULES: tuple[ModuleType, ...] = (
    drive_thru,
    aggregates,
    trajectory,
    retrieval,
    rag,
    judges,
    rubric,
    conversation,
    multi_turn,
    generic,
    item_checks,
)


def add_module(registry: EvaluatorRegistry, module: ModuleType, source: str) -> int:
    """Add every evaluator ``module`` defines (functions marked by ``@register``); returns how many."""
    found = [entry for value in vars(module).values() if (entry := marked(value)) is not None]
    for entry in found:
        registry.add(entry, source)
    return len(found)


def build_registry(modules: Sequence[str] | None = None, *, entry_points: bool = True) -> EvaluatorRegistry:
    """The built-ins, then ``modules`` (``YARDSTICK_EVALUATOR_MODULES`` when None), then the
    entry points (unless ``entry_points`` is False)."""
    registry = EvaluatorRegistry()
    for module in BUILTIN_MODULES:
        add_module(registry, module, "builtin")
    for module in import_modules(PluginSettings().modules if modules is None else modules):
        add_module(registry, module, module.__name__)
    if entry_points:
        load_entry_points(registry, lambda module: add_module(registry, module, module.__name__))
    return registry


_process_registry: EvaluatorRegistry | None = None


def process_registry() -> EvaluatorRegistry:
    """This process's registry, built on first use from the environment's configuration.

    Services build theirs at start-up through this (before ``/healthz`` says ready) and hand it
    on; library entry points with no service around them (``langfuse_evaluator``, settings
    validation) read the same one."""
    global _process_registry
    if _process_registry is None:
        _process_registry = build_registry()
    return _process_registry
