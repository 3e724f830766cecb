import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from calc import add, divide


def test_add():
    assert add(1, 2) == 3


def test_add_wrong():
    assert add(2, 2) == 5


def test_divide_by_zero():
    assert divide(1, 0) == 0


def test_divide():
    assert divide(6, 3) == 2.5
