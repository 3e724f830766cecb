"""Delivery: a packed result handed to its two audiences, inline or as a reference.

- ``hybrid``: small results inline, large ones as a reference to the complete data in
  the store, with a summary (records and JSONL).
- ``text``: a command's text output, as printed when it fits, reduced when a reducer
  knows it, cut to what matters when it does not, never larger than it was.
- ``whole``: output given whole, as printed, importing nothing else (the task runners'
  line shell gives each small recipe line this way).
- ``dual``: the model's content and the person's display of one result.
"""
