"""Opening a file a user names, safely: only a regular file, opened without waiting."""

from __future__ import annotations

import os
import stat


def open_regular_file(name: str, what: str, error: type[Exception], hint: str) -> int:
    """A descriptor of ``name``, open for reading and blocking again, or ``error`` with a message
    that starts with ``what``. The open itself does not wait (``O_NONBLOCK``: a FIFO with no
    writer would block it), and anything but a regular file (a pipe, device, socket or
    directory) is refused, so nothing named as a file can hang the command. ``hint`` ends the
    message for a file that is not regular."""
    try:
        descriptor = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise error(f"{what} not found") from None
    except IsADirectoryError:
        raise error(f"{what} is a directory, not a file") from None
    except (OSError, ValueError) as problem:
        raise error(f"{what} cannot be opened: {getattr(problem, 'strerror', None) or problem}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"{what} is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise error(f"{what} is not a regular file (a pipe, device or socket); {hint}")
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor
