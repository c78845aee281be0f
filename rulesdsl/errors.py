"""Errors a user can cause, printed the way compilers print them so editors can jump to them."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

import attrs

from .ast import Span

# The most errors one RulesError reports; the rest are counted (compilers stop too: "too many errors").
MAX_ERRORS = 100
# The most characters of a source line an error quotes (a longer line is cut around the place).
QUOTE_WIDTH = 160


def source_lines(text: str) -> list[str]:
    """A source's lines as the parser counts them: split at "\n" only. (str.splitlines also splits
    at form feeds, U+2028 and others, which a comment may hold, and then every later line would be
    quoted one off.)"""
    return [line.removesuffix("\r") for line in text.split("\n")]


def printable(line: str) -> str:
    """A source line safe to print on a terminal, one character for one: tabs and other control or
    format characters (an escape sequence in a comment, U+2028) become spaces, so the caret under
    it stays in its column and the file cannot drive the terminal."""
    return "".join(" " if not ch.isprintable() and unicodedata.category(ch)[0] in "CZ" else ch for ch in line)


@attrs.frozen
class Diagnostic:
    span: Span | None
    message: str
    hint: str | None = None
    severity: str = "error"

    def format(self, sources: dict[str, str] | None = None, _lines: dict[str, list[str]] | None = None) -> str:
        if self.span is None or self.span.line <= 0:
            head = f"{self.severity}: {self.message}"
            return head + (f"\n  hint: {self.hint}" if self.hint else "")
        s = self.span
        lines = [f"{s.file}:{s.line}:{s.column}: {self.severity}: {self.message}"]
        text = (sources or {}).get(s.file)
        if text is not None:
            src_lines = _lines[s.file] if _lines is not None and s.file in _lines else source_lines(text)
            if 0 < s.line <= len(src_lines):
                line = printable(src_lines[s.line - 1])
                end = s.end_column if s.end_line == s.line and s.end_column > s.column else len(line) + 1
                col, end = s.column, min(end, len(line) + 1)
                if len(line) > QUOTE_WIDTH:  # a long line: the part around the place, marked as cut
                    start = max(0, min(col - 1 - QUOTE_WIDTH // 4, len(line) - QUOTE_WIDTH))
                    cut = ("..." if start else "") + line[start : start + QUOTE_WIDTH]
                    shift = start - (3 if start else 0)
                    line = cut + ("..." if start + QUOTE_WIDTH < len(line) else "")
                    col, end = col - shift, min(end - shift, len(cut) + 1)
                lines.append(f"  {line}")
                lines.append("  " + " " * (col - 1) + "^" * max(1, end - col))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class RulesError(Exception):
    """A rules file (or a parameter given to it) that does not make a game: all its errors."""

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None):
        found = sorted(diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.column) if d.span else ("", 0, 0))
        self.truncated = len(found) > MAX_ERRORS
        if self.truncated:  # (the parser stops looking after one more: how many more is not known)
            found = [*found[:MAX_ERRORS], Diagnostic(found[MAX_ERRORS].span,
                                                     f"too many errors: stopped after {MAX_ERRORS}", "fix these first")]
        self.diagnostics = found
        self.sources = dict(sources or {})
        super().__init__(self.format())

    def __reduce__(self):
        # (A worker process's error comes back pickled; the default would call __init__ with the text.)
        return type(self), (self.diagnostics, self.sources)

    def format(self) -> str:
        lines = {f: source_lines(self.sources[f]) for f in {d.span.file for d in self.diagnostics if d.span}
                 if f in self.sources}  # split once: a file with many errors is not split once per error
        body = "\n".join(d.format(self.sources, lines) for d in self.diagnostics)
        n = sum(d.severity == "error" for d in self.diagnostics)
        if self.truncated:
            return body + f"\nmore than {MAX_ERRORS} errors"
        return body + (f"\n{n} errors" if n > 1 else "")


class RulesRuntimeError(Exception):
    """A rule that went wrong while a game was played (a loop with no decision, an undefined value)."""

    def __init__(self, message: str, span: Span | None = None):
        self.message = message
        self.span = span
        where = f"{span}: " if span and span.line > 0 else ""
        super().__init__(f"{where}runtime error: {message}")

    def __reduce__(self):
        # (As RulesError's: pickled with its text, it would come back saying "runtime error" twice.)
        return type(self), (self.message, self.span)


class IllegalMove(ValueError):
    """A move that is not one of the legal moves of the state it was applied to. Nothing changed."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate, as a hint, or None."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
