"""A move: what `State.legal_moves()` lists and `State.apply` takes back.

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
