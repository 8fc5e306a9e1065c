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


TYPO = (
    "item 2 (line 3): unknown field 'expected_ouput'; did you mean 'expected_output'? "
    "Put extra data under 'metadata'."
)


def test_an_unknown_item_field_is_refused_naming_the_item_from_1_its_line_and_the_closest_field(
    tmp_path: Path,
) -> None:
    path = tmp_path / "typo.jsonl"
    path.write_text(
        '{"id": "a", "input": {}}\n\n{"id": "b", "input": {}, "expected_ouput": {"x": 1}}\n', encoding="utf-8"
    )
    with pytest.raises(DatasetFileError) as caught:
        load_dataset_file(path)
    assert str(caught.value) == f"{path}: invalid dataset\n  - {TYPO}"


def test_yaml_items_are_named_by_position_and_id_and_a_typo_at_the_top_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "name: x\nmetdata: {}\nitems:\n  - {id: a, input: {}}\n  - {id: b, inptu: {}}\n", encoding="utf-8"
    )
    with pytest.raises(DatasetFileError) as caught:
        load_dataset_file(path)
    assert str(caught.value).splitlines()[1:] == [
        "  - item 2 (id 'b'): missing field 'input'",
        "  - item 2 (id 'b'): unknown field 'inptu'; did you mean 'input'? Put extra data under 'metadata'.",
        "  - unknown field 'metdata'; did you mean 'metadata'?",
    ]


def test_a_repeated_id_names_the_item_from_1(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    path.write_text('{"id": "a", "input": {}}\n{"id": "a", "input": {}}\n', encoding="utf-8")
    with pytest.raises(DatasetFileError, match=r"item 2 \(line 2\) repeats id 'a'"):
        load_dataset_file(path)
