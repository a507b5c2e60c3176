"""Read a .bib file the way BibTeX itself does, to check what an export will mean to it.

BibTeX (bibtex.web, the reference implementation; biber's btparse reads the same way)
is not the parser most tools use, and the differences are where a crafted paper forges
a citation:

- Braces count wherever they stand, backslash or not: `\\}` closes a group like `}`.
  (Zotero's importer and bibtexparser skip an escaped brace, so they read a field
  differently from BibTeX when a value holds `\\{` or `\\}`.)
- A field value is `{...}` (balanced), `"..."` (ends at a `"` outside braces), a number,
  or a macro name, joined by `#`.
- Outside an entry everything up to the next `@` is skipped; inside one an `@` is an
  ordinary character.
- After a syntax error BibTeX drops the entry and skips to the next `@`, even one in
  the middle of the broken entry's values: an early-closed value lets the rest of it
  be read as a new entry (`@misc(...)`) or a `@preamble` of LaTeX run at build time.

`read_bibtex` follows those rules and says what BibTeX would keep: the entries, the
`@preamble` and `@string` blocks, and the errors. `bot.library.export` checks each entry
it writes with it; the tests read whole exports with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_NOT_IN_NAMES = frozenset(" \t\n\r\f\v\"#%'(),={}")
"""What ends an entry type, key or field name (bibtex.web's `illegal` id characters, and white space)."""


@dataclass
class BibEntry:
    """One entry as BibTeX reads it: type and field names lowercased, values without their outer delimiters."""

    entry_type: str
    key: str
    fields: dict[str, str]


@dataclass
class BibFile:
    """What BibTeX keeps from a .bib text."""

    entries: list[BibEntry] = field(default_factory=list)
    preambles: list[str] = field(default_factory=list)
    strings: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class _SyntaxError(Exception):
    """An entry BibTeX would drop; reading goes on at the next `@`."""


def read_bibtex(text: str) -> BibFile:
    """Read `text` as BibTeX would: every entry, preamble and string it keeps, and its errors."""
    found = BibFile()
    at = text.find("@")
    while at != -1:
        reader = _Reader(text, at + 1, found.strings)
        try:
            reader.read_block(found)
            at = text.find("@", reader.at)
        except _SyntaxError as error:
            found.errors.append(str(error))
            at = text.find("@", reader.at if reader.at > at + 1 else at + 1)
    return found


class _Reader:
    """A cursor over one block, from just after its `@`."""

    def __init__(self, text: str, at: int, strings: dict[str, str]):
        self.text, self.at, self.strings = text, at, strings

    def fail(self, what: str) -> _SyntaxError:
        return _SyntaxError(f"{what} at character {self.at}")

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def name(self) -> str:
        self.skip_space()
        start = self.at
        while self.at < len(self.text) and self.text[self.at] not in _NOT_IN_NAMES:
            self.at += 1
        if self.at == start:
            raise self.fail("expected a name")
        return self.text[start : self.at]

    def expect(self, chars: str) -> str:
        self.skip_space()
        char = self.peek()
        if not char or char not in chars:
            raise self.fail(f"expected one of {chars!r}")
        self.at += 1
        return char

    def read_block(self, found: BibFile) -> None:
        kind = self.name().lower()
        if kind == "comment":  # bibtex.web skips the rest of an @comment to the next @
            return
        close = "}" if self.expect("{(") == "{" else ")"
        if kind == "preamble":
            value = self.value()
            self.expect(close)
            found.preambles.append(value)
            return
        if kind == "string":
            name = self.name().lower()
            self.expect("=")
            value = self.value()
            self.expect(close)
            found.strings[name] = value
            return
        key = self.key(close)
        fields: dict[str, str] = {}
        while True:
            if self.expect(close + ",") == close:
                break
            self.skip_space()
            if self.peek() == close:  # a trailing comma
                self.at += 1
                break
            name = self.name().lower()
            self.expect("=")
            fields[name] = self.value()
        found.entries.append(BibEntry(kind, key, fields))

    def key(self, close: str) -> str:
        """The citation key: up to a comma or white space (and, in `{` entries, a `}`)."""
        self.skip_space()
        start = self.at
        stops = ",}" if close == "}" else ","
        while self.at < len(self.text) and self.text[self.at] not in stops and not self.text[self.at].isspace():
            self.at += 1
        return self.text[start : self.at]

    def value(self) -> str:
        """A field value: its parts (braced, quoted, a number, a macro) joined by `#`."""
        parts = [self.part()]
        while True:
            self.skip_space()
            if self.peek() != "#":
                return "".join(parts)
            self.at += 1
            parts.append(self.part())

    def part(self) -> str:
        self.skip_space()
        char = self.peek()
        if char in ("{", '"'):
            return self.delimited(char)
        if char.isdigit():
            start = self.at
            while self.peek().isdigit():
                self.at += 1
            return self.text[start : self.at]
        return self.strings.get(self.name().lower(), "")  # an undefined macro: a warning and an empty value

    def delimited(self, opening: str) -> str:
        """A `{...}` or `"..."` value; braces count with or without a backslash before them."""
        self.at += 1
        start, depth = self.at, 0
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0:
                    if opening == "{":
                        self.at += 1
                        return self.text[start : self.at - 1]
                    raise self.fail("unbalanced '}' in a quoted value")
                depth -= 1
            elif char == '"' and opening == '"' and depth == 0:
                self.at += 1
                return self.text[start : self.at - 1]
            self.at += 1
        raise self.fail("a value runs to the end of the file")
