"""Where spilled output lives, beyond the local directory of ``agentout.store.spill``.

``AGENTOUT_STORE`` (or ``--store``) names the store: a local path (the default, today's
private directory) or a URL of an object store, ``s3://bucket/prefix``, ``gs://…`` or
``az://…``, reached through fsspec and its packages (``agentout[s3]``, ``[gcs]``,
``[azure]``) with each cloud's own credential chain. ``SpillStore`` stays the one
interface: a remote store is a local store (the copy this machine wrote, and the place
output goes when the remote one cannot be reached) with an object store behind it.

- ``address``: parsing ``AGENTOUT_STORE`` / ``--store`` into a local path or a URL.
- ``remote``: the object store through fsspec: listing, ranged reads, removal.
- ``upload``: streaming a spill to the object store from a helper process while the
  output still arrives (memory flat, the command never waits on the network), or, in a
  long-lived server, through one uploader in the process.
- ``timeouts``: the deadline of every call to an object store, and the grace ``run``
  gives its upload.
- ``index``: the line index uploaded beside each object, so ``show`` reads one page
  with a few ranged reads instead of the whole object.
"""
