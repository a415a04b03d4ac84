"""Reading a file a person names, bounded: only a regular file (a named pipe or a device
would block or never end), at most so many bytes on disk, and a NumPy archive at most so
many bytes once unpacked (a small archive can inflate to gigabytes); and a file's
contents' digest."""

from __future__ import annotations

import hashlib
import os
import stat
import zipfile
from typing import IO

import numpy as np


def open_regular(path: str, what: str = "file") -> IO[bytes]:
    """``path`` opened for reading when it is a regular file; ValueError naming it as
    ``what`` otherwise. The open cannot block: a named pipe is opened without waiting for
    a writer, then refused."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise ValueError(f"cannot read {what} {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"cannot read {what} {path}: not a regular file")
    return os.fdopen(fd, "rb")


def load_npz(path: str, what: str, max_bytes: int, max_unpacked: int) -> dict[str, np.ndarray]:
    """The arrays of the NumPy archive ``path`` (no pickles); a ValueError naming ``path``
    as ``what`` when it is not a regular file, is over ``max_bytes`` on disk or would
    unpack to over ``max_unpacked`` bytes, or is no archive."""
    with open_regular(path, what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise ValueError(f"{path}: a {what} is at most {max_bytes:,} bytes, this one {size:,}")
        try:
            with zipfile.ZipFile(handle) as archive:
                unpacked = sum(member.file_size for member in archive.infolist())
            if unpacked > max_unpacked:
                raise ValueError(f"{path}: a {what} unpacks to at most {max_unpacked:,} bytes, this one to "
                                 f"{unpacked:,}")
            handle.seek(0)
            with np.load(handle, allow_pickle=False) as archive:
                return {name: archive[name] for name in archive.files}
        except ValueError as error:
            if str(error).startswith(path):
                raise
            raise ValueError(f"{path} is not a {what} (a NumPy .npz archive): {error}") from None
        except (zipfile.BadZipFile, EOFError, KeyError, OSError) as error:
            raise ValueError(f"{path} is not a {what} (a NumPy .npz archive): {error}") from None


def file_digest(path: str, length: int) -> str:
    """The first ``length`` hex digits of the SHA-256 of the file's contents, read in
    blocks: which network (or other content) a file holds, whatever its name."""
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()[:length]
