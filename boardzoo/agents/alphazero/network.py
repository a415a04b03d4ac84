"""The policy-value network of the ``alphazero`` agent, evaluated with NumPy alone.

A network file is a NumPy ``.npz`` archive: ``architecture`` (JSON, below), ``about``
(JSON: the game, the env's parameters, how the weights were made) and one float32 array
per parameter, named as PyTorch names them in the trainer's module
(:mod:`boardzoo.training.alphazero.model`), so the trainer writes what this module reads
and the tests hold the two to the same outputs.

Architectures (``kind``):

* ``conv``, for board games: a 3x3 convolution to ``channels`` planes, ``blocks``
  residual blocks (two 3x3 convolutions, ReLU after each, the block's input added
  before the second ReLU), then two heads: policy (1x1 convolution to 2 planes, a
  linear layer to the action logits) and value (1x1 convolution to 1 plane, a hidden
  linear layer of ``value_hidden`` with ReLU, a linear layer to one number, tanh).
* ``mlp``, for inputs without a board: a linear layer to ``channels`` units and
  ``blocks`` residual blocks of two linear layers, with the same two heads of linear
  layers.

A network of a game with hidden information may have a third head, ``belief`` (the
number of its outputs; 0 or absent: none): the logits of what the player to move cannot
see, learned from what it can (the hidden-information trainer's target; for Geister, the
odds that the opponent's ghost on each square is blue). On a ``conv`` trunk it is a 1x1
convolution to one plane, an output per cell; on an ``mlp`` trunk a linear layer.

No normalisation layers: the second layer of every residual block starts at zero (each
block starts as the identity), which trains these small networks as well and keeps the
network one set of arrays, the same in both libraries.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from boardzoo.files import load_npz
from boardzoo.games.registry import games

#: Kinds of trunk, and bounds on what a file may ask for (a file is input like any other).
KINDS = ("conv", "mlp")
LIMITS = {"channels": 1024, "blocks": 64, "value_hidden": 4096, "actions": 4096, "input": 1 << 20}
#: The largest network file read, in bytes.
MAX_FILE = 256 << 20
#: ... and at most this once unpacked (the arrays are stored as they are: about the file's size).
MAX_UNPACKED = 2 * MAX_FILE
#: Positions a convolutional network evaluates in one pass; more go in passes of this many
#: (larger passes ran slower a position: their gathered windows outgrow the cache).
PASS = 32
#: Batch sizes whose buffers a thread keeps for the next call of the same size.
KEPT_PLANS = 4


def parameter_shapes(architecture: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape for ``architecture`` (the file's contents)."""
    c, blocks, actions, hidden = (architecture[key] for key in ("channels", "blocks", "actions", "value_hidden"))
    shape = tuple(architecture["input"])
    shapes: dict[str, tuple[int, ...]] = {}
    if architecture["kind"] == "conv":
        planes, height, width = shape
        cells = height * width
        shapes["stem.weight"], shapes["stem.bias"] = (c, planes, 3, 3), (c,)
        for i in range(blocks):
            for layer in ("conv1", "conv2"):
                shapes[f"blocks.{i}.{layer}.weight"], shapes[f"blocks.{i}.{layer}.bias"] = (c, c, 3, 3), (c,)
        shapes["policy_conv.weight"], shapes["policy_conv.bias"] = (2, c, 1, 1), (2,)
        shapes["policy_fc.weight"], shapes["policy_fc.bias"] = (actions, 2 * cells), (actions,)
        shapes["value_conv.weight"], shapes["value_conv.bias"] = (1, c, 1, 1), (1,)
        value_in = cells
    else:
        (size,) = shape
        shapes["stem.weight"], shapes["stem.bias"] = (c, size), (c,)
        for i in range(blocks):
            for layer in ("fc1", "fc2"):
                shapes[f"blocks.{i}.{layer}.weight"], shapes[f"blocks.{i}.{layer}.bias"] = (c, c), (c,)
        shapes["policy_fc.weight"], shapes["policy_fc.bias"] = (actions, c), (actions,)
        value_in = c
    shapes["value_fc1.weight"], shapes["value_fc1.bias"] = (hidden, value_in), (hidden,)
    shapes["value_fc2.weight"], shapes["value_fc2.bias"] = (1, hidden), (1,)
    belief = architecture.get("belief", 0)
    if belief and architecture["kind"] == "conv":
        shapes["belief_conv.weight"], shapes["belief_conv.bias"] = (1, c, 1, 1), (1,)
    elif belief:
        shapes["belief_fc.weight"], shapes["belief_fc.bias"] = (belief, c), (belief,)
    return shapes


