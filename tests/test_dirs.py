"""agentout's user directories: where platformdirs puts them, read without it on Linux."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from agentout.dirs import user_dir

KINDS = {
    "config": ("XDG_CONFIG_HOME", platformdirs.user_config_dir),
    "cache": ("XDG_CACHE_HOME", platformdirs.user_cache_dir),
    "data": ("XDG_DATA_HOME", platformdirs.user_data_dir),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("value", [None, "", "/somewhere/else", "relative/dir", "  /spaced  "])
def test_same_as_platformdirs(
    kind: str, value: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable, theirs = KINDS[kind]
    monkeypatch.setenv("HOME", str(tmp_path))
    if value is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, value)
    assert user_dir(kind) == Path(theirs("agentout"))  # type: ignore[arg-type]


def test_the_suite_runs_in_a_home_of_its_own() -> None:
    """Nothing a test writes through agentout's directories lands in the user's home."""
    import os

    from agentout.dirs import user_dir

    home = os.environ["AGENTOUT_TEST_HOME"]
    assert os.path.expanduser("~") == home
    for kind in ("config", "cache", "data"):
        assert str(user_dir(kind)).startswith(home + os.sep), kind
