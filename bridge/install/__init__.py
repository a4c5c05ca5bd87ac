"""Putting the bridge to work on a machine: service files, MCP client entries, vault set-up."""
