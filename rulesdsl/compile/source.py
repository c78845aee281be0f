"""Small helpers for writing Python source, shared by the writers of expressions, blocks and
straight functions."""

from __future__ import annotations

import re


class NoSource(Exception):
    """A writer of a special form (an option loop, a counted option) does not write this one:
    its caller writes the general form (the expression's own source) instead."""


# A Python string literal in generated source (its text is never renamed).
_STRING = re.compile(r"[rbfRBF]*(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")")


def env_list(items: list[str], size: int) -> str:
    """Python making a new env of `size` slots, `items` first: one list display, a short padding
    written out (`[a] + [None] * k` builds three lists, and costs a call's worth of time)."""
    pad = size - len(items)
    if pad <= 12:
        return "[" + ", ".join([*items, *["None"] * pad]) + "]"
    return "[" + ", ".join(items) + f"] + [None] * {pad}" if items else f"[None] * {size}"
