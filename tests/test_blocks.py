"""An op's way out is data: the block writer writes each one for where the op stands, and never
edits a line a statement's writer wrote (rulesdsl/compile/blocks.py)."""

from __future__ import annotations

import re

import pytest

import rulesdsl
from rulesdsl.compile.blocks import Ask, Branch, Goto, Halt, LeafDone, Pop, Push, op_lines
from rulesdsl.compile.source import Logged, Variant
from rulesdsl.engine.constants import CONTROL, JUMP, PLAIN, STACKED, TEST
from tests.conftest import GAMES

RULES = sorted(p for p in [*GAMES.glob("*.rules"), *GAMES.glob("variants/*.rules")] if ".test." not in p.name)


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_ways_out_are_data(path):
    """Every jump, test, call, return, decision and finish of every op is an exit item; the only
    `return` a writer writes as text is an `end`'s or a leaf run's STACKED, which every block
    returns as it is; and each kind of op has the way out its kind says."""
    bounds = rulesdsl.load(path)                  # four players, or the nearest count the game allows
    game = rulesdsl.load(path, players=min(max(4, bounds.min_players), bounds.max_players))
    for code in game.codes:
        for k, kind in enumerate(code.kinds):
            for items in (code.srcs[k](Variant()), op_lines(code.srcs[k])):
                lines = [x for x in items if isinstance(x, str)]
                exits = [x for x in items if not isinstance(x, str)]
                for line in lines:
                    assert re.findall(r"\breturn\b\s*(\S*)", line) in ([], [str(STACKED)]), (code.name, k, line)
                    assert "@NEXT@" not in line
                if kind == PLAIN:
                    assert not exits
                elif kind == JUMP:
                    assert isinstance(items[-1], Goto) and exits == [items[-1]]
                elif kind == TEST:
                    assert all(isinstance(x, Branch) for x in exits)
                elif exits:
                    assert kind == CONTROL and isinstance(items[-1], (Pop, LeafDone, Push, Ask, Halt))
                    assert all(isinstance(x, (Branch, Goto)) for x in exits[:-1])


def _texts(items) -> list[str]:
    return [x for x in items if isinstance(x, str)]


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_log_lines_are_data(path):
    """A writer marks the lines only a logged run runs (Logged items): written for a run that
    never keeps a log, no op has an event or a test of the log; written for the machine, every
    event is in a Logged item, and outside them no line tests the log. (A leaf written in place of
    its call is its blocks' text, which the block writer wrote: left out here.)"""
    bounds = rulesdsl.load(path)                  # three players, or the nearest count the game allows
    game = rulesdsl.load(path, players=min(max(3, bounds.min_players), bounds.max_players))
    for code in game.codes:
        for k in range(len(code.kinds)):
            plain = _texts(code.srcs[k](Variant()))
            if any("_leaf_error(" in x for x in plain):
                continue
            assert not any("st.event(" in x or "st.log" in x for x in plain), (code.name, k)
            items = code.srcs[k](Variant(log=True))
            assert not any("st.event(" in x or "st.log" in x for x in _texts(items)), (code.name, k)
            for item in items:
                if isinstance(item, Logged):
                    logged = [item.logged] if isinstance(item.logged, str) else _texts(item.logged)
                    assert not any("st.log" in x for x in logged + _texts(item.plain)), (code.name, k)
