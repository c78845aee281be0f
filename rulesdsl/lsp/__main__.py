"""`python -m rulesdsl.lsp`: the language server over stdio (as `rulesdsl lsp`)."""

from .server import main

main()
