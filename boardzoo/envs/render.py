"""Tiny numpy drawing helpers for ``rgb_array`` renders (no pygame needed)."""

from __future__ import annotations

import numpy as np

BLUE = (30, 80, 200)
WHITE = (240, 240, 240)
RED = (220, 40, 40)
YELLOW = (240, 200, 30)
GREY = (110, 110, 110)
BLACK = (20, 20, 20)


def disc_mask(size: int, margin: int) -> np.ndarray:
    """Boolean (size, size) mask of a disc centred in a square cell."""
    centre = (size - 1) / 2
    radius = size / 2 - margin
    y, x = np.ogrid[:size, :size]
    return (x - centre) ** 2 + (y - centre) ** 2 <= radius**2


def canvas(height: int, width: int, colour: tuple[int, int, int]) -> np.ndarray:
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[:] = colour
    return image


def paint(image: np.ndarray, top: int, left: int, mask: np.ndarray, colour) -> None:
    """Paint ``colour`` where ``mask`` is true, with the mask's corner at (top, left)."""
    h, w = mask.shape
    image[top:top + h, left:left + w][mask] = colour
