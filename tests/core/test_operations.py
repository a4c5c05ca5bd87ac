"""Operation schemas: what validates, and errors a model can act on."""

from __future__ import annotations

import json

import pytest

from bridge.core.operations import (
    InvalidOperation,
    Operation,
    check_new_entry_path,
    load_json,
    operation_schema,
    parse_operation,
    parse_operations,
)


def invalid(data: object) -> str:
    result = parse_operation(0, data)
    assert isinstance(result, InvalidOperation), result
    return result.message


def test_paths_are_canonical_and_relations_become_wikilink_targets() -> None:
    op = Operation.model_validate(
        {
            "type": "add",
            "path": "@engineering/auth/api_keys",
            "tags": ["#auth", "keys", "auth"],
            "relations": [
                "@engineering/auth/jwt_expiry.md - both are credentials",
                {"target": "[[billing/plans/team_plan|team plan]]", "reason": "seats"},
                {"target": "engineering/deploy/rollback.md"},
            ],
            "impact": "HIGH",
        }
    )
    assert op.type == "ADD" and op.path == "engineering/auth/api_keys.md"
    assert op.tags == ["auth", "keys"]
    assert [(r.target, r.reason) for r in op.relations or []] == [
        ("engineering/auth/jwt_expiry", "both are credentials"),
        ("billing/plans/team_plan|team plan", "seats"),
        ("engineering/deploy/rollback", None),
    ]
    assert op.impact == "high"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("a/../b", "path `a/../b` leaves the vault"),
        ("/etc/passwd", "is absolute"),
        ("a/.hidden/b", "starts with a dot"),
        ("a/b|c/d", "contains"),
    ],
)
def test_unsafe_paths_are_refused_with_the_rule(path: str, words: str) -> None:
    assert words in invalid({"type": "ADD", "path": path, "title": "x"})


def test_shape_errors_name_the_fix() -> None:
    assert "MERGE needs `merge_from`" in invalid({"type": "MERGE", "path": "a/b/c"})
    assert "cannot be merged into itself" in invalid(
        {"type": "MERGE", "path": "a/b/c", "merge_from": ["a/b/c.md"]}
    )
    assert "only for MERGE" in invalid({"type": "ADD", "path": "a/b/c", "merge_from": ["x/y"]})
    assert "DELETE takes no content" in invalid({"type": "DELETE", "path": "a/b/c", "title": "x"})
    assert "changes nothing" in invalid({"type": "UPDATE", "path": "a/b/c"})
    assert "type must be one of ADD" in invalid({"type": "CREATE", "path": "a/b/c"})
    message = invalid({"type": "ADD", "path": "a/b/c", "titel": "typo"})
    assert "`titel`: unknown field" in message and "title" in message
    assert "single words" in invalid({"type": "ADD", "path": "a/b/c", "tags": ["two words"]})
    assert "not a relation" in invalid({"type": "ADD", "path": "a/b/c", "relations": ["@"]})
    assert "must be a JSON object" in invalid(["ADD"])


def test_a_batch_keeps_valid_operations_next_to_invalid_ones() -> None:
    parsed = parse_operations(
        {"operations": [{"type": "ADD", "path": "a/b/c", "title": "x"}, {"type": "ADD"}]}
    )
    assert isinstance(parsed[0], Operation)
    assert isinstance(parsed[1], InvalidOperation) and parsed[1].index == 1
    with pytest.raises(ValueError, match="JSON list"):
        parse_operations({"ops": []})
    with pytest.raises(ValueError, match="not valid JSON"):
        load_json("{oops")


def test_new_entries_sit_two_or_three_folders_deep() -> None:
    check_new_entry_path("a/b/c.md")
    check_new_entry_path("a/b/c/d.md")
    check_new_entry_path("a/_index.md")
    for bad in ("c.md", "a/c.md", "a/b/c/d/e.md"):
        with pytest.raises(ValueError, match="2 or 3 folders"):
            check_new_entry_path(bad)


def test_schema_is_self_contained_json() -> None:
    schema = operation_schema()
    text = json.dumps(schema)
    assert '"$ref": "#/$defs/RelationSpec"' in text
    assert "RelationSpec" in schema["$defs"]
    item = schema["properties"]["operations"]["items"]
    assert "$defs" not in item and "merge_from" in item["properties"]
