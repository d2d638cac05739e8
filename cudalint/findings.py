"""Findings: plain data, the output of every rule and the input of every report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Severity(str, Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True)
class Location:
    """A 1-based region of a file; end is inclusive of the last character's column + 1 (clang style)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class RelatedLocation:
    location: Location
    message: str


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, column) positions of the file with `text`."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]
    safe: bool = True


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    severity: Severity
    location: Location
    message: str
    related: tuple[RelatedLocation, ...] = field(default_factory=tuple)
    fix: Fix | None = None
    # a real defect that the analysis proves cannot occur at the reference problem's shapes (a barrier
    # after a return no thread of the graded launches takes): reported, but it rejects only with `strict`
    latent: bool = False

    @property
    def path(self) -> str:
        return self.location.path

    @property
    def line(self) -> int:
        return self.location.line

    @property
    def column(self) -> int:
        return self.location.column

    def sort_key(self) -> tuple:
        return (self.location.path, self.location.line, self.location.column, self.code)

    def to_dict(self) -> dict:
        loc = self.location
        data = {
            "code": self.code, "name": self.name, "severity": self.severity.value, "path": loc.path,
            "line": loc.line, "column": loc.column, "end_line": loc.end_line, "end_column": loc.end_column,
            "message": self.message,
            "related": [{"path": r.location.path, "line": r.location.line, "column": r.location.column,
                         "message": r.message} for r in self.related],
            "fix": None if self.fix is None else {"description": self.fix.description, "safe": self.fix.safe,
                                                  "edits": [asdict(e) for e in self.fix.edits]},
        }
        if self.latent:
            data["latent"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        """The finding `to_dict` wrote (a related location's end is its start: to_dict keeps no end).
        Raises KeyError, TypeError or ValueError on a dict of another shape."""
        line, column = int(data["line"]), int(data.get("column") or 1)
        location = Location(str(data["path"]), line, column, int(data.get("end_line") or line),
                            int(data.get("end_column") or column))
        related = tuple(RelatedLocation(Location(str(r["path"]), int(r["line"]), int(r["column"]), int(r["line"]),
                                                 int(r["column"])), str(r["message"]))
                        for r in data.get("related") or ())
        fix = data.get("fix")
        if fix is not None:
            fix = Fix(str(fix["description"]), tuple(Edit(**edit) for edit in fix["edits"]), bool(fix["safe"]))
        return cls(str(data["code"]), str(data.get("name", "")), Severity(data["severity"]), location,
                   str(data["message"]), related, fix, bool(data.get("latent", False)))


def short_text(text: str, limit: int = 70) -> str:
    """`text` on one line, cut to `limit` characters with "...": code quoted in a message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
