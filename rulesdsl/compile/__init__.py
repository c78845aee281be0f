"""The back-end: a checked program to a runnable game (see docs/design.md, "The pipeline")."""

from .program import Compiler, compile_program
from .tables import A_CARD, CARDS, NO_CARD, names_cards

__all__ = ["A_CARD", "CARDS", "NO_CARD", "Compiler", "compile_program", "names_cards"]
