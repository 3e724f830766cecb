"""The savings ledger: what each delivery to an agent cost, and what it would have cost.

- ``row``: one delivery, and what a row may hold (checked before it is stored).
- ``database``: the SQLite file: rows stored in transactions, a busy database waited
  for a bounded time, a corrupt one moved aside.
- ``pending``: deliveries waiting to be counted, so that small commands never load a
  tokenizer, and counting them into the database (``fold``) without losing one.
- ``news``: what the ledger says about itself, on stderr or in the recorder's log.
- ``book``: the face: ``record``, ``record_later``, ``rows``.
- ``report``: what ``agentout gain`` shows, the rows summed per command and period.
- ``export``: the rows as JSONL or Parquet files any engine can load.
"""
