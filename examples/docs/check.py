"""What a failing test run prints, for the docs' examples of `agentout run` (exit 1)."""

import sys

print("collecting 3 items")
print("test_a.py::test_ok PASSED")
print("test_a.py::test_div FAILED")
print("Traceback (most recent call last):")
print('  File "test_a.py", line 7, in test_div')
print("    assert 1 / 0")
print("ZeroDivisionError: division by zero")
print("1 failed, 2 passed in 0.03s")
sys.exit(1)
