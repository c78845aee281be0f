"""The back-end: a checked program to a runnable game (see docs/design.md, "The pipeline")."""

from .program import A_CARD, CARDS, NO_CARD, Compiler, compile_program, names_cards

__all__ = ["A_CARD", "CARDS", "NO_CARD", "Compiler", "compile_program", "names_cards"]
