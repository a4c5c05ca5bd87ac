"""A guide for agents: the vault's conventions, its outline and its most important entries.

`compose` builds the guide from plain facts (no I/O), `render` and `tree` turn it and the
folder tree into Markdown, and `gather` collects the facts from a live bridge. The HTTP API
(`GET /v1/guide`) and MCP (`memory_guide`, `memory_tree`, resources, the curate prompt) serve it.
The package itself imports nothing: the API's models take `models` alone.
"""
