"""The savings ledger: what each delivery to an agent cost, and what it would have cost.

- ``book``: one row per delivery, in a local SQLite database, counted later from a
  pending file so that small commands never load a tokenizer.
- ``report``: what ``agentout gain`` shows, the rows summed per command and period.
- ``export``: the rows as JSONL or Parquet files any engine can load.
"""
