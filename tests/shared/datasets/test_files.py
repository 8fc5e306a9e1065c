"""Dataset files are read bounded and refused with a message that names the file and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.datasets.files import DatasetFileError, load_dataset_file

pytestmark = pytest.mark.unit

BOMB = "\n".join(
    ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)]
    + ["name: bomb", "items: [*i]"]
)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bomb.yaml", BOMB.encode(), "aliases (*name) expand to more than 2,000,000 values"),
        ("empty.yaml", b"  \n", "the file is empty"),
        ("none.yaml", b"name: x\nitems: []\n", "List should have at least 1 item"),
        ("latin1.yaml", b"name: caf\xe9\nitems: []\n", "not UTF-8 text (byte 9)"),
        ("list.json", b"[1, 2]", "top level must be a mapping"),
        ("bad.json", b'{"name": ', "not valid JSON"),
    ],
)
def test_bad_files_are_refused(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DatasetFileError) as caught:
        load_dataset_file(path)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


def test_a_plain_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("name: ok\nkind: generic\nitems:\n  - id: a\n    input: {q: 1}\n")
    dataset = load_dataset_file(path)
    assert (dataset.name, [i.id for i in dataset.items]) == ("ok", ["a"])


REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("relative", "count"),
    [
        ("datasets/drive-thru/order-correctness-v1.yaml", 25),  # uses YAML aliases: within the cap
        ("datasets/drive-thru/trajectory-scenarios-v1.yaml", 12),
        ("datasets/search/golden-v1.json", 50),
    ],
)
def test_the_repositorys_datasets_load(relative: str, count: int) -> None:
    assert len(load_dataset_file(REPO / relative).items) == count
