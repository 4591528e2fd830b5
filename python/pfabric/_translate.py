"""Turn a pydantic `ValidationError` into the one-line `ScenarioError` users see.

Pydantic reports a location such as `('topology', 'leaf-spine', 'leafs')` (the middle item is the union
tag) and a message written for programmers. We rebuild the dotted field path a user wrote (`topology.leafs`),
show the value they gave, and say what is allowed from the field's own definition (`describe.allowed_text`).
Only the first error is reported: one line, one fix at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .describe import allowed_text, item_allowed_text, section_models
from .errors import MISSING, ScenarioError

__all__ = ["translate"]

_NOT_A_TABLE = {"model_type", "model_attributes_type", "dict_type", "union_tag_not_found"}


def translate(exc: ValidationError, root: type[BaseModel]) -> ScenarioError:
    """The first error of `exc` (raised while validating `root`) as a `ScenarioError`."""
    err = exc.errors(include_url=False)[0]
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input", MISSING)
    where = _walk(root, err["loc"])
    path = ".".join(where.names)

    inner = ctx.get("error")
    if isinstance(inner, ScenarioError):
        return inner.at(path)
    if kind == "invalid_key":  # only through the API: TOML keys are always strings
        section = ".".join(where.names[:-1]) or "scenario"
        return ScenarioError(section, value, "expected a field name (a string) as each key")
    parent, name = where.parent, where.name
    if kind == "extra_forbidden" and parent is not None:
        section = ".".join(where.names[:-1]) or "the scenario"
        kind_text = (
            f" (kind {parent.model_fields['kind'].default!r})" if "kind" in parent.model_fields else ""
        )
        fields = ", ".join(parent.model_fields)
        return ScenarioError(
            path, value, f"{section}{kind_text} has no field {name!r}; its fields are: {fields}"
        )
    if kind == "union_tag_invalid":
        shown = value.get("kind", ctx.get("tag")) if isinstance(value, dict) else ctx.get("tag")
        return ScenarioError(_join(path, "kind"), shown, f"expected one of {ctx.get('expected_tags')}")
    if kind in _NOT_A_TABLE:
        return ScenarioError(
            path or "scenario", value, f"expected a table of fields ([{path or 'scenario'}])"
        )
    if kind == "missing":
        value = MISSING
    if parent is not None and name in parent.model_fields:
        allowed = where.item and item_allowed_text(parent, name)
        return ScenarioError(path, value, allowed or allowed_text(parent, name))
    # Not reached by the models as they stand; worded in our terms all the same, never pydantic's.
    return ScenarioError(
        path or "scenario", value, "expected a value this field accepts (see `pfabric fields`)"
    )


def _join(*parts: str) -> str:
    return ".".join(part for part in parts if part)


@dataclass
class _Where:
    """Where an error is, as the user wrote it."""

    names: list[str] = field(default_factory=list)  # dotted parts; list items as `name[i]`
    parent: type[BaseModel] | None = None  # the model that owns the last field
    name: str = ""  # that field's name
    item: bool = False  # the error is in an item of that (list) field, not the field as a whole


def _walk(root: type[BaseModel], loc: tuple[Any, ...]) -> _Where:
    """The user's field path for `loc`, the model that owns its last field, and that field's name.

    Pydantic's location mixes three things: field names, the tags and member labels of unions (not part
    of the user's path: `topology.leaf-spine.leaves`, `thresholds_bytes.list[...].1`), and list indices,
    which we write as `field[i]`.
    """
    where = _Where()
    model: type[BaseModel] | None = root
    tags: dict[str, type[BaseModel]] = {}
    in_field = False  # inside the value of a field that is not a section (a list, a union of scalars)
    for key in loc:
        if in_field:
            if isinstance(key, int) and where.names:
                where.names[-1] += f"[{key}]"
                where.item = True
            continue  # a union member's label
        if isinstance(key, str) and key in tags:
            model, tags = tags[key], {}  # the union tag pydantic inserts: not part of the user's path
            continue
        where.names.append(str(key))
        where.parent, where.name, where.item = model, str(key), False
        info = model.model_fields.get(key) if model is not None and isinstance(key, str) else None
        if info is None:
            model, tags, in_field = None, {}, True
            continue
        models = section_models(info)
        if not models:
            model, tags, in_field = None, {}, True
            continue
        model = models.get("")
        tags = {tag: sub for tag, sub in models.items() if tag}
    return where
