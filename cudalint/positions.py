"""Lines and places in an input file: its lines as clang and Python count them, the file (line, column) of each
character of a unit's text (`CharPositions`), and a part of the file that no unit holds (`NotAnalysed`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple



def with_lines(matches: Iterable[re.Match], text: str) -> Iterator[tuple[re.Match, int]]:
    """Each of `matches` (in `text`, in order) with the 1-based line it starts on, counting the text's
    newlines once in all (a count from the start per match grows with the square of the text)."""
    line, position = 1, 0
    for match in matches:
        line += text.count("\n", position, match.start())
        position = match.start()
        yield match, line


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of `text` as clang and Python's tokenizer count them: broken at \\n, \\r\\n and \\r only.
    (`str.splitlines` also breaks at a form feed, a vertical tab, U+2028 and others, which are whitespace
    inside a line to both.)"""
    lines, start = [], 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start:match.end() if keepends else match.start()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


class Position(NamedTuple):
    line: int  # 1-based
    column: int  # 1-based


class CharPositions:
    """The file (line, column) of each character of a unit's text, kept as runs: a run's first character
    is at its place, and each following one a column further, up to the next run. A kernel string has
    thousands of characters but a run per line (and per escape), and only a finding's position is asked."""

    __slots__ = ("starts", "places", "length")

    def __init__(self, starts: list[int], places: list[tuple[int, int]], length: int) -> None:
        self.starts = starts  # the index of each run's first character, ascending
        self.places = places  # the (line, column) of each run's first character
        self.length = length

    @classmethod
    def of_text(cls, text: str, line: int, column0: int) -> CharPositions:
        """`text` as it stands in the file from (line, 0-based column0) on: a run per line, its newline
        included."""
        starts, places = [], []
        index = 0
        for piece in text.split("\n"):
            if index < len(text):
                starts.append(index)
                places.append((line, column0 + 1))
            index += len(piece) + 1
            line, column0 = line + 1, 0
        return cls(starts, places, len(text))

    @classmethod
    def of_list(cls, positions: list[tuple[int, int]]) -> CharPositions:
        """The runs of a place per character (decoded escapes)."""
        starts, places = [], []
        previous = None
        for index, place in enumerate(positions):
            if previous is None or place != (previous[0], previous[1] + 1):
                starts.append(index)
                places.append(place)
            previous = place
        return cls(starts, places, len(positions))

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[int, int]:
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError("character index out of range")
        run = bisect.bisect_right(self.starts, index) - 1
        line, column = self.places[run]
        return line, column + index - self.starts[run]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        bounds = self.starts[1:] + [self.length]
        for start, end, (line, column) in zip(self.starts, bounds, self.places):
            for offset in range(end - start):
                yield line, column + offset

    @classmethod
    def at(cls, place: tuple[int, int], count: int) -> CharPositions:
        """`count` characters that all stand for the one place (a number an f-string writes)."""
        return cls(list(range(count)), [place] * count, count)

    @classmethod
    def concat(cls, parts: Iterable[CharPositions]) -> CharPositions:
        """The positions of the parts' characters one after the other."""
        starts: list[int] = []
        places: list[tuple[int, int]] = []
        length, last = 0, None  # `last`: the place of the character before this part
        for part in parts:
            if not part.length:
                continue
            # a run that goes on across the seam is one run
            first = 1 if last is not None and part.places[0] == (last[0], last[1] + 1) else 0
            starts.extend(start + length for start in part.starts[first:])
            places.extend(part.places[first:])
            length += part.length
            last = part[part.length - 1]
        return cls(starts, places, length)

    def slice(self, start: int, end: int) -> CharPositions:
        """The positions of characters `start` to `end - 1`."""
        start, end = max(start, 0), min(end, self.length)
        if start >= end:
            return CharPositions([], [], 0)
        first = bisect.bisect_right(self.starts, start) - 1
        last = bisect.bisect_left(self.starts, end, first + 1)
        line, column = self.places[first]
        return CharPositions([0] + [s - start for s in self.starts[first + 1:last]],
                             [(line, column + start - self.starts[first])] + self.places[first + 1:last], end - start)

    def __add__(self, other: CharPositions) -> CharPositions:
        return CharPositions.concat((self, other))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CharPositions):
            return NotImplemented
        return (self.starts, self.places, self.length) == (other.starts, other.places, other.length)

    def __repr__(self) -> str:
        return f"CharPositions({len(self.starts)} runs, {self.length} characters)"


class NotAnalysed(NamedTuple):
    """Code of the file that is in no unit, so that no rule checks it: where (1-based, columns in
    characters) and why."""

    line: int
    column: int
    end_line: int
    end_column: int
    message: str
