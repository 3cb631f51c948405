"""Label Studio ``hypertextlabels`` results (the HyperText tag: HTML) as spans on text.

A HyperText result locates its span by XPath: ``value.start`` and
``value.end`` name the DOM text nodes, ``startOffset``/``endOffset`` are
offsets inside them. Label Studio also writes ``value.globalOffsets``
(``{"start", "end"}``): offsets into the page's text as the editor counts
it, every text node in document order plus one character for each
``<br>``. The task's text here is that text (:func:`page`: markup dropped,
character references decoded) with a line break added at the edges of block
elements where it has no whitespace (``<p>Ben</p><p>in`` is two words, as
the annotator saw them), and offsets moved past the breaks added; so a task
labeled in HyperText reads, and is written back, as one labeled in Text
(its markup is not kept). Label Studio 0.x named the result type
``htmllabels`` and wrote no ``globalOffsets``.

Placing a span, in this order:

1. ``globalOffsets`` that select the result's ``value.text`` (or any, when
   it has no text), counted in code points or, as Label Studio did before
   2022, in UTF-16 code units;
2. else the one place in the text where ``value.text`` occurs.

A result that neither places is skipped with a warning naming the file,
line, task, annotator and span text (an error with ``strict``), as any span
that cannot be placed (:mod:`.spans`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from tagtool.core.corpus import SKIPPED_SPAN
from tagtool.store.formats._common import ReadContext

#: Result types of the HyperText tag (``htmllabels``: Label Studio 0.x).
HYPERTEXT_TYPES = ("hypertextlabels", "htmllabels")


def is_hypertext(result: Any) -> bool:
    """Whether a result is a HyperText span."""
    return isinstance(result, dict) and result.get("type") in HYPERTEXT_TYPES


#: Elements the browser shows as blocks: a line break is put at their edges
#: so that "<p>Ben</p><p>in" is two words, as the annotator saw them.
BLOCKS = frozenset(
    "address article aside blockquote dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr "
    "li main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)


@dataclass
class Page:
    """The text of an HTML document (:func:`page`).

    ``counted`` is the text as Label Studio counts ``globalOffsets`` in it;
    ``text`` is that text with a line break added at block edges where it
    has no whitespace, at the offsets ``inserted`` (into ``counted``).
    """

    text: str
    counted: str
    inserted: list[int] = field(default_factory=list)

    def offsets(self, start: int, end: int) -> tuple[int, int]:
        """Offsets into ``counted`` as offsets into ``text``."""
        return start + bisect_right(self.inserted, start), end + bisect_left(self.inserted, end)


def hypertext_result(item: Any) -> Any:
    """A JSON-MIN span (a result's value) as its result: HyperText spans are typed, others left as they are."""
    if isinstance(item, dict) and any(k in item for k in HYPERTEXT_TYPES):
        return {"type": next(k for k in HYPERTEXT_TYPES if k in item), "value": item}
    return item


def is_page(text: str, results: list[list], seen) -> bool:
    """Whether a task's text is read as an HTML page (its annotations' ``results``).

    It is when the task holds HyperText results and no Text (``labels``)
    ones; a task without span results (its annotators marked nothing) is
    when the file held HyperText results before, or when its text is one
    HTML element (``<div>...</div>``): a HyperText project's task, whose
    markup is no words.
    """
    flat = [r for result in results for r in result]
    if any(not isinstance(r, dict) or r.get("type", "labels") == "labels" for r in flat):
        return False
    if any(is_hypertext(r) for r in flat):
        seen.hypertext = True
        return True
    stripped = text.strip()
    return seen.hypertext or (stripped.startswith("<") and stripped.endswith(">"))


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []  # Page.text
        self.counted: list[str] = []  # Page.counted
        self.length = 0  # of Page.counted
        self.inserted: list[int] = []
        self.block_edge = False  # a block element began or ended since the last text

    def handle_data(self, data: str) -> None:
        if self.block_edge and self.parts and not self.parts[-1][-1:].isspace() and not data[:1].isspace():
            self.parts.append("\n")
            self.inserted.append(self.length)
        self.block_edge = False
        self.parts.append(data)
        self.counted.append(data)
        self.length += len(data)

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "br":  # the editor counts a <br> as one character
            self.handle_data("\n")
        elif tag in BLOCKS:
            self.block_edge = True

    def handle_endtag(self, tag: str) -> None:
        if tag != "br":  # "</br>" is no second line break
            self.handle_starttag(tag, [])

    def handle_startendtag(self, tag: str, attrs) -> None:
        self.handle_starttag(tag, attrs)


def page(markup: str) -> Page:
    """The text of an HTML document: markup dropped, character references decoded.

    >>> page("<p>Anna &amp; Ben</p><p>left<br/>Oslo</p>").text
    'Anna & Ben\\nleft\\nOslo'
    """
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return Page("".join(parser.parts), "".join(parser.counted), parser.inserted)


def plain(text: str) -> Page:
    """A text that is no HTML, as a :class:`Page` (offsets count its characters)."""
    return Page(text, text)


def hypertext_spans(text: Page, results: list, where: str, line: int, ctx: ReadContext, strict: bool) -> list[dict]:
    """``labels`` results for the HyperText results that can be placed in ``text`` (module docstring)."""
    out = []
    for result in results:
        value = result.get("value")
        value = value if isinstance(value, dict) else {}
        label = next((value[k] for k in (*HYPERTEXT_TYPES, "labels") if k in value), None)
        said = value.get("text") if isinstance(value.get("text"), str) else None
        placed = _place(text.counted, value, said)
        if isinstance(placed, str):
            message = f"{where}: {result['type']} span {label!r} {(said or '')[:80]!r}: {placed}"
            if strict:
                raise ctx.error(line, message)
            ctx.warn(line, message + "; skipped", SKIPPED_SPAN)
            continue
        start, end = text.offsets(*placed)
        span = {"start": start, "end": end, "text": text.text[max(start, 0) : max(end, 0)], "labels": label}
        out.append({**result, "type": "labels", "value": span})
    return out


def _place(text: str, value: dict, said: str | None) -> tuple[int, int] | str:
    """``(start, end)`` of a HyperText span in ``text``, or why it has none."""
    offsets = value.get("globalOffsets")
    start, end = (offsets.get("start"), offsets.get("end")) if isinstance(offsets, dict) else (None, None)
    if integers(start, end):
        if said is None:
            return start, end  # the span reader says if they fall outside the text
        if text[max(start, 0) : max(end, 0)] == said:
            return start, end
        moved = _utf16_moved(text, start, end)
        if moved is not None and text[moved[0] : moved[1]] == said:
            return moved
    if not said:
        return "no globalOffsets and no text to find it by"
    found = _occurrences(text, said)
    if len(found) == 1:
        return found[0], found[0] + len(said)
    where = (
        "its globalOffsets do not select its text, which" if integers(start, end) else "no globalOffsets, and its text"
    )
    return f"{where} occurs {len(found)} times in the task's text"


def integers(*values: Any) -> bool:
    """Whether every value is an int (a JSON number without a fraction; not a bool)."""
    return all(isinstance(x, int) and not isinstance(x, bool) for x in values)


def utf16_index(text: str) -> list[int]:
    """``index[u]``: the code point offset of UTF-16 offset ``u`` (astral characters count twice).

    Label Studio's editor measured offsets as JavaScript does, in UTF-16 code
    units, until 2022; later versions count code points.
    """
    index = []
    for i, char in enumerate(text):
        index.extend([i, i] if ord(char) > 0xFFFF else [i])
    index.append(len(text))
    return index


def _utf16_moved(text: str, start: int, end: int) -> tuple[int, int] | None:
    """UTF-16 offsets ``start``, ``end`` as code points, if they fall on characters."""
    index = utf16_index(text)
    if not 0 <= start <= end < len(index):
        return None
    return index[start], index[end]


def _occurrences(text: str, said: str) -> list[int]:
    found, at = [], text.find(said)
    while at >= 0:
        found.append(at)
        at = text.find(said, at + 1)
    return found
