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


class Variant:
    """Which form of a statement's source its writer writes: with the log's events (`log`, for a
    run that keeps a log), with the lines that keep a straight run's counts of hands by face
    (`counting`: only straight runs keep counts, the machine's blocks never run while they last).
    It notes whether the writer asked about the log: one that did not writes one form for both."""

    __slots__ = ("_log", "counting", "log_asked")

    def __init__(self, log: bool = False, counting: bool = False) -> None:
        self._log = log
        self.counting = counting
        self.log_asked = False

    @property
    def log(self) -> bool:
        self.log_asked = True
        return self._log


STRAIGHT_RUN = Variant(counting=True)  # a straight function (straight.py): no log, counts kept
