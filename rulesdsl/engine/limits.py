"""The limits that keep a rules file that compiles from running away with the machine's time or
memory: each has a default, each can be raised (`rulesdsl.load(..., limits={...})`, `--limit`),
and a rule that passes one stops with a runtime error located at its line."""

from __future__ import annotations

from collections.abc import Mapping

# name -> (default, what it bounds: for messages and `--help`)
LIMITS: dict[str, tuple[int, str]] = {
    "steps": (200_000, "passes of loops (`while`, `repeat`), turns and rounds, and refills, between two decisions"),
    "depth": (1_000, "calls of recursive procedures in progress at once"),
    "places": (10_000, "places of a grid"),
    "list": (10_000, "items of a list a rule makes by joining lists with + (as many as a range may have)"),
    "digits": (18, "decimal digits of a number a rule stores (counters, variables, locals)"),
    "sets": (100_000, "sets of cards a `choose set` tries or offers in one decision"),
}

MAX_DIGITS = 300


def limits_of(given: Mapping[str, object] | None = None) -> dict[str, int]:
    """The defaults with `given` over them, checked: a ValueError names a limit that does not
    exist or a value that is not a whole number of at least 1."""
    out = {name: default for name, (default, _) in LIMITS.items()}
    for name, value in (given or {}).items():
        if name not in out:
            raise ValueError(f"there is no limit '{name}' (limits: {', '.join(LIMITS)})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"the limit {name} must be a whole number of at least 1, not {value!r}")
        if name == "digits" and value > MAX_DIGITS:
            raise ValueError(f"the limit digits must be at most {MAX_DIGITS} (a mean of numbers must fit a float)")
        out[name] = value
    return out


def parse_limit(text: str) -> tuple[str, int]:
    """`NAME=VALUE` as given to `--limit`; a ValueError says what is wrong with it."""
    name, eq, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not eq or not name:
        raise ValueError(f"--limit takes NAME=VALUE, not '{text}'")
    if not value.isascii() or not value.isdigit() or len(value) > 30:
        raise ValueError(f"the limit {name} must be a whole number of at least 1, not '{value}'")
    limits_of({name: int(value)})  # (the name and the value checked)
    return name, int(value)
