"""A move: what `State.legal_moves()` lists and `State.apply` takes back; a decision: the point
where a player is asked, which the moves answer.

Its own module, below the state that makes moves and the game that re-exports the name
(`rulesdsl.Move`), so that neither has to import the other for it.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Move:
    """One option of the pending decision: a short stable text that `State.apply` accepts back."""

    text: str
    player: int
    index: int = attrs.field(eq=False, repr=False)

    def __str__(self) -> str:
        return self.text


class Decision:
    """A point where a player chooses: the turn's action, or a `choose` statement."""

    __slots__ = ("index", "label", "slot", "domain", "by", "optional", "elem", "span", "name", "pass_label",
                 "label_fn", "pass_fn", "secret", "sets")

    def __init__(self, index, label, slot, domain, by, optional, elem, span, name="", pass_label="pass",
                 label_fn=None, pass_fn=None):
        self.index = index
        self.label = label
        self.slot = slot
        self.domain = domain  # f(state, env) -> list of values, or None for the turn decision
        self.by = by  # f(state, env) -> seat, or None for the current player
        self.optional = optional
        self.elem = elem  # the type of the options: card, player, int, bool, str
        self.span = span
        self.name = name
        self.pass_label = pass_label
        # f(state, locals) -> the label filled in, for a label with `{...}` values (else None: the
        # label is the same text at every ask).
        self.label_fn = label_fn
        self.pass_fn = pass_fn
        self.secret = False  # a `choose` in a secret block: its move is logged to its chooser alone
        self.sets = None  # a `choose set`'s size and test (engine/sets.py); its options are lists of cards

    def hidden_text(self) -> str:
        """What the other seats read of a secret decision's move: that it was made, never which
        (a label with values, or a pass, could tell)."""
        return f"{self.label} (secret)" if self.label and self.label_fn is None and not self.optional else "(secret)"
