"""The tantivy adapter: schema, documents, the on-disk index and its manifest."""
