"""What each scenario field accepts, in words, derived from the pydantic models themselves.

The same text serves two readers: an error message (`... is not allowed; expected an integer >= 1`) and the
field reference of `pfabric fields` / `pfabric run --help`. Deriving it from the models' types and
constraints keeps one source of truth: a changed bound changes the message and the documentation at once.
A model can word a field itself through the `allowed_for(name)` hook or `json_schema_extra={"allowed": ...}`.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

__all__ = [
    "FieldDoc",
    "allowed_text",
    "catalogue_text",
    "field_docs",
    "fields_text",
    "item_allowed_text",
    "section_models",
    "type_text",
]

# type -> (in the reference, in a message, in a message about the items of a list)
_NOUNS = {
    int: ("integer", "an integer", "integers"),
    float: ("number", "a number", "numbers"),
    str: ("string", "a string", "strings"),
    bool: ("boolean", "true or false", "booleans"),
}


@dataclass
class _Shape:
    """The parts of a field's annotation that matter to a reader."""

    bases: list[type] = field(default_factory=list)
    choices: list[Any] = field(default_factory=list)
    models: dict[str, type[BaseModel]] = field(default_factory=dict)
    nullable: bool = False
    bounds: dict[str, float] = field(default_factory=dict)
    items: _Shape | None = None  # what each item holds, when the field is a list


def _shape(annotation: Any, metadata: list[Any], shape: _Shape | None = None) -> _Shape:
    shape = shape or _Shape()
    for item in metadata:
        if isinstance(item, FieldInfo):
            _shape(None, item.metadata, shape)
        for bound in ("gt", "ge", "lt", "le"):
            if getattr(item, bound, None) is not None:
                shape.bounds[bound] = getattr(item, bound)
    if annotation is None:
        return shape
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *extra = get_args(annotation)
        tags = [item.tag for item in extra if isinstance(getattr(item, "tag", None), str)]
        if isinstance(base, type) and issubclass(base, BaseModel):
            shape.models[tags[0] if tags else ""] = base
        else:
            _shape(base, extra, shape)
    elif origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            if arg is type(None):
                shape.nullable = True
            else:
                _shape(arg, [], shape)
    elif origin is Literal:
        shape.choices.extend(get_args(annotation))
    elif origin is list:
        shape.bases.append(list)
        (item,) = get_args(annotation) or (Any,)
        shape.items = _shape(item, [])
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        shape.models.setdefault("", annotation)
    elif annotation is not type(None):
        shape.bases.append(annotation)
    return shape


def field_shape(info: FieldInfo) -> _Shape:
    return _shape(info.annotation, list(info.metadata))


def _num(x: float) -> str:
    if isinstance(x, int) and x > 2**50 and x & (x - 1) == 0:
        return f"2**{x.bit_length() - 1}"
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


def _bounds_text(bounds: dict[str, float]) -> str:
    low = ("(", bounds["gt"]) if "gt" in bounds else ("[", bounds["ge"]) if "ge" in bounds else None
    high = (")", bounds["lt"]) if "lt" in bounds else ("]", bounds["le"]) if "le" in bounds else None
    if low and high:
        return f" in {low[0]}{_num(low[1])}, {_num(high[1])}{high[0]}"
    if low:
        return f" {'>' if low[0] == '(' else '>='} {_num(low[1])}"
    if high:
        return f" {'<' if high[0] == ')' else '<='} {_num(high[1])}"
    return ""


def _noun(base: Any, form: int) -> str:
    name = getattr(base, "__name__", str(base))
    return _NOUNS.get(base, (name, f"a {name}", f"{name}s"))[form]


def _phrase(shape: _Shape, article: bool, plural: bool = False) -> str:
    """The shape in words: `an integer > 0` (article), `integer > 0` (reference), `integers > 0` (plural,
    for the items of a list)."""
    parts = []
    if shape.models:
        parts.append("tables" if plural else "a table" if article else "table")
    scalars = [base for base in shape.bases if base is not list]
    if scalars:
        form = 2 if plural else 1 if article else 0
        parts.append(" or ".join(_noun(base, form) for base in scalars) + _bounds_text(shape.bounds))
    if list in shape.bases:
        items = f" of {_phrase(shape.items, article, plural=True)}" if shape.items else ""
        parts.append(("lists" if plural else "a list" if article else "list") + items)
    if shape.choices:
        choices = (", " if article else " | ").join(repr(c) for c in shape.choices)
        parts.append(("one of " if article else "") + choices)
    text = (", or " if article else " | ").join(parts)
    if shape.nullable:
        text += ", or leave it unset" if article else " (optional)"
    return text


def _hook(model: type[BaseModel], name: str) -> str | None:
    hook = getattr(model, "allowed_for", None)
    text = hook(name) if hook else None
    if text is None:
        extra = model.model_fields[name].json_schema_extra
        text = extra.get("allowed") if isinstance(extra, dict) else None
    return text


def allowed_text(model: type[BaseModel], name: str) -> str:
    """What field `name` of `model` accepts, as the end of an error message (`expected ...`)."""
    if name not in model.model_fields:
        return "expected " + ", ".join(model.model_fields)
    return _hook(model, name) or "expected " + _phrase(field_shape(model.model_fields[name]), article=True)


def item_allowed_text(model: type[BaseModel], name: str) -> str | None:
    """What each item of list field `name` accepts (`expected an integer > 0`); None if it is no list."""
    info = model.model_fields.get(name)
    items = field_shape(info).items if info is not None else None
    if items is None:
        return None
    return "expected " + _phrase(items, article=True)


