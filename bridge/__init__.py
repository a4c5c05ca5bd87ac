"""Vault Bridge: agent-native memory that lives in an Obsidian vault."""

__version__ = "0.1.0"
