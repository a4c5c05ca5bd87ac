"""The tiered query engine: caches, retrieval over the index, tier routing."""
