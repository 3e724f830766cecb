"""auto: the lossless format that costs the fewest tokens for this result.

Every candidate reads back to exactly the records shown (null, "", [] and {} kept, the
string "1" apart from the number 1). ``candidates(result)`` lists, in this fixed order:
compact JSON, TOON with commas, TOON with tabs, CSV when the records are flat and uniform
(every view of every record holds scalars only; the fullest views all have the same
keys in the same order), and the records format, often the smallest for nested,
non-uniform records. ``pack`` packs each under the same budget and keeps the one that
shows the most records, then the fewest shortened ones, then the fewest tokens (ties
keep the earlier), naming it ``auto:<name>``. Rendered on its own, auto is the json
format.
"""

from __future__ import annotations

from agentout.formats import Format
from agentout.formats.csv import FORMAT as CSV
from agentout.formats.csv import is_flat, is_flat_uniform
from agentout.formats.json import FORMAT as JSON
from agentout.formats.json import record_object
from agentout.formats.records import FORMAT as RECORDS
from agentout.formats.toon import ORDERED as TOON
from agentout.formats.toon import ORDERED_TAB as TOON_TAB
from agentout.records import Document, Record, Result, View

__all__ = ["FORMAT", "AutoFormat"]


class AutoFormat:
    name = "auto"

    def candidates(self, result: Result) -> list[Format]:
        found: list[Format] = [JSON, TOON, TOON_TAB]
        # CSV reads back any record exactly (see formats.csv), but it is a table: offered
        # when every view is flat and the fullest views share their keys. A terser view
        # with fewer keys leaves empty cells, which read back as the fields it lacks.
        fullest = [record_object(r, r.fullest) for r in result.records]
        every_view = (record_object(r, v) for r in result.records for v in r.views)
        if is_flat_uniform(fullest) and is_flat(every_view):
            found.append(CSV)
        found.append(RECORDS)
        return found

    def render(self, document: Document) -> str:
        return JSON.render(document)

    def fragment(self, record: Record, view: View) -> str:
        return JSON.fragment(record, view)


FORMAT = AutoFormat()
