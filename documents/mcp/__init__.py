"""The MCP server at /mcp: tools that search, list and read the token owner's documents
(docs/using/mcp.md). view.py serves it, tools.py names the tools, handlers.py does their
work, reads.py and shapes.py are what they read and answer."""
