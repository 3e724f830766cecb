"""Where a client keeps the whole of an output it cut: the only folders a hook reads it from.

A client that cuts a long output keeps all of it in a file and names the file in the
payload (Claude Code's ``persistedOutputPath``, OpenCode's ``outputPath``). The payload
comes from whatever started the hook, and the warm server reads it outside the agent's
sandbox: a path that names ``~/.ssh/id_ed25519`` or another project's file would have the
hook read it, keep it in the store and show it to the model. So the file is read only
where the client itself writes such files (symlinks resolved first):

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects/<slug>/<session>/tool-results/`` (by default
  ``~/.claude/projects/...``), in a folder named ``tool-results``;
- OpenCode: ``$XDG_DATA_HOME/opencode/tool-output/`` (by default
  ``~/.local/share/opencode/tool-output/``).

Anything else is refused unread (``OutsideFolders``): the hook answers nothing, says why
in one line, and the client shows its own cut of the output.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Folder", "OutsideFolders", "claude", "confined", "opencode"]


class OutsideFolders(OSError):
    """A persisted output named outside the folders its client writes them in."""


class Folder:
    """A client's folder of persisted outputs: ``root``, and the name each file's own
    folder must have (None: any, at any depth under the root)."""

    def __init__(self, client: str, root: str, parent: str | None = None) -> None:
        self.client, self.root, self.parent = client, root, parent

    def holds(self, real: str) -> bool:
        root = os.path.realpath(self.root)
        inside = real.startswith(root.rstrip(os.sep) + os.sep)
        named = os.path.basename(os.path.dirname(real))
        return inside and (self.parent is None or named == self.parent)

    def __str__(self) -> str:
        tail = f"{os.sep}...{os.sep}{self.parent}" if self.parent else ""
        return f"{self.client}'s {self.root}{tail}"


def claude(environ: Mapping[str, str] | None = None) -> Folder:
    """Claude Code's: ``$CLAUDE_CONFIG_DIR`` (else ``~/.claude``) ``/projects/.../tool-results``."""
    env = os.environ if environ is None else environ
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    base = os.path.expanduser(configured or os.path.join("~", ".claude"))
    return Folder("Claude Code", os.path.join(base, "projects"), "tool-results")


def opencode(environ: Mapping[str, str] | None = None) -> Folder:
    """OpenCode's: ``$XDG_DATA_HOME`` (else ``~/.local/share``) ``/opencode/tool-output``."""
    env = os.environ if environ is None else environ
    data = env.get("XDG_DATA_HOME", "").strip()
    if not os.path.isabs(data):  # the XDG rule: a relative value is ignored
        data = os.path.expanduser(os.path.join("~", ".local", "share"))
    return Folder("OpenCode", os.path.join(data, "opencode", "tool-output"))


def confined(path: str, folder: Folder) -> str:
    """The real path of ``path`` when ``folder`` holds it; ``OutsideFolders`` if not."""
    real = os.path.realpath(path)
    if not folder.holds(real):
        raise OutsideFolders(f"{path}: not in {folder}, where it keeps outputs; not read")
    return real
