"""The game's random generator: SplitMix64 on one integer, so a state's chance is plain data.

A seed and a list of moves replay a game exactly, on any Python version, and cloning a state
copies one int instead of a Mersenne Twister's 625 words.
"""

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int) -> int:
    return (seed * GOLDEN + 0x5851F42D4C957F2D) & MASK


def next64(state: int) -> tuple[int, int]:
    """(new state, 64 random bits)."""
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)
