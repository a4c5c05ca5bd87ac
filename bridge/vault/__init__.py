"""Adapters for the vault's files: listing, reading, atomic writing and path safety."""
