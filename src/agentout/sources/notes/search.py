"""Notes by relevance to a query: BM25 (``bm25s``) over title, tags, summary and body.

Words are lower-cased, English stop words dropped, no stemming. Only notes that share
a word with the query are returned, best first, ties broken by id, so the same vault
and query give the same order every time.
"""

from __future__ import annotations

import logging

from agentout.sources.notes.parse import NoteError
from agentout.sources.notes.vault import Vault

__all__ = ["rank"]


def rank(vault: Vault, query: str, limit: int | None = None) -> list[tuple[str, float]]:
    """(id, score) of the notes matching ``query``, best first, at most ``limit``."""
    import bm25s  # deferred: numpy and the index cost ~150 ms, paid only by --query

    logging.getLogger("bm25s").setLevel(logging.ERROR)
    ids = list(vault.notes)
    if not ids:
        return []
    texts = [_text(vault, note_id) for note_id in ids]
    options = {"stopwords": "en", "show_progress": False, "return_ids": False}
    words: list[str] = bm25s.tokenize([query], **options)[0]
    if not words:
        return []
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, **options), show_progress=False)
    scores = retriever.get_scores(words)
    ranked = sorted(
        ((note_id, float(score)) for note_id, score in zip(ids, scores, strict=True) if score > 0),
        key=lambda pair: (-pair[1], pair[0]),
    )
    return ranked if limit is None else ranked[:limit]


def _text(vault: Vault, note_id: str) -> str:
    note = vault.notes[note_id]
    try:
        body = vault.body(note_id)
    except NoteError:  # changed or gone since loading: rank what the index knows
        body = ""
    return "\n".join([note.title, " ".join(note.tags), note.summary, body])
