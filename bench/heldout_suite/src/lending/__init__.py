"""A small lending library: a catalog, members, loans and their fines."""
