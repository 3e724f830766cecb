"""A store that accepts connections and never answers, on 127.0.0.1:PORT, for the pages
that show agentout's store deadlines (docs/cli/clean.md, docs/cli/show.md).

    python3 examples/docs/silent_store.py PORT

returns once it listens; a child process holds every connection open, unread and
unanswered, until it is stopped.
"""

from __future__ import annotations

import os
import socket
import sys


def main(port: int) -> None:
    server = socket.create_server(("127.0.0.1", port))
    if os.fork():
        return  # listening: the caller may connect now
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    held = []
    while True:
        connection, _ = server.accept()
        held.append(connection)  # kept open, never answered


if __name__ == "__main__":
    main(int(sys.argv[1]))
