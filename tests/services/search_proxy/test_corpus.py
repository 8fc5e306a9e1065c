from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.search_proxy.corpus import Corpus, CorpusFileError, load_corpus
from services.search_proxy.settings import DEFAULT_CORPUS

pytestmark = pytest.mark.unit


def test_corpus_v1_validates_with_stable_ids_and_resolving_references() -> None:
    corpus = load_corpus(DEFAULT_CORPUS)
    assert 35 <= len(corpus.events) <= 45
    assert {"push:checkout-service-fix", "pr:redis-outage-postmortem", "error:database-timeout"} <= corpus.ids
    kinds = {event.type for event in corpus.events}
    assert kinds == {"github_push", "github_pr", "sentry_error"}
    assert all(ref in corpus.ids for event in corpus.events for ref in event.references)
    assert sum(bool(event.references) for event in corpus.events) >= 20


def test_documents_carry_actor_names_and_status_text() -> None:
    docs = {doc.id: doc for doc in load_corpus(DEFAULT_CORPUS).documents()}
    assert docs["push:checkout-service-fix"].actor == "Sarah Chen <sarah@acme.com>"
    assert "state open" in docs["pr:oauth-2-1-migration"].body
    assert "Status: unresolved" in docs["error:csv-export-null-pointer"].body
    assert docs["error:csv-export-null-pointer"].actor == ""


def test_corpus_version_is_a_content_hash(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_CORPUS.read_text())
    same = Corpus.model_validate(raw)
    assert same.corpus_version == load_corpus(DEFAULT_CORPUS).corpus_version
    raw["events"][0]["message"] += " (edited)"
    assert Corpus.model_validate(raw).corpus_version != same.corpus_version


def test_invalid_corpus_error_names_the_file_and_field(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_CORPUS.read_text())
    del raw["events"][2]["branch"]
    bad = tmp_path / "corpus.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(CorpusFileError, match=r"corpus\.json.*events\.2\.github_push\.branch"):
        load_corpus(bad)


def test_unknown_reference_is_rejected(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_CORPUS.read_text())
    raw["events"][0]["references"] = ["pr:does-not-exist"]
    bad = tmp_path / "corpus.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(CorpusFileError, match="pr:does-not-exist"):
        load_corpus(bad)
