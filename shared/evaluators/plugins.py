"""Evaluator plugins: modules named in ``YARDSTICK_EVALUATOR_MODULES`` and the entry-point group
``yardstick.evaluators``, loaded after the built-in evaluators.

A plugin module registers its evaluators with ``@register`` when imported. An entry point may
name such a module (``my_evals = "my_pkg.evals"``) or one evaluator function
(``my_metric = "my_pkg.evals:my_metric"``), which is then registered under the entry point's name
unless importing its module registered it already.

A module path that does not import is a configuration error and raises at start-up; an installed
package whose entry point fails is logged and reported (``PLUGIN_ERRORS``, advertised by the
workers) so one broken package does not stop a worker.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Sequence
from importlib import metadata
from types import ModuleType

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ENTRY_POINT_GROUP = "yardstick.evaluators"

log = logging.getLogger(__name__)

PLUGIN_ERRORS: list[str] = []
"""Entry points that failed to load, as 'entry point name (value): ErrorType: message'."""


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


def load_entry_points() -> list[str]:
    """Load every ``yardstick.evaluators`` entry point; returns the names of those loaded."""
    from shared.evaluators.registry import REGISTRY, register

    loaded = []
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = entry.load()
            if callable(obj) and not isinstance(obj, ModuleType):
                registered = REGISTRY.get(entry.name)
                if registered is None or registered.fn is not obj:
                    register(entry.name)(obj)
        except Exception as exc:  # one broken package must not stop the service
            message = f"{entry.name} ({entry.value}): {type(exc).__name__}: {exc}"
            log.error("evaluator plugin failed to load: %s", message)
            if message not in PLUGIN_ERRORS:
                PLUGIN_ERRORS.append(message)
            continue
        loaded.append(entry.name)
    return loaded


def load_plugins(modules: Sequence[str] | None = None) -> None:
    """The configured modules (``YARDSTICK_EVALUATOR_MODULES`` unless given), then the entry points."""
    import_modules(PluginSettings().modules if modules is None else modules)
    load_entry_points()
