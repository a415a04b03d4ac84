"""Vector drawings of the boards: ``render_mode="svg"`` and the browser UI share them.

Every env draws its position as one self-contained SVG document (no scripts, no external
files), so the same text is a figure for a paper, an image in a notebook and the board the
web UI clicks on. Elements a player can click carry data attributes the UI reads, and
nothing else depends on them:

* ``data-action="N"`` on an element that plays action ``N`` when clicked (a Connect Four
  or Cantris column, a Nim pawn), with ``data-label`` the move as the player writes it;
* ``data-square="x,y"`` on a square and ``data-ghost="A"`` on the viewer's own Geister
  ghost (moves there need two clicks, or a drag); the root ``<svg>`` then carries
  ``data-cell``, ``data-left`` and ``data-top``, the grid's geometry;
* ``class="last"`` on what the last move changed.
"""

from __future__ import annotations

from html import escape

#: Colours shared by every board (close to the RGB renders').
BOARD_BLUE = "#1e50c8"
EMPTY = "#f0f0f0"
RED = "#dc2828"
YELLOW = "#f0c81e"
GHOST_BLUE = "#2f6fdf"
GHOST_RED = "#d8343c"
HIDDEN = "#8a8a8a"
INK = "#202020"
FAINT = "#d0d0d0"


class SvgImage(str):
    """An SVG document: a plain ``str`` that Jupyter and IPython show as a picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def document(width: float, height: float, body: list[str], title: str, css_class: str, **data: object) -> SvgImage:
    """An ``<svg>`` root around ``body`` with a ``<title>`` (read by screen readers)."""
    attributes = "".join(f' data-{key.replace("_", "-")}="{escape(str(value))}"' for key, value in data.items())
    return SvgImage(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" width="{width:g}" '
        f'height="{height:g}" class="board {css_class}" font-family="sans-serif"{attributes}>'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>")


def text(x: float, y: float, content: str, size: float = 14, anchor: str = "middle", fill: str = INK,
         weight: str = "normal", css_class: str = "") -> str:
    extra = f' class="{css_class}"' if css_class else ""
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" fill="{fill}" '
            f'font-weight="{weight}" dominant-baseline="central"{extra}>{escape(content)}</text>')


def animation(attribute: str, start: float, end: float, seconds: float = 0.35) -> str:
    """A SMIL animation of ``attribute`` from ``start`` to ``end``, its final value (the
    UI's last move: a disc dropping, pawns fading; a static export leaves it out, and
    viewers that ignore SMIL show the end)."""
    return (f'<animate attributeName="{attribute}" from="{start:g}" to="{end:g}" dur="{seconds:g}s" '
            f'fill="freeze" calcMode="spline" keySplines="0.5 0 1 1" keyTimes="0;1"/>')
