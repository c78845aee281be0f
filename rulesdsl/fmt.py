"""`rulesdsl fmt`: rules files laid out in the house style of games/, comments kept.

The layout is the one the repository's games are written in (they are its fixed points, and a
test keeps them so):

- four spaces of indentation a level of `{`, `(` or `[`; a closing bracket that begins a line
  stands where the line that opened it begins. A line that continues a declaration or statement
  (`and ...` under `winners are if ...`) keeps its indentation relative to the line above it:
  how to line up a long condition is the author's call;
- one space between words, none inside `(` `[` or before `,` `:` `)` `]`, one inside `{ }`, none
  around `.` and `..`, none after a sign (`x == -2`, `then -n`), at least one after `,` (more
  line up the columns of a table, and stay); where the author wrote no space (`x*2`, `f(x)`,
  `if (x)`) none is added;
- a comment at the end of a line stays in its column when the code before it leaves room (so
  aligned comments stay aligned), else one space after the code; a comment line written right
  of where code would stand, under such a comment (no blank line between), goes on with it and
  stays where it was written;
- no trailing spaces, no tabs for indentation, one blank line at most between lines, one newline
  at the end.

Only whitespace changes: the result is parsed again and must give the same declarations, or the
file is left as it was (an internal error, never a changed game).
"""

from __future__ import annotations

import re
from typing import TextIO

import attrs

from . import ast
from .errors import Diagnostic, RulesError
from .parser import parse_text

INDENT = 4
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|==|!=|<=|>=|\+=|-=|\.\.|\S')
OPEN, CLOSE = "([{", ")]}"
NO_SPACE_BEFORE = {",", ":", ")", "]", ".", ".."}
NO_SPACE_AFTER = {"(", "[", ".", ".."}
# words after which a `-` is a sign, not a subtraction (`then -n`, `in -1..17`)
BEFORE_A_VALUE = {"then", "else", "in", "and", "or", "not", "return", "is", "if", "while", "when"}


@attrs.define
class _Line:
    tokens: list[str]  # the code, a token each (strings whole)
    gaps: list[int]  # spaces written before each token
    comment: str | None
    comment_col: int  # 0-based column the comment was written at
    indent: int  # as written
    start: bool = False  # a declaration, statement or scenario step begins it


def format_text(text: str, path: str = "<string>") -> str:
    """The text laid out in the house style. Raises RulesError (located) if it does not parse."""
    tree = parse_text(text, path)
    lines = [_split(line) for line in text.replace("\r\n", "\n").split("\n")]
    for line_no, col in _starts(tree):
        line = lines[line_no - 1]
        if line.tokens and col == line.indent + 1:
            line.start = True
    out = _layout(lines)
    again = parse_text(out, path)
    if _shape(again) != _shape(tree):  # (a bug in the formatter: the game would change)
        raise RulesError([Diagnostic(ast.Span(path, 1, 1, 1, 2), "internal error: formatting would change the rules",
                                     "please report it; the file is left as it is")])
    return out


def _split(text: str) -> _Line:
    body = text.rstrip()
    indent = len(body) - len(body.lstrip(" \t"))
    tokens: list[str] = []
    gaps: list[int] = []
    comment, comment_col = None, 0
    pos = indent
    for m in TOKEN.finditer(body, indent):
        if m.group(0).startswith("#"):
            comment, comment_col = m.group(0), m.start()
            break
        tokens.append(m.group(0))
        gaps.append(m.start() - pos)
        pos = m.end()
    return _Line(tokens, gaps, comment, comment_col, indent)


def _starts(tree: ast.RulesFile) -> set[tuple[int, int]]:
    """Where each declaration, statement and scenario step begins: (line, column)."""
    out: set[tuple[int, int]] = set()
    todo: list[object] = list(tree.decls)
    while todo:
        node = todo.pop()
        if isinstance(node, tuple):
            todo.extend(node)
            continue
        if not isinstance(node, ast.Node):
            continue
        if isinstance(node, (ast.Decl, ast.Stmt, ast.Step, ast.CardCount)):
            out.add((node.span.line, node.span.column))
        todo.extend(getattr(node, f.name) for f in attrs.fields(type(node)) if f.name != "span")
    return out