def type_text(model: type[BaseModel], name: str) -> str:
    """The field's type and range for the reference (`integer >= 1`)."""
    return _phrase(field_shape(model.model_fields[name]), article=False)


def section_models(info: FieldInfo) -> dict[str, type[BaseModel]]:
    """The models a section field holds: {"": Model} for a plain section, {kind: Model} for a tagged one."""
    return field_shape(info).models


@dataclass
class FieldDoc:
    """One line of the field reference."""

    path: str
    section: str
    type: str
    default: str
    description: str
    allowed: str  # set where the model words it itself (the type column does not say it all)
    section_doc: str = ""  # first line of the section model's docstring


def _default_text(model: type[BaseModel], name: str) -> str:
    hook = getattr(model, "default_for", None)
    text = hook(name) if hook else None
    if text is not None:
        return text
    info = model.model_fields[name]
    if info.default is PydanticUndefined:
        return "required" if info.default_factory is None else "[section]"
    if info.default is None:
        return "unset"
    return repr(info.default) if isinstance(info.default, str) else _num(info.default)


def field_docs(root: type[BaseModel]) -> list[FieldDoc]:
    """Every field of `root` and of its sections, in declaration order, each tagged model on its own."""
    docs: list[FieldDoc] = []
    for name, info in root.model_fields.items():
        models = section_models(info)
        if not models:
            docs.append(_doc(root, name, name, ""))
            continue
        for number, (tag, model) in enumerate(models.items()):
            section = f"[{name}]" + (
                f' kind = "{tag}"' + ("  (the default)" if number == 0 else "") if tag else ""
            )
            docs.extend(_section_docs(model, name, section, tag))
    return docs


def _section_docs(model: type[BaseModel], prefix: str, section: str, tag: str) -> list[FieldDoc]:
    """The fields of one section, then those of the sections inside it (`[workload.deadlines]`), each
    under its own header."""
    docs: list[FieldDoc] = []
    nested: list[tuple[str, type[BaseModel]]] = []
    for sub, info in model.model_fields.items():
        if tag and sub == "kind":  # the section header says it
            continue
        docs.append(_doc(model, sub, f"{prefix}.{sub}", section))
        inner = section_models(info)
        if list(inner) == [""]:
            nested.append((sub, inner[""]))
    for sub, inner_model in nested:
        header = f"[{prefix}.{sub}]" + (f'  (with kind = "{tag}")' if tag else "")
        docs.extend(_section_docs(inner_model, f"{prefix}.{sub}", header, ""))
    return docs


def _doc(model: type[BaseModel], name: str, path: str, section: str) -> FieldDoc:
    info = model.model_fields[name]
    return FieldDoc(
        section_doc=(model.__doc__ or "").strip().splitlines()[0] if section else "",
        path=path,
        section=section,
        type=type_text(model, name),
        default=_default_text(model, name),
        description=(info.description or "").strip(),
        allowed=_hook(model, name) or "",
    )


def fields_text(root: type[BaseModel], width: int = 110) -> str:
    """The field reference as plain text (for `pfabric fields` and the epilog of `pfabric run --help`)."""
    import textwrap

    lines = [
        "Scenario fields (TOML). Units are in the names; every field has a default, the pFabric paper's set-up.",
        "A section given without `kind` takes the first kind listed for it.",
    ]
    section = None
    for doc in field_docs(root):
        if doc.section != section:
            section = doc.section
            lines.append("")
            if section:
                lines.append(section)
                lines.extend(
                    textwrap.wrap(
                        doc.section_doc, width=width, initial_indent="  # ", subsequent_indent="  # "
                    )
                )
        name = doc.path.split(".")[-1]
        indent = "  " if section else ""
        lines.append(f"{indent}{name:<22} {doc.type:<32} default {doc.default}")
        text = doc.description
        if doc.allowed:
            text += f" Allowed: {doc.allowed.removeprefix('expected ')}."
        wrap = {
            "initial_indent": indent + "    ",
            "subsequent_indent": indent + "    ",
            "break_on_hyphens": False,
        }
        lines.extend(textwrap.wrap(text, width=width, **wrap))
    return "\n".join(lines)


def catalogue_text(catalogue: dict[str, Any]) -> str:
    """`pfabric schemes`: the core's catalogue (`_native.scheme_catalogue`) as text."""

    def params(part: dict[str, Any]) -> list[str]:
        return [
            f"    {p['name']} = {'unset' if p['default'] is None else json.dumps(p['default'])}  # {p['what']}"
            for p in part["parameters"]
        ]

    lines = ["Bundles ([scheme] name = ...): a host and a switch as a paper paired them, with its values."]
    for b in catalogue["bundles"]:
        parts = f"host {b['host']} + switch {b['switch']}" if b["host"] else "flow level"
        values = ", ".join(f"{k} = {json.dumps(v)}" for k, v in b["values"].items())
        lines.append(f"  {b['name']}: {parts}{'; ' + values if values else ''}  ({b['paper']})")
    lines += ["", "Hosts (host = ...):"]
    for h in catalogue["hosts"]:
        lines += [f"  {h['name']}: {h['what']} ({h['paper']})", *params(h)]
    lines += ["", "Switches (switch = ...): every switch port and host NIC runs it."]
    for sw in catalogue["switches"]:
        notes = []
        if sw["reads_stamp"]:
            notes.append("reads the hosts' priority stamp")
        if sw["marks_ecn_with"]:
            notes.append(f"marks ECN with {sw['marks_ecn_with']}")
        extra = f"; {', '.join(notes)}" if notes else ""
        lines += [f"  {sw['name']}: {sw['what']} ({sw['paper']}{extra})", *params(sw)]
    return "\n".join(lines)
