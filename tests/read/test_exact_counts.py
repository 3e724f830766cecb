"""Every count agentout prints equals what it stands for: each fold of lines of one shape,
each run of the same line or lines, each gap, and ``lines=``, ``shown=`` and ``tokens=``
of the closing line, over generated output of any size (tests/output_claims.py reads them
back as an agent would)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentout.deliver.text import TextSettings, deliver_output
from agentout.read.digest import digest
from agentout.read.trouble import Scan
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore
from agentout.tokens import count
from generated_output import outputs
from output_claims import check_claims

_FIVE_THOUSAND = b"".join(
    b"src/m%d.c:%d:5: warning: unused variable 'v%d' [-Wunused-variable]\n" % (i % 40, i, i)
    for i in range(5000)
)


def _delivered(data: bytes, threshold: int, max_tokens: int | None) -> str:
    with tempfile.TemporaryDirectory(prefix="agentout-counts-") as scratch:
        capture = Capture(threshold=threshold, store=SpillStore(Path(scratch) / "spill"))
        capture.feed(data)
        capture.close()
        delivered = deliver_output(capture, TextSettings(threshold, max_tokens))
        return delivered.text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=outputs(),
    threshold=st.sampled_from([1_000, 30_000]),
    max_tokens=st.sampled_from([None, 150, 600, 3000]),
)
@example(data=_FIVE_THOUSAND, threshold=30_000, max_tokens=None)
@example(data=_FIVE_THOUSAND, threshold=30_000, max_tokens=600)
def test_every_count_in_the_output_is_the_output_s(
    data: bytes, threshold: int, max_tokens: int | None
) -> None:
    check_claims(data, _delivered(data, threshold, max_tokens))


def test_five_thousand_warnings_of_one_shape_are_said_once_as_5000() -> None:
    text = _delivered(_FIVE_THOUSAND, 30_000, None)
    claims = check_claims(_FIVE_THOUSAND, text)
    assert claims.folds == 1
    assert "[… 4999 more like this: <*> warning: unused variable <*> [-Wunused-variable]]" in text


def test_without_the_output_at_hand_again_nothing_is_folded_by_a_count_it_cannot_know() -> None:
    scan = Scan()
    scan.feed(_FIVE_THOUSAND)
    found = digest(scan.finish())  # no source: the scan kept 600 of the 5,000 warnings
    texts = [str(record.fullest["text"]) for record in found.records]
    assert not any("more like this" in text for text in texts)
    found = digest(scan.finish(), lambda: (_FIVE_THOUSAND,))
    texts = [str(record.fullest["text"]) for record in found.records]
    assert sum("[… 4999 more like this:" in text for text in texts) == 1


def test_a_traceback_printed_83_times_is_shown_once_with_its_count() -> None:
    block = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/.venv/lib/python3.12/site-packages/app/main.py", line 88, in <module>\n'
        "    main(config=load_config(os.environ.get('APP_CONFIG', '/etc/app/app.toml')))\n"
        '  File "/srv/app/.venv/lib/python3.12/site-packages/app/db/pool.py", line 42, in main\n'
        "    pool = connect(host=config.database.host, port=config.database.port, retries=3)\n"
        "  ConnectionError raised here after 3 attempts with a 30 second timeout each\n"
        "ConnectionError: the database at db.internal:5432 did not answer (timed out)\n"
    )
    data = ("starting worker\n" + block * 83 + "worker gave up\n").encode()
    assert count(data.decode()) > 9_000
    text = _delivered(data, 30_000, None)
    claims = check_claims(data, text)
    assert count(text) < 300
    assert claims.repeats == 1
    assert "[… the same 7 lines 82 more times]" in text
    assert text.count("Traceback (most recent call last):") == 1


def test_fit_on_a_file_counts_the_whole_file(tmp_path: Path) -> None:
    from agentout.sources.fit import fit

    path = tmp_path / "build.log"
    path.write_bytes(_FIVE_THOUSAND)
    assert "[… 4999 more like this:" in fit(path, max_tokens=500).text
    assert "[… 4999 more like this:" in fit(str(path), max_tokens=500, spill=True).text
    with path.open("rb") as stream:  # read once, not again: no count it cannot know
        assert "more like this" not in fit(stream, max_tokens=500).text
