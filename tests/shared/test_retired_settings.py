"""A retired setting name that is still set stops start-up with a sentence naming the new one
(shared.retired_settings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from shared.llm import LlmSettings
from shared.retired_settings import RETIRED_NAMES, retired_names_problem
from shared.settings import CommonSettings

pytestmark = pytest.mark.unit

SENTENCE = "YARDSTICK_JUDGE_MODEL was renamed JUDGE_MODEL: set JUDGE_MODEL instead"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No retired name from the developer's environment, and no ``.env`` but the test's own."""
    for old in RETIRED_NAMES:
        monkeypatch.delenv(old, raising=False)
    monkeypatch.chdir(tmp_path)


def test_the_sentence_names_each_retired_name_and_its_successor() -> None:
    assert retired_names_problem(["PATH", "yardstick_judge_model"]) == SENTENCE
    assert retired_names_problem(["PATH", "JUDGE_MODEL"]) is None
    both = retired_names_problem(["B_OLD", "A_OLD"], {"A_OLD": "A_NEW", "B_OLD": "B_NEW"})
    assert both == "A_OLD was renamed A_NEW: set A_NEW instead; B_OLD was renamed B_NEW: set B_NEW instead"


def test_a_service_does_not_start_while_a_retired_name_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YARDSTICK_JUDGE_MODEL", "mistral-large-latest")
    with pytest.raises(ValidationError, match=SENTENCE):
        CommonSettings(database_url="postgresql+asyncpg://u@h/db")


def test_a_retired_name_in_the_env_file_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("YARDSTICK_JUDGE_MODEL=mistral-large-latest\n")
    with pytest.raises(ValidationError, match=SENTENCE):
        CommonSettings(database_url="postgresql+asyncpg://u@h/db")


def test_the_llm_settings_refuse_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YARDSTICK_JUDGE_MODEL", "mistral-large-latest")
    with pytest.raises(ValidationError, match=SENTENCE):
        LlmSettings()


def test_the_new_name_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("JUDGE_MODEL=mistral-large-latest\n")
    assert LlmSettings().judge_model == "mistral-large-latest"
    assert CommonSettings(database_url="postgresql+asyncpg://u@h/db").database_url.endswith("/db")
