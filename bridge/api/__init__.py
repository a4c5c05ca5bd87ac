"""The localhost HTTP API (FastAPI, `/v1`): what the Obsidian plugin and agents call."""
