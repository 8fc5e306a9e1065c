"""Importers: other tools' test files (promptfoo configs, OpenAI Evals files) as Yardstick datasets
whose items carry their checks (see ``imported`` for the rules every importer keeps)."""

from shared.datasets.importers.imported import (
    ITEM_CHECKS,
    Imported,
    ImportFileError,
    Unsupported,
)
from shared.datasets.importers.openai_evals import import_openai_evals
from shared.datasets.importers.promptfoo import import_promptfoo

__all__ = [
    "ITEM_CHECKS",
    "ImportFileError",
    "Imported",
    "Unsupported",
    "import_openai_evals",
    "import_promptfoo",
]