def check_architecture(architecture: Any, where: str) -> dict[str, Any]:
    """``architecture`` when it is one this module can build; ValueError naming ``where``."""
    if not isinstance(architecture, dict) or architecture.get("kind") not in KINDS:
        raise ValueError(f"{where}: the architecture must name a kind ({', '.join(KINDS)}), got {architecture!r:.200}")
    for key in ("channels", "blocks", "value_hidden", "actions"):
        value = architecture.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not (key == "blocks" or value >= 1) \
                or not 0 <= value <= LIMITS[key]:
            raise ValueError(f"{where}: architecture {key} must be an int up to {LIMITS[key]}, got {value!r:.50}")
    shape = architecture.get("input")
    rank = 3 if architecture["kind"] == "conv" else 1
    if not isinstance(shape, list) or len(shape) != rank or not all(isinstance(n, int) and n >= 1 for n in shape) \
            or int(np.prod(shape)) > LIMITS["input"]:
        raise ValueError(f"{where}: a {architecture['kind']} network's input must be {rank} positive sizes, "
                         f"got {shape!r:.100}")
    belief = architecture.get("belief", 0)
    cells = int(np.prod(shape[1:])) if rank == 3 else LIMITS["input"]
    if not isinstance(belief, int) or isinstance(belief, bool) or not 0 <= belief <= cells \
            or (rank == 3 and belief not in (0, cells)):
        raise ValueError(f"{where}: architecture belief must be the number of the belief head's outputs (0: none; "
                         f"a conv network's has one a cell), got {belief!r:.50}")
    return architecture


def move_probabilities(logits: np.ndarray, legal: Any) -> np.ndarray:
    """The softmax of ``logits`` over the ``legal`` actions (indices or a mask), in their
    order: the network's own policy."""
    chosen = np.asarray(logits, dtype=np.float64)[legal]
    weights = np.exp(chosen - chosen.max())
    return weights / weights.sum()


def _window_cells(height: int, width: int) -> np.ndarray:
    """For each cell of a board, the cells of its 3x3 window row by row (``height *
    width``, the zero cell, where the window leaves the board)."""
    cells = np.full((height * width, 9), height * width, dtype=np.intp)
    for row in range(height):
        for column in range(width):
            for k, (dr, dc) in enumerate((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)):
                if 0 <= row + dr < height and 0 <= column + dc < width:
                    cells[row * width + column, k] = (row + dr) * width + column + dc
    return cells


