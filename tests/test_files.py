"""Files a person names are read bounded: a named pipe is refused at once, not waited
on, and an archive that would unpack past its bound is refused before it is unpacked."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from boardzoo.files import load_npz


def test_a_named_pipe_as_weights_is_refused_at_once(tmp_path):
    """``alphazero:weights=`` a named pipe hung, waiting for a writer that never came."""
    from boardzoo.agents import make as make_agent
    from boardzoo.errors import SpecError

    pipe = tmp_path / "weights.npz"
    os.mkfifo(pipe)
    raised = []

    def load():
        try:
            make_agent(f"alphazero:weights={pipe}")
        except SpecError as error:
            raised.append(str(error))

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "reading a named pipe blocked"
    assert raised and "not a regular file" in raised[0]


def test_an_archive_that_unpacks_past_its_bound_is_refused_unread(tmp_path):
    path = tmp_path / "big.npz"
    np.savez_compressed(path, zeros=np.zeros(2_000_000, dtype=np.uint8))  # 2 MB unpacked, a few KB on disk
    assert os.path.getsize(path) < 100_000
    with pytest.raises(ValueError, match="a network file unpacks to at most 1,000,000 bytes, this one to 2,000,"):
        load_npz(str(path), "network file", 1_000_000, 1_000_000)
    with pytest.raises(ValueError, match="a network file is at most 1,000 bytes"):
        load_npz(str(path), "network file", 1_000, 10_000_000)
    assert load_npz(str(path), "network file", 1_000_000, 10_000_000)["zeros"].shape == (2_000_000,)
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(ValueError, match="is not a network file \\(a NumPy .npz archive\\)"):
        load_npz(str(tmp_path / "text.npz"), "network file", 1_000, 1_000)
    with pytest.raises(ValueError, match="cannot read network file .*: not a regular file"):
        load_npz(str(tmp_path), "network file", 1_000, 1_000)
