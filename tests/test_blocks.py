"""An op's way out is data: the block writer writes each one for where the op stands, and never
edits a line a statement's writer wrote (rulesdsl/compile/blocks.py)."""

from __future__ import annotations

import re

import pytest

import rulesdsl
from rulesdsl.compile.blocks import Ask, Branch, Goto, Halt, LeafDone, Pop, Push
from rulesdsl.compile.source import Variant
from rulesdsl.engine.state import CONTROL, JUMP, PLAIN, STACKED, TEST
from tests.conftest import GAMES

RULES = sorted(p for p in [*GAMES.glob("*.rules"), *GAMES.glob("variants/*.rules")] if ".test." not in p.name)


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_ways_out_are_data(path):
    """Every jump, test, call, return, decision and finish of every op is an exit item; the only
    `return` a writer writes as text is an `end`'s or a leaf run's STACKED, which every block
    returns as it is; and each kind of op has the way out its kind says."""
    game = rulesdsl.load(path, players=4)
    for code in game.codes:
        for k, kind in enumerate(code.kinds):
            for v in (Variant(), Variant(log=True)):
                items = code.srcs[k](v)
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
