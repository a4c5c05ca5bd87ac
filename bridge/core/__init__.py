"""The domain core: entries, relations, lifecycle and ranking, with no I/O.

Everything here works on plain values so it can be tested without a vault, an index or a clock.
"""
