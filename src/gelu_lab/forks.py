"""Whether this process was made by fork after gelu_lab was imported.

GNU OpenMP (libgomp, which torch and gelu_lab's native kernel share) keeps a
pool of threads that a fork does not copy: a child that enters a parallel
region after its parent ran one hangs. gelu_lab.core imports this module, so
the hook below is in place before any fork a program makes after importing
gelu_lab; the native kernel then runs Python threads in the child instead.
"""

import os

_CHILD = []
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _CHILD.append(True))


def forked() -> bool:
    """True in a child made by fork (since this module was imported)."""
    return bool(_CHILD)
