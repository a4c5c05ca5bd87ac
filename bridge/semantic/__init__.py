"""The dense channel: sentence embeddings of the vault's passages, searched by meaning."""
