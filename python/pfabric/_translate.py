"""Turn a pydantic `ValidationError` into the one-line `ScenarioError` users see.

Pydantic reports a location such as `('topology', 'leaf-spine', 'leafs')` (the middle item is the union
tag) and a message written for programmers. We rebuild the dotted field path a user wrote (`topology.leafs`),
show the value they gave, and say what is allowed from the field's own definition (`describe.allowed_text`).
Only the first error is reported: one line, one fix at a time.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from .describe import allowed_text, section_models
from .errors import MISSING, ScenarioError

__all__ = ["translate"]

_NOT_A_TABLE = {"model_type", "model_attributes_type", "dict_type", "union_tag_not_found"}


def translate(exc: ValidationError, root: type[BaseModel]) -> ScenarioError:
    """The first error of `exc` (raised while validating `root`) as a `ScenarioError`."""
    err = exc.errors(include_url=False)[0]
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input", MISSING)
    names, parent, name = _walk(root, err["loc"])
    path = ".".join(names)

    inner = ctx.get("error")
    if isinstance(inner, ScenarioError):
        return inner.at(path)
    if kind == "extra_forbidden":
        section = ".".join(names[:-1]) or "the scenario"
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
        return ScenarioError(path, value, allowed_text(parent, name))
    return ScenarioError(path, value, f"expected a valid value ({err['msg']})")


def _join(*parts: str) -> str:
    return ".".join(part for part in parts if part)


def _walk(root: type[BaseModel], loc: tuple[Any, ...]) -> tuple[list[str], type[BaseModel] | None, str]:
    """The user's field path for `loc`, the model that owns its last field, and that field's name."""
    names: list[str] = []
    model: type[BaseModel] | None = root
    tags: dict[str, type[BaseModel]] = {}
    parent, name = None, ""
    for key in loc:
        if isinstance(key, str) and key in tags:
            model, tags = tags[key], {}  # the union tag pydantic inserts: not part of the user's path
            continue
        names.append(str(key))
        parent, name = model, str(key)
        info = model.model_fields.get(key) if model is not None and isinstance(key, str) else None
        if info is None:
            model, tags = None, {}
            continue
        models = section_models(info)
        model = models.get("")
        tags = {tag: sub for tag, sub in models.items() if tag}
    return names, parent, name