class Network:
    """A policy-value network's arrays and its forward pass in NumPy (float32)."""

    def __init__(self, architecture: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
                 about: Mapping[str, Any] | None = None, where: str = "network"):
        self.architecture = check_architecture(dict(architecture), where)
        self.about = dict(about or {})
        self.input_shape: tuple[int, ...] = tuple(self.architecture["input"])
        self.num_actions = int(self.architecture["actions"])
        shapes = parameter_shapes(self.architecture)
        missing = sorted(set(shapes) - set(arrays))
        if missing:
            raise ValueError(f"{where}: parameter {missing[0]} is missing")
        self.arrays: dict[str, np.ndarray] = {}
        for name, shape in shapes.items():
            array = np.asarray(arrays[name])
            if array.shape != shape or array.dtype.kind != "f":
                raise ValueError(f"{where}: parameter {name} must be floats of shape {shape}, got "
                                 f"{array.dtype} {array.shape}")
            if not np.isfinite(array).all():
                raise ValueError(f"{where}: parameter {name} holds a value that is not finite")
            self.arrays[name] = np.ascontiguousarray(array, dtype=np.float32)
        # Every layer as one matrix product, channels last: a 3x3 convolution's weights
        # ordered (row, column, channel) to match the windows gathered by ``_windows``.
        self._matrices = {}
        for name, array in self.arrays.items():
            if name.endswith(".weight"):
                if array.ndim == 4 and array.shape[2:] == (3, 3):
                    array = array.transpose(0, 2, 3, 1)
                self._matrices[name[:-len(".weight")]] = array.reshape(array.shape[0], -1).T.copy()
        if self.architecture["kind"] == "conv":
            self._windows = _window_cells(*self.input_shape[1:])
        self._plans = threading.local()  # each thread's buffers: one network may serve many threads

    def __getstate__(self) -> dict[str, Any]:  # a network travels to worker processes without its buffers
        return {key: value for key, value in self.__dict__.items() if key != "_plans"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._plans = threading.local()

    # --- files ---------------------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str) -> Network:
        """The network in file ``path``; ValueError saying what is wrong with a bad file."""
        arrays = load_npz(path, "network file", MAX_FILE, MAX_UNPACKED)
        texts = {}
        for key in ("architecture", "about"):
            if key not in arrays or arrays[key].dtype.kind != "U" or arrays[key].shape != ():
                raise ValueError(f"{path}: the network file has no {key} (JSON text)")
            try:
                texts[key] = json.loads(str(arrays.pop(key)))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}: the {key} is not JSON ({error})") from None
        if not isinstance(texts["about"], dict):
            raise ValueError(f"{path}: the about entry must be a JSON object")
        return cls(texts["architecture"], arrays, texts["about"], where=path)

    def save(self, path: str) -> None:
        """Write the network to file ``path`` (:meth:`write`)."""
        with open(path, "wb") as handle:
            self.write(handle)

    def write(self, handle: IO[bytes]) -> None:
        """Write the network to an open binary file, as :meth:`load` reads it."""
        entries: dict[str, Any] = {"architecture": np.array(json.dumps(self.architecture)),
                                   "about": np.array(json.dumps(self.about)), **self.arrays}
        np.savez(handle, **entries)

    # --- the forward pass ---------------------------------------------------------------------------------
    def __call__(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits (n, actions) and values (n,) in [-1, 1] for the player to move, of
        inputs (n, *input shape). A convolutional network runs in buffers kept from call
        to call (:class:`_Plan`); :meth:`reference` is the same computation written
        plainly, and the tests hold the two together."""
        x = np.asarray(inputs, dtype=np.float32)
        if self.architecture["kind"] != "conv" or not len(x):
            return self.reference(x)
        if len(x) > PASS:
            parts = [self(x[start:start + PASS]) for start in range(0, len(x), PASS)]
            return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        return self._planned(x)

    def belief(self, inputs: np.ndarray) -> np.ndarray:
        """The belief head's logits (n, outputs) of inputs (n, *input shape), for a network
        that has one (the module docstring)."""
        if not self.architecture.get("belief"):
            raise ValueError("this network has no belief head")
        x = np.asarray(inputs, dtype=np.float32)
        n = len(x)
        features = self._features(x)
        if self.architecture["kind"] == "conv":
            return self._dense("belief_conv", features.reshape(n, -1, features.shape[-1]))[..., 0]
        return self._dense("belief_fc", features)

    def _features(self, x: np.ndarray) -> np.ndarray:
        """The trunk's output, channels last, written plainly (the heads' shared input)."""
        n = len(x)
        if self.architecture["kind"] == "mlp":
            x = self._relu(self._dense("stem", x.reshape(n, -1)))
            for i in range(self.architecture["blocks"]):
                y = self._relu(self._dense(f"blocks.{i}.fc1", x))
                x = self._relu(x + self._dense(f"blocks.{i}.fc2", y))
            return x
        x = self._relu(self._conv3(x.transpose(0, 2, 3, 1), "stem"))
        for i in range(self.architecture["blocks"]):
            y = self._relu(self._conv3(x, f"blocks.{i}.conv1"))
            x = self._relu(x + self._conv3(y, f"blocks.{i}.conv2"))
        return x

    def _planned(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(x)
        plans: OrderedDict[int, _Plan] = self._plans.__dict__.setdefault("by_size", OrderedDict())
        plan = plans.pop(n, None) or _Plan(self, n)
        plans[n] = plan
        while len(plans) > KEPT_PLANS:
            plans.popitem(last=False)
        rows = n * plan.cells
        plan.planes[:rows] = x.reshape(n, x.shape[1], plan.cells).transpose(0, 2, 1).reshape(rows, -1)
        trunk = self._relu(plan.convolve("stem", plan.planes, plan.planes_windows, plan.trunk))
        for i in range(self.architecture["blocks"]):
            self._relu(plan.convolve(f"blocks.{i}.conv1", plan.trunk, plan.windows, plan.inner))
            # The block's output overwrites its inner layer (gathered into windows first).
            out = plan.convolve(f"blocks.{i}.conv2", plan.inner, plan.windows, plan.inner)
            out += trunk
            trunk = self._relu(out)
            plan.trunk, plan.inner = plan.inner, plan.trunk
        return self._heads(trunk.reshape(n, plan.cells, -1))

    def _heads(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two heads on a convolutional trunk's output, channels last (n, cells, channels)."""
        n = len(x)
        policy = self._relu(self._dense("policy_conv", x))
        logits = self._dense("policy_fc", policy.transpose(0, 2, 1).reshape(n, -1))
        value_in = self._relu(self._dense("value_conv", x)).reshape(n, -1)
        hidden = self._relu(self._dense("value_fc1", value_in))
        return logits, np.tanh(self._dense("value_fc2", hidden))[:, 0]

    def reference(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The forward pass written plainly, every layer a new array."""
        x = np.asarray(inputs, dtype=np.float32)
        n = len(x)
        features = self._features(x)
        if self.architecture["kind"] == "conv":
            return self._heads(features.reshape(n, -1, features.shape[-1]))
        hidden = self._relu(self._dense("value_fc1", features))
        return self._dense("policy_fc", features), np.tanh(self._dense("value_fc2", hidden))[:, 0]

    def _dense(self, name: str, x: np.ndarray) -> np.ndarray:
        """A linear layer (or a 1x1 convolution on channels-last planes)."""
        return x @ self._matrices[name] + self.arrays[f"{name}.bias"]

    def _conv3(self, x: np.ndarray, name: str) -> np.ndarray:
        """A 3x3 convolution (zero padding) of channels-last planes: each cell's window
        gathered in one indexing (a cell off the board reads the zero row appended),
        then one matrix product."""
        n, height, width, channels = x.shape
        cells = np.concatenate([x.reshape(n, height * width, channels), np.zeros((n, 1, channels), x.dtype)], axis=1)
        windows = cells[:, self._windows]  # (n, cells, 9, channels)
        out = windows.reshape(n * height * width, 9 * channels) @ self._matrices[name] + self.arrays[f"{name}.bias"]
        return out.reshape(n, height, width, -1)

    @staticmethod
    def _relu(x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0.0, out=x)


#: The games whose network input is a board (planes, rows, columns), whose actions are
#: its columns, and whose rules know no left or right: a position's mirror image is its
#: input flipped left to right, with the actions reversed.
MIRRORED = tuple(name for name, game in games().items() if game.learning is not None and game.learning.mirrored)


class MirrorAveraged:
    """``network``'s answers averaged with its answers for each position's mirror image
    (the board flipped left to right, the actions, its columns, reversed with it): the
    means of the two logits and of the two values. A network is only nearly symmetric, and
    the mean of two views errs less than either (``docs/benchmarks.md``); each question
    costs two passes, asked in one batch. For the games of
    :data:`MIRRORED` (the caller checks the game)."""

    def __init__(self, network: Network):
        if len(network.input_shape) != 3:
            raise ValueError("a mirror image needs a board input (planes, rows, columns), not "
                             f"{network.input_shape}")
        self.network = network

    def __call__(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.asarray(inputs, dtype=np.float32).reshape(-1, *self.network.input_shape)
        n = len(x)
        logits, values = self.network(np.concatenate([x, x[..., ::-1]]))
        return (logits[:n] + logits[n:, ::-1]) / 2, (values[:n] + values[n:]) / 2


class _Plan:
    """A convolutional network's buffers for batches of ``n`` positions. A layer's planes
    are rows (position, cell) of channels, with one zero row after all of them that the
    off-board cells of a window read; a 3x3 convolution gathers every row's window into
    a buffer with one ``take`` and multiplies it in place: no array is made per layer."""

    def __init__(self, network: Network, n: int):
        planes, height, width = network.input_shape
        channels = network.architecture["channels"]
        self.n, self.cells = n, height * width
        rows = n * self.cells
        windows = network._windows  # (cells, 9): a cell's window, self.cells where off the board
        self.gather = np.where(windows[None] == self.cells, rows,
                               windows[None] + (np.arange(n) * self.cells)[:, None, None]).reshape(-1)
        self.planes = np.zeros((rows + 1, planes), np.float32)
        self.trunk = np.zeros((rows + 1, channels), np.float32)
        self.inner = np.zeros((rows + 1, channels), np.float32)
        self.planes_windows = np.zeros((rows * 9, planes), np.float32)
        self.windows = np.zeros((rows * 9, channels), np.float32)
        self._network = network

    def convolve(self, name: str, source: np.ndarray, windows: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Layer ``name`` on ``source``'s rows into ``target``'s (which may be ``source``);
        the rows written (the zero row stays zero)."""
        np.take(source, self.gather, axis=0, out=windows, mode="clip")
        rows = self.n * self.cells
        out = target[:rows]
        np.matmul(windows.reshape(rows, -1), self._network._matrices[name], out=out)
        out += self._network.arrays[f"{name}.bias"]
        return out
