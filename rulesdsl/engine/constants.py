"""The numbers the compiler writes into a game's tables and the machine reads back: zone shapes and
visibilities, what a generated block returns, and the kinds of ops.

They sit at the bottom of the engine, importing nothing, so every module (the state, its views and
saves, the compiler's back-end) can name them without reaching into the machine; state.py names
them too.
"""

# Zone shapes and visibilities, as the compiler numbers them.
STACK, HAND, GRID = 0, 1, 2
HIDDEN, PRIVATE, PUBLIC, OTHERS = 0, 1, 2, 3  # (OTHERS: every seat but the zone's owner)

# What an op returns besides None (go on) or a jump target (>= 0).
SUSPEND = -1  # (-2 was HALT: the game's end now records its position and returns SUSPENDED)
RELOAD = -3  # the op changed the stack of frames (a call, a return): reload the top frame
# An `end` set the stack's frames and their positions itself: reload the top frame as it stands
# (its position must not be overwritten with the one after the running block).
STACKED = -4
LEAF_DONE = -5  # a leaf's code ran to its end (see `machine.run_leaf`)
SUSPENDED = -6  # as SUSPEND, but the block recorded where its frame goes on itself
# (The machine's loop, `State._advance`, writes STACKED and SUSPENDED as numbers: quicker to read.)

# What an op may return, which says how a generated block runs it: PLAIN ops return None, TEST ops
# None or a jump, JUMP ops always a jump; a CONTROL op may return anything and ends its block.
PLAIN, TEST, JUMP, CONTROL = 0, 1, 2, 3