def _layout(lines: list[_Line]) -> str:
    out: list[str] = []
    # The open brackets: (the new indentation of the line that opened it, the context's last line:
    # its indentation as written and as laid out, or None before the first).
    stack: list[tuple[int, tuple[int, int] | None]] = [(-INDENT, None)]
    blank = False
    # Whether the last line ended in a comment: a comment line written under it, right of where
    # code would stand, goes on with that comment and stays where it was written.
    tail = False
    for line in lines:
        if not line.tokens and line.comment is None:
            blank = bool(out)
            tail = False
            continue
        if blank:
            out.append("")
            blank = False
        closes = line.tokens[0] in CLOSE if line.tokens else False
        opener, prev = stack[-1]
        base = opener + INDENT
        if closes or line.start or prev is None or not line.tokens:
            indent = opener if closes else base
        else:  # a continuation: as far from the line above as it was written
            indent = max(base, prev[1] + line.indent - prev[0])
        if not line.tokens and line.indent == 0:
            indent = 0  # (a comment written at the margin stays there)
        goes_on = not line.tokens and tail and line.indent > indent
        if goes_on:
            indent = line.indent
        code = " " * indent + _join(line)
        if line.comment is not None:
            code = (code + " " * max(1, line.comment_col - len(code)) if line.tokens else code) + line.comment
        tail = line.comment is not None and (bool(line.tokens) or goes_on)
        out.append(code)
        if line.tokens:
            stack[-1] = (stack[-1][0], (line.indent, indent))
            _brackets(line.tokens, stack, indent)
    return "\n".join(out) + "\n" if out else ""


def _brackets(tokens: list[str], stack: list, indent: int) -> None:
    for t in tokens:
        if t in OPEN:
            stack.append((indent, None))
        elif t in CLOSE and len(stack) > 1:
            stack.pop()


def _join(line: _Line) -> str:
    parts: list[str] = []
    for k, t in enumerate(line.tokens):
        if k:
            prev = line.tokens[k - 1]
            if prev == ",":  # (more spaces line up a table: `2 fruit("fig", 1),   2 fruit(...)`)
                parts.append(" " * max(1, line.gaps[k]))
            elif (t in NO_SPACE_BEFORE or prev in NO_SPACE_AFTER or (prev, t) == ("{", "}")
                  or (prev == "-" and _sign(line.tokens, k - 1))):
                pass
            elif prev == "{" or t == "}":  # `if x { break }`
                parts.append(" ")
            elif t in OPEN and t != "{":  # `f(x)` and `if (x)`: as written
                parts.append(" " if line.gaps[k] else "")
            elif line.gaps[k] or t == "{" or prev == "}":
                parts.append(" ")
            else:
                parts.append("")  # `-1`, `a+b`: as written
        parts.append(t)
    return "".join(parts)


def _sign(tokens: list[str], k: int) -> bool:
    """Whether the `-` at tokens[k] is a sign: it follows an operator, a bracket that opens, a
    comma or a word such as `then`. At the start of a line it may go on a subtraction from the
    line above: left as written."""
    if k == 0:
        return False
    before = tokens[k - 1]
    if before in CLOSE or before[0] in "\"0123456789":
        return False
    if before[0].isalpha() or before[0] == "_":
        return before in BEFORE_A_VALUE
    return True


def _shape(node: object) -> object:
    """A node's content without its positions, to compare two parses."""
    if isinstance(node, ast.RulesFile):
        return _shape(node.decls)
    if isinstance(node, tuple | list):
        return tuple(_shape(x) for x in node)
    if isinstance(node, ast.Node):
        return (type(node).__name__, *(_shape(getattr(node, f.name)) for f in attrs.fields(type(node))
                                       if not f.name.endswith("span") and f.name != "warnings"))
    return node


def format_files(paths: list[str], check: bool, inp: TextIO, out: TextIO, err: TextIO) -> int:
    """`rulesdsl fmt`: each file rewritten in place when its layout changes (`-`: standard input
    to standard output); with `check`, nothing written, and 1 if any file would change. A file
    that does not parse is reported as `check` reports it, and left alone."""
    from .loader import read_file

    status = 0
    for path in paths:
        try:
            text = inp.read() if path == "-" else read_file(path)
            new = format_text(text, "<stdin>" if path == "-" else path)
        except RulesError as e:
            print(e.format(), file=err)
            status = 1
            continue
        if path == "-":
            out.write(new if not check else "")
            status = max(status, int(check and new != text))
        elif new != text:
            if check:
                print(f"{path}: would be reformatted", file=out)
                status = 1
            else:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(new)
                print(f"{path}: formatted", file=out)
    return status
