"""``NATS_URL`` as a comma-separated list: split, checked, refused with the bad entry named."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.settings import CommonSettings
from yardstick.api.nats_servers import InvalidNatsUrl, nats_servers
from yardstick.worker_settings import TaskWorkerSettings

pytestmark = pytest.mark.unit


def test_one_url_is_a_list_of_one() -> None:
    assert nats_servers("nats://127.0.0.1:4222") == ["nats://127.0.0.1:4222"]


def test_a_cluster_is_split_in_order_and_stripped() -> None:
    value = "nats://127.0.0.1:4222, nats://127.0.0.1:4223 ,tls://nats-2.example:4222,"
    assert nats_servers(value) == [
        "nats://127.0.0.1:4222",
        "nats://127.0.0.1:4223",
        "tls://nats-2.example:4222",
    ]


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("", "empty"),
        (" , ", "empty"),
        ("http://x:4222", "'http://x:4222'"),
        ("nats://a:1,nats://b:xx", "'nats://b:xx'"),
    ],
)
def test_a_bad_entry_is_refused_by_name(value: str, named: str) -> None:
    with pytest.raises(InvalidNatsUrl, match=named):
        nats_servers(value)


def test_settings_refuse_a_bad_list_at_start_up() -> None:
    with pytest.raises(ValidationError, match="'nats://b:xx'"):
        CommonSettings(database_url="postgresql://u@h/db", nats_url="nats://a:1,nats://b:xx")
    with pytest.raises(ValidationError, match="'ftp://b'"):
        TaskWorkerSettings(nats_url="nats://a:1,ftp://b")


def test_settings_keep_the_list_and_the_replicas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATS_URL", "nats://127.0.0.1:4222,nats://127.0.0.1:4223")
    monkeypatch.setenv("NATS_STREAM_REPLICAS", "3")
    settings = CommonSettings(database_url="postgresql://u@h/db")
    assert nats_servers(settings.nats_url) == ["nats://127.0.0.1:4222", "nats://127.0.0.1:4223"]
    assert settings.nats_stream_replicas == 3
