"""Texts from the grammar, generated well-formed instead of filtered.

hypothesis' `from_lark` nests one example span per rule it expands, and gives the example up
("max depth exceeded") once it is 100 deep. The expression rules are a ladder of precedence levels,
so nearly every expression drawn that way went deep and was thrown away (99.6% of them).
`bounded_lark` draws the same sentences of the grammar, but near its depth picks only the
expansions that can still finish within it: nothing drawn is thrown away. (Whole files lose only
a third of from_lark's draws, and are left to it.)
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st
from hypothesis.extra.lark import LarkStrategy
from hypothesis.internal.conjecture.data import MAX_DEPTH
from lark import Lark
from lark.grammar import NonTerminal, Terminal


@functools.cache
def grammar_lark() -> Lark:
    """The language's grammar with its rules, which from_lark reads and a Lark parser loaded from
    its cache does not keep. Built when a test first draws from it (0.3 s of processor time): every pytest-xdist
    worker imports each test module, whether or not it runs that module's tests."""
    from rulesdsl.parser import GRAMMAR

    return Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", start=["start", "expr"])


# Depth kept free below MAX_DEPTH for what a terminal's own strategy nests (from_regex, a map), and
# for the strategies around this one (a tuple, a map, `st.data()`).
ROOM = 30


class BoundedLarkStrategy(LarkStrategy):
    def __init__(self, grammar: Lark, start: str | None, explicit: dict, alphabet, depth: int) -> None:
        super().__init__(grammar, start, explicit, alphabet)
        self.depth = depth
        self.limit = MAX_DEPTH - ROOM
        self.height = _heights(self.nonterminal_strategies)
        self.widest = {name: max(map(self._need, s.elements)) for name, s in self.nonterminal_strategies.items()}
        self._fitting: dict[tuple[str, int], st.SearchStrategy] = {}

    def do_draw(self, data) -> str:
        limit = self.limit
        self.limit = min(limit, data.depth + self.depth)
        try:
            return super().do_draw(data)
        finally:
            self.limit = limit

    def _need(self, expansion: tuple) -> int:
        """The depth below a rule that this expansion of it needs."""
        return max((1 if isinstance(s, Terminal) else self.height[s.name] for s in expansion), default=0)

    def draw_symbol(self, data, symbol, draw_state: list[str]) -> None:
        if isinstance(symbol, Terminal):
            return super().draw_symbol(data, symbol, draw_state)
        assert isinstance(symbol, NonTerminal)
        data.start_span(self.rule_label(symbol.name))
        try:
            every = self.nonterminal_strategies[symbol.name]
            room = self.limit - data.depth
            if room < self.widest[symbol.name]:  # (else every expansion fits: the same draw as from_lark's)
                key = (symbol.name, room)
                if key not in self._fitting:
                    self._fitting[key] = st.sampled_from([e for e in every.elements if self._need(e) <= room])
                every = self._fitting[key]
            for e in data.draw(every):
                self.draw_symbol(data, e, draw_state)
                self.gen_ignore(data, draw_state)
        finally:
            data.stop_span()


def _heights(rules: dict) -> dict[str, int]:
    """For each rule, the fewest levels of nesting a sentence of it needs (a terminal: 1)."""
    height: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for name, strategy in rules.items():
            options = [1 + max((height.get(s.name, 1) if isinstance(s, Terminal) else height.get(s.name, 10**6)
                                for s in e), default=0) for e in strategy.elements]
            best = min(options)
            if best < height.get(name, 10**6):
                height[name], changed = best, True
    return height


def bounded_lark(grammar: Lark, *, start: str | None = None, explicit: dict | None = None,
                 alphabet: st.SearchStrategy[str] | None = None, depth: int = MAX_DEPTH) -> st.SearchStrategy[str]:
    """As `from_lark(grammar, start=..., explicit=...)`, but no deeper than `depth` rules nested
    (nor than hypothesis allows)."""
    return BoundedLarkStrategy(grammar, start, explicit or {},
                               alphabet if alphabet is not None else st.characters(codec="utf-8"), depth)
