"""The browser UI (``boardzoo serve``, the ``web`` extra): play any env against any agent
by clicking, watch arena runs live, replay results files with a move slider, and look
inside the search (an MCTS tree as an interactive graph, alpha-beta's expected line).

:mod:`boardzoo.web.sessions` keeps the games and runs (no web framework needed);
:mod:`boardzoo.web.app` is the Starlette app over them; ``static/`` is the page (plain
HTML, SVG and JavaScript, no build step). The core never imports this package.
"""
