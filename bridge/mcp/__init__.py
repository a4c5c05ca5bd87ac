"""The MCP server (`vault-bridge mcp`, stdio): memory tools for coding agents."""
