"""The one exception a user of pfabric sees for a bad scenario.

Every problem with what a user wrote (a value out of range, a missing file, a malformed CSV row, bad TOML)
becomes a `ScenarioError` whose text is a single line of the form

    <field path>: <value!r> is not allowed; <what is allowed>

so that the CLI can print it as is, and a sweep over hundreds of scenarios can log it without tracebacks.
The field path is dotted (`workload.load`); rows of a CSV file are named after the field that points at the
file (`workload.path: row 7: dst=200 is not allowed; ...`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MISSING", "ScenarioError", "SweepError"]


class _Missing:
    """Marks a required value that the user did not give (so the message can say so)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


class ScenarioError(ValueError):
    """A scenario that pfabric refuses to run, with the field, the value and what would be accepted.

    `field` may be relative while the error travels up through nested validators; `at(prefix)` makes it
    absolute. `row` and `column` locate a value inside a CSV file that a field points at. `plain` errors
    (a file that is not valid TOML) have no single value to show and carry their own text.
    """

    def __init__(
        self,
        field: str,
        value: Any,
        allowed: str,
        *,
        row: int | None = None,
        column: str | None = None,
        plain: str | None = None,
    ) -> None:
        self.field = str(field)  # a dict key given through the API may be any hashable
        self.value = value
        self.allowed = allowed
        self.row = row
        self.column = column
        self.plain_text = plain
        super().__init__(self._render())

    @classmethod
    def plain(cls, field: str, message: str) -> ScenarioError:
        """An error about a whole input (a file that is no valid TOML) rather than one value in it.

        With an empty `field` the message stands alone: the core's own messages name their field.
        """
        return cls(field, None, "", plain=message)

    def at(self, prefix: str) -> ScenarioError:
        """The same error with `prefix` put in front of its field path (as seen from an enclosing model)."""
        if not prefix:
            return self
        field = f"{prefix}.{self.field}" if self.field else prefix
        return ScenarioError(
            field, self.value, self.allowed, row=self.row, column=self.column, plain=self.plain_text
        )

    def _render(self) -> str:
        if self.plain_text is not None and not self.field:
            return _one_line(self.plain_text)
        parts = [self.field or "scenario"]
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.plain_text is not None:
            parts.append(self.plain_text)
        elif self.value is MISSING:
            shown = f"{self.column} is missing" if self.column else "a value is required"
            parts.append(f"{shown}; {self.allowed}")
        else:
            shown = f"{self.column}={_shown(self.value)}" if self.column else _shown(self.value)
            parts.append(f"{shown} is not allowed; {self.allowed}")
        return _one_line(": ".join(parts))

    def __reduce__(self):
        # Picklable for process-pool sweeps: the default would re-call __init__ with the message only.
        kwargs = {"row": self.row, "column": self.column, "plain": self.plain_text}
        return (_rebuild, (self.field, self.value, self.allowed, kwargs))


def _rebuild(field: str, value: Any, allowed: str, kwargs: dict) -> ScenarioError:
    return ScenarioError(field, value, allowed, **kwargs)


# Longest a value is shown in a message: a value of megabytes (or nested thousands deep) would drown the line.
_MAX_SHOWN = 200


def _shown(value: Any) -> str:
    """A value as the message shows it: its repr, cut in the middle when long (the end of a path is the part
    that tells), or a word for a value too deeply nested to write out."""
    try:
        text = repr(value)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to show>"
    if len(text) > _MAX_SHOWN:
        text = f"{text[: _MAX_SHOWN - 60]}...{text[-57:]}"
    return text


def _one_line(text: str) -> str:
    """Collapse line breaks so that the message stays one line whatever a value or a library wrote, and
    write control characters (a NUL in a path) as escapes, so the terminal shows what was there."""
    text = " ".join(text.split())
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class SweepError(RuntimeError):
    """A sweep that could not finish: a run failed or a worker died. Runs that finished are already stored,
    so rerunning the sweep resumes it. Defined here, beside ScenarioError, so the CLI can catch it without
    importing the sweep machinery."""
