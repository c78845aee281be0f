"""Errors a user can cause, printed the way compilers print them so editors can jump to them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import attrs

from .ast import Span


@attrs.frozen
class Diagnostic:
    span: Span | None
    message: str
    hint: str | None = None
    severity: str = "error"

    def format(self, sources: dict[str, str] | None = None) -> str:
        if self.span is None or self.span.line <= 0:
            head = f"{self.severity}: {self.message}"
            return head + (f"\n  hint: {self.hint}" if self.hint else "")
        s = self.span
        lines = [f"{s.file}:{s.line}:{s.column}: {self.severity}: {self.message}"]
        text = (sources or {}).get(s.file)
        if text is not None:
            src_lines = text.splitlines()
            if 0 < s.line <= len(src_lines):
                line = src_lines[s.line - 1].replace("\t", " ")
                lines.append(f"  {line}")
                end = s.end_column if s.end_line == s.line and s.end_column > s.column else len(line) + 1
                width = max(1, min(end, len(line) + 1) - s.column)
                lines.append("  " + " " * (s.column - 1) + "^" * width)
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class RulesError(Exception):
    """A rules file (or a parameter given to it) that does not make a game: all its errors."""

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = sorted(
            diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.column) if d.span else ("", 0, 0)
        )
        self.sources = dict(sources or {})
        super().__init__(self.format())

    def format(self) -> str:
        body = "\n".join(d.format(self.sources) for d in self.diagnostics)
        n = len(self.diagnostics)
        return body + (f"\n{n} errors" if n > 1 else "")


class RulesRuntimeError(Exception):
    """A rule that went wrong while a game was played (a loop with no decision, an undefined value)."""

    def __init__(self, message: str, span: Span | None = None):
        self.span = span
        where = f"{span}: " if span and span.line > 0 else ""
        super().__init__(f"{where}runtime error: {message}")


class IllegalMove(ValueError):
    """A move that is not one of the legal moves of the state it was applied to. Nothing changed."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate, as a hint, or None."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
