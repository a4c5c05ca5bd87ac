"""Importers: bring outside knowledge (chat transcripts) into the vault as entries."""
