"""The records of one part of a JSON list or JSON-lines file, decoded without the rest
(issue 29).

A large report file is prepared in parts by forked children (:mod:`.new_reports`,
:mod:`.parallel`). Each child decoded the whole file to prepare half of it: with two
children every file was decoded twice (0.065 s of CPU per 20 MB file and child, the
collector paused, as it is in an import; 0.04 s for a child's half here) and every child
held every record. Here a child decodes only the records of its byte ranges:

* **JSON lines**: a part starts just after the first newline at or after its share of the
  text (``k / count``): a newline always ends a line, so the parts' lines, split as
  :func:`.common.parse_json_records` splits the whole text, are the file's lines.
* **A JSON list**: where a record starts cannot be told from a byte alone (``, {"`` may be
  inside a string). Part ``k`` starts at the first *plausible* record start at or after its
  share — a comma followed by an object's opening (:data:`_PLAUSIBLE`) — and decodes record
  after record (``json.JSONDecoder.raw_decode`` on the whole text: the very scanner
  ``json.loads`` runs on each element) until the comma before a record lies at or beyond
  the next part's share. A candidate that is an element of a list inside a record (a
  section, a citation) soon meets its list's closing bracket, one inside a string
  soon meets something that is no JSON: given up, the next one is tried (:func:`part`).
  The caller checks the chain (:func:`chained`): part 0 starts at the list's first
  record, each part ends where the next one starts, the last at the closing bracket.
  Part 0 starts at a true boundary; a part decoded from a true boundary ends at one, so a
  part that started anywhere else (a candidate that went on decoding to its part's end)
  never starts where the part before it ends: any break in the chain means the file is
  read whole.

Anything unusual — a decoding error, a number too long for Python, nesting too deep —
raises :class:`Unreadable`, and a file that is neither a non-empty list nor JSON lines has
no :func:`layout`: the caller reads the file whole, as before, whose messages name the
problem.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: JSON's whitespace (``json.decoder.WHITESPACE``): nothing else may stand between values.
_WS = re.compile(r"[ \t\n\r]*")
#: A comma, then an object opening with a key or closing at once: what precedes every record
#: of a list of objects but the first, and every object of a list inside one. Inside a
#: string a quote is escaped (``\"``), so this matches there only before ``}`` or where a
#: string ends just after "{".
_PLAUSIBLE = re.compile(r",[ \t\n\r]*(\{)[ \t\n\r]*[\"}]")
_DECODER = json.JSONDecoder()


class Unreadable(Exception):
    """This part cannot be decoded apart: the file is to be read whole."""


@dataclass(frozen=True)
class Layout:
    """Where a file's records lie: ``lines`` (JSON lines) or a list whose first record
    starts at ``first`` and whose closing bracket is at ``close``."""

    lines: bool
    first: int
    close: int


@dataclass
class Span:
    """One part: the records decoded from ``start`` up to ``end`` (offsets in the text)."""

    start: int
    end: int
    records: list


def layout(text: str) -> Layout | None:
    """The layout of ``text``, or None when it is neither a non-empty JSON list nor JSON
    lines of objects (the file is then read whole, which says what is wrong)."""
    begin = _WS.match(text).end()
    if begin >= len(text):
        return None
    if text[begin] == "{":
        return Layout(True, 0, len(text))
    if text[begin] != "[":
        return None
    first = _WS.match(text, begin + 1).end()
    close = len(text)
    while close and text[close - 1] in " \t\n\r":
        close -= 1
    close -= 1
    if close <= first or text[close] != "]":
        return None  # an empty list, or something after the list
    return Layout(False, first, close)


def share(lay: Layout, k: int, count: int) -> int:
    """Where part ``k`` of ``count`` is guessed to begin."""
    return lay.first + (lay.close - lay.first) * k // count


def part(text: str, lay: Layout, k: int, count: int) -> Span:
    """The records of part ``k`` of ``count`` of ``text`` (module doc). A candidate start
    that is no record's — an element of a list inside a record (a section, a citation),
    or text inside a string — is given up where its decoding stops making sense (the
    inner list's closing bracket, a value that is not one) and the next candidate after
    that point is tried; a part in which no candidate begins is empty."""
    if lay.lines:
        return _lines_part(text, lay, k, count)
    stop = share(lay, k + 1, count) if k + 1 < count else lay.close + 1
    if k == 0:
        try:
            return _decode_from(text, lay, lay.first, stop)
        except _Stuck as stuck:
            raise Unreadable(stuck.why) from None
    at = share(lay, k, count)
    while True:
        found = _PLAUSIBLE.search(text, at, lay.close)
        if found is None or found.start() >= stop:  # no record begins in this part
            return Span(lay.close, lay.close, [])
        try:
            return _decode_from(text, lay, found.start(1), stop)
        except _Stuck as stuck:
            at = max(stuck.at, found.end())


class _Stuck(Exception):
    """Decoding from a candidate start went wrong at ``at``."""

    def __init__(self, at: int, why: str):
        super().__init__(why)
        self.at, self.why = at, why


def _decode_from(text: str, lay: Layout, start: int, stop: int) -> Span:
    """The records from ``start`` until one whose comma lies at or beyond ``stop``, or the
    list's end."""
    records, at = [], start
    while True:
        try:
            record, after = _DECODER.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise _Stuck(exc.pos, str(exc)) from None
        except (ValueError, RecursionError) as exc:  # a number too long, nesting too deep
            raise _Stuck(at + 1, str(exc)) from None
        records.append(record)
        after = _WS.match(text, after).end()
        if after == lay.close:
            return Span(start, after, records)
        if text[after : after + 1] != ",":
            raise _Stuck(after, f"no comma after the record ending at {after}")
        at = _WS.match(text, after + 1).end()
        if after >= stop:
            return Span(start, at, records)


def leading(text: str, lay: Layout, n: int) -> list:
    """The file's first ``n`` records (fewer when it has fewer): what a format's check of
    the first records looks at when part 0 holds fewer."""
    if lay.lines:
        out, at = [], 0
        while len(out) < n and at < len(text):
            newline = text.find("\n", at)
            end = len(text) if newline < 0 else newline + 1
            out += _decode_lines(text[at:end])
            at = end
        return out[:n]
    out = []
    at = lay.first
    try:
        while len(out) < n:
            record, after = _DECODER.raw_decode(text, at)
            out.append(record)
            after = _WS.match(text, after).end()
            if text[after : after + 1] != ",":
                break
            at = _WS.match(text, after + 1).end()
    except (ValueError, RecursionError) as exc:
        raise Unreadable(str(exc)) from None
    return out


def chained(lay: Layout, spans: list[tuple[int, int]]) -> bool:
    """Whether the parts' ``(start, end)`` cover the file's records end to end (module
    doc): if not, some part started where no record does. Empty parts (no record begins
    in them) decoded nothing and are passed over."""
    spans = [(start, end) for start, end in spans if start != end]
    if not spans or spans[0][0] != lay.first or spans[-1][1] != lay.close:
        return False
    return all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))


def _line_start(text: str, lay: Layout, k: int, count: int) -> int:
    if k == 0:
        return 0
    if k >= count:
        return len(text)
    newline = text.find("\n", share(lay, k, count))
    return len(text) if newline < 0 else newline + 1


def _lines_part(text: str, lay: Layout, k: int, count: int) -> Span:
    """Part ``k`` of a JSON-lines text: its lines as :func:`.common.parse_json_records`
    splits them (``str.splitlines``, blank lines skipped), each decoded by ``json.loads``."""
    start, end = _line_start(text, lay, k, count), _line_start(text, lay, k + 1, count)
    return Span(start, end, _decode_lines(text[start:end]))


def _decode_lines(text: str) -> list:
    try:
        return [json.loads(ln) for ln in text.splitlines() if ln.strip()]
    except (ValueError, RecursionError) as exc:
        raise Unreadable(str(exc)) from None
