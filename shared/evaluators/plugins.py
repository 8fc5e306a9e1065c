"""Evaluator plugins: modules named in ``YARDSTICK_EVALUATOR_MODULES`` and the entry-point group
``yardstick.evaluators``, loaded after the built-in evaluators.

A plugin module marks its evaluators with ``@register``; the registry takes every marked function
of the module. An entry point may name such a module (``my_evals = "my_pkg.evals"``) or one
evaluator function (``my_metric = "my_pkg.evals:my_metric"``), registered under its ``@register``
name, or under the entry point's name when it is a plain function.

A module path that does not import is a configuration error and raises at start-up; an installed
package whose entry point fails is logged and reported (``EvaluatorRegistry.plugin_errors``,
advertised by the workers) so one broken package does not stop a worker.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Sequence
from importlib import metadata
from types import ModuleType

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.evaluators.registry import EvaluatorRegistry

ENTRY_POINT_GROUP = "yardstick.evaluators"

log = logging.getLogger(__name__)


class PluginLoadError(ImportError):
    """A module named in ``YARDSTICK_EVALUATOR_MODULES`` could not be imported."""


class PluginSettings(BaseSettings):
    """``YARDSTICK_EVALUATOR_MODULES``: comma-separated module paths to import for their evaluators."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    yardstick_evaluator_modules: str = Field(
        default="", description="Comma-separated modules that register evaluators, e.g. my_pkg.evals"
    )

    @property
    def modules(self) -> list[str]:
        return [m.strip() for m in self.yardstick_evaluator_modules.split(",") if m.strip()]


def import_modules(modules: Sequence[str]) -> list[ModuleType]:
    """Import each module (registering its evaluators); raise :class:`PluginLoadError` naming the
    module that failed."""
    imported = []
    for name in modules:
        try:
            imported.append(importlib.import_module(name))
        except Exception as exc:
            raise PluginLoadError(
                f"evaluator module {name!r} (YARDSTICK_EVALUATOR_MODULES) failed to import: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    return imported


def load_entry_points(registry: EvaluatorRegistry, add_module: Callable[[ModuleType], object]) -> list[str]:
    """Load every ``yardstick.evaluators`` entry point into ``registry`` (a module through
    ``add_module``); returns the names of those loaded. Failures go to ``registry.plugin_errors``."""
    loaded = []
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = entry.load()
            if isinstance(obj, ModuleType):
                add_module(obj)
            elif callable(obj):
                registry.add_function(obj, entry.name, f"entry point {entry.name}")
            else:
                raise TypeError(f"{entry.value} is neither a module nor a function")
        except Exception as exc:  # one broken package must not stop the service
            message = f"{entry.name} ({entry.value}): {type(exc).__name__}: {exc}"
            log.error("evaluator plugin failed to load: %s", message)
            if message not in registry.plugin_errors:
                registry.plugin_errors.append(message)
            continue
        loaded.append(entry.name)
    return loaded
