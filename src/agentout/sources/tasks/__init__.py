"""Commands inside task runners: each recipe line of ``make``, ``just``, ``npm run`` and
``pnpm run``
reduced on its own, labelled with its recipe, instead of the runner's output as one blob.

``agentout run -- make check`` (and the hook's rewrite of ``make check``) asks
``prepare`` whether the runner can be told to start each recipe line through agentout's
line shell (``agentout.sources.tasks.shell``) without changing what runs: make's ``SHELL``,
just's ``--shell``/``--shell-arg``, npm's ``--script-shell`` (pnpm's
``--config.script-shell``). The line shell runs every
line with the shell and flags the runner would have used, and prints the line's
reduced output under one label. Where that cannot be shown to be the same (a Makefile
that sets ``SHELL`` in a way not read here, a justfile module with a shell of its own,
an npm config that names a script shell), ``prepare`` answers None and the command runs
as it was, its output reduced whole.

Off with ``AGENTOUT_TASKS=0`` (see docs/tasks.md).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the line shell imports this package for every recipe line
if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentout.sources.tasks._plans import Prepared

__all__ = ["ENV_TASKS", "RUNNERS", "enabled", "prepare"]

ENV_TASKS = "AGENTOUT_TASKS"
# The programs whose recipe lines can be reduced one by one (argv[0]'s basename).
RUNNERS = frozenset({"make", "gmake", "just", "npm", "pnpm"})


def enabled() -> bool:
    """On unless ``AGENTOUT_TASKS`` is 0, false, no or off."""
    value = os.environ.get(ENV_TASKS, "").strip().lower()
    return value not in ("0", "false", "no", "off")


def prepare(argv: Sequence[str], cwd: str | None = None) -> Prepared | None:
    """``argv`` told to run each recipe line through the line shell, or None when it is
    not a runner agentout can do this for, or not safely (see the module docstring)."""
    if not argv or not enabled():
        return None
    program = os.path.basename(argv[0])
    if program not in RUNNERS:
        return None
    where = cwd if cwd is not None else os.getcwd()
    from agentout.sources.tasks import _plans

    plan = _plans.plan(program, tuple(argv), where)
    if plan is None:
        return None
    return _plans.realise(plan)
