"""Curation: the single writer for agents' operations, and the review queue."""
