"""The LLM adapter (litellm, imported lazily): query tiers 3-4 and curation by the bridge."""
