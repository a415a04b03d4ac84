"""The browser UI's HTTP routes (Starlette); the state they serve is in
:mod:`boardzoo.web.sessions`, the page in ``static/``.

Every route answers JSON; a request the server refuses gets a 4xx status (503 when every
search is busy) and ``{"error": "..."}`` saying why. Agents think in the search processes
of :mod:`boardzoo.web.searches`, so one long search does not stop the server answering
others, each move keeps to a time limit, and a page that goes away ends its search.

The server is meant for the person at this machine, and :class:`Guard` keeps other web
pages out: it answers only requests whose ``Host`` is a name it was started under (a page
of another site that rebinds its DNS name to 127.0.0.1 still sends its own name), takes
state-changing requests only from its own page (same ``Origin``, a JSON body, which no
cross-site form can send), and tells the browser not to frame it or run scripts from
elsewhere.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from boardzoo import __version__
from boardzoo.agents import agent_games, catalogue
from boardzoo.envs import ENVS, env_module
from boardzoo.errors import BoardzooError, ResultsFileError, ServerBusyError, SpecError
from boardzoo.games.registry import games
from boardzoo.spec import describe
from boardzoo.values import number, whole
from boardzoo.web.replays import Replays
from boardzoo.web.searches import MOVE_SECONDS, Cancelled, SearchPool
from boardzoo.web.sessions import (
    MAX_PLAY_SESSIONS,
    MAX_WATCH_SESSIONS,
    PlaySession,
    RequestError,
    WatchSession,
    drawn_envs,
    web_allowed,
)
from boardzoo.web.store import Store

#: The largest request body read, in bytes (requests are a few short fields).
MAX_BODY = 64 * 1024
#: The longest number a query may give (a game index, a position).
MAX_QUERY_DIGITS = 9
#: Names that reach this machine only.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: Sent with every answer: no framing by other sites, scripts and styles from this server only.
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
                               "form-action 'self'",
}


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` headers the server answers: its loopback names, and ``host`` itself
    when it listens beyond loopback (see :func:`serve`), each with and without the port."""
    names = set(LOOPBACK_NAMES)
    if not is_loopback(host):
        if host in ("0.0.0.0", "::"):
            names.update({socket.gethostname(), socket.getfqdn()})
        else:
            names.add(f"[{host}]" if ":" in host else host)
    return frozenset({f"{name}:{port}" for name in names} | names)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: refuse requests that another site's page could have sent, and add
    :data:`SECURITY_HEADERS` to every answer (see the module docstring)."""

    def __init__(self, app: Any, hosts: frozenset[str]):
        self.app, self.hosts = app, hosts
        self.origins = frozenset(f"http://{host}" for host in hosts)

    def problem(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if host.lower() not in self.hosts:
            return 400, (f"this server answers to {', '.join(sorted(h for h in self.hosts if ':' in h))} only, "
                         f"not Host {host[:60]!r}")
        fetch_site = headers.get("sec-fetch-site")
        if fetch_site not in (None, "same-origin", "none") and path.startswith("/api/"):
            return 403, "requests from other sites are refused"
        if method in ("GET", "HEAD"):
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            return 403, f"requests from other pages ({origin[:60]!r}) are refused"
        if method == "POST" and headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return 415, "a request body must be JSON, sent as Content-Type: application/json"
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        problem = self.problem(scope["method"], scope["path"], headers)
        if problem is not None:
            await JSONResponse({"error": problem[1]}, problem[0], headers=SECURITY_HEADERS)(scope, receive, send)
            return

        async def send_guarded(message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []),
                                      *((k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items())]
            await send(message)

        await self.app(scope, receive, send_guarded)


async def _body(request: Request) -> dict[str, Any]:
    size = request.headers.get("content-length")
    if size is not None and (not size.isdecimal() or len(size) > 12 or int(size) > MAX_BODY):
        raise RequestError(f"a request body may be at most {MAX_BODY} bytes", 413)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RequestError(f"a request body may be at most {MAX_BODY} bytes", 413)
    try:
        body = json.loads(data or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError("the request body is not JSON") from None
    except RecursionError:
        raise RequestError("the request body nests too deep") from None
    except ValueError:  # Python refuses to read ints of over 4,300 digits
        raise RequestError("the request body holds a number too long to read") from None
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    return body


def _field(body: dict, name: str, kind: type | tuple[type, ...], default: Any = None, optional: bool = False) -> Any:
    value = body.get(name, default)
    if optional and value is None:
        return None
    if value is None or isinstance(value, bool) or not isinstance(value, kind):
        shown = json.dumps(value)[:40] if isinstance(value, (str, int, float, type(None))) else type(value).__name__
        raise RequestError(f"field {name!r} must be {'a string' if kind is str else 'a number'}, got {shown}")
    return value


def _query_number(request: Request, name: str, default: str | None = None) -> int:
    text = request.query_params.get(name, default)
    if text is None or not (text.isascii() and text.isdecimal()) or len(text) > MAX_QUERY_DIGITS:
        raise RequestError(f"{name} must be a number from 0 to {10**MAX_QUERY_DIGITS - 1:,}, "
                           f"got {(text or '')[:20]!r}")
    return int(text)


async def _while_waited_for(request: Request, work: Callable[[], Any], cancel: threading.Event) -> Any:
    """``work()`` in a worker thread; if the client goes away meanwhile, ``cancel`` is set
    (the search it started ends) and :class:`Cancelled` raised."""
    task = asyncio.ensure_future(run_in_threadpool(work))
    # what the work raises after nobody waits for it (a server stopping) is not an error
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    while True:
        try:
            done, _ = await asyncio.wait({task}, timeout=0.25)
        except asyncio.CancelledError:  # the server stops: so does the search
            cancel.set()
            raise
        if done:
            return task.result()
        if await request.is_disconnected():
            cancel.set()
            try:
                await task
            except BaseException:
                pass
            raise Cancelled("the client went away")


def create_app(replays: str = ".", host: str = "127.0.0.1", port: int = 8000, pool: SearchPool | None = None) -> Any:
    """The app (wrapped in :class:`Guard`); results files for replay are read from under
    the folder ``replays`` only; ``host`` and ``port`` are where it listens (its page's
    origin); its agents think in ``pool`` (by default two search processes, each move
    within :data:`~boardzoo.web.searches.MOVE_SECONDS`), which the app closes when it stops."""
    library = Replays(replays)
    pool = pool if pool is not None else SearchPool()
    plays = Store(MAX_PLAY_SESSIONS, on_drop=lambda session: session.close())
    watches = Store(MAX_WATCH_SESSIONS, on_drop=lambda session: session.stop())

    async def index(request: Request) -> Response:
        page = resources.files("boardzoo.web").joinpath("static/index.html").read_text(encoding="utf-8")
        return HTMLResponse(page.replace("{{version}}", __version__))

    async def catalogue_route(request: Request) -> Response:
        game_of = {env: game.name for game in games().values() for env in game.envs}
        envs = [{"name": name, "summary": summary, "game": game_of[name],
                 "parameters": describe(env_module(name).raw_env, hidden=("render_mode", "view"))}
                for name, summary in ENVS.items() if name in drawn_envs()]
        agents = [{"name": name, "summary": summary, "parameters": params,
                   "games": None if its_games is None else sorted(its_games)}
                  for name, params, summary in catalogue() if web_allowed(name)
                  for its_games in [agent_games(name)]]
        return JSONResponse({"version": __version__, "envs": envs, "agents": agents,
                             "replays": str(library.root), "move_seconds": pool.move_seconds})

    async def play_new(request: Request) -> Response:
        body = await _body(request)
        arguments = (_field(body, "env", str), _field(body, "opponent", str), _field(body, "seat", str, "player_0"),
                     _field(body, "seed", int, optional=True))
        cancel = threading.Event()
        with pool.admit():
            session = await _while_waited_for(request, lambda: PlaySession(*arguments, pool, cancel=cancel), cancel)
        key = plays.add(session)
        return JSONResponse({"id": key, **session.view()}, status_code=201)

    async def play_get(request: Request) -> Response:
        session = plays.get(request.path_params["key"])
        return JSONResponse({"id": request.path_params["key"], **session.view()})

    async def play_move(request: Request) -> Response:
        key = request.path_params["key"]
        session = plays.get(key)
        body = await _body(request)

        def move() -> dict:
            if not session.lock.acquire(blocking=False):
                raise RequestError("a move of this game is still being played", 409)
            try:
                session.move(body.get("action"))
                return session.view()
            finally:
                session.lock.release()

        with pool.admit():
            try:
                view = await _while_waited_for(request, move, session.agent.cancel)
            except Cancelled:
                plays.discard(key)
                raise
        return JSONResponse({"id": key, **view})

    async def play_end(request: Request) -> Response:
        plays.remove(request.path_params["key"]).close()
        return JSONResponse({"ended": True})

    async def watch_new(request: Request) -> Response:
        body = await _body(request)
        arguments = (_field(body, "env", str), _field(body, "a", str), _field(body, "b", str),
                     _field(body, "games", int, 10), _field(body, "seed", int, optional=True),
                     _field(body, "delay", (int, float), 0.5))
        with pool.admit():
            session = await run_in_threadpool(WatchSession, *arguments, pool)
        key = watches.add(session)
        return JSONResponse({"id": key, **session.view()}, status_code=201)

    async def watch_get(request: Request) -> Response:
        return JSONResponse({"id": request.path_params["key"], **watches.get(request.path_params["key"]).view()})

    async def watch_stop(request: Request) -> Response:
        watches.remove(request.path_params["key"]).stop()
        return JSONResponse({"stopped": True})

    async def replay_files(request: Request) -> Response:
        return JSONResponse({"root": str(library.root), "files": await run_in_threadpool(library.files)})

    async def replay_games(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(library.games, request.query_params.get("file", "")))

    async def replay_game(request: Request) -> Response:
        index, start = _query_number(request, "index"), _query_number(request, "start", "0")
        return JSONResponse(await run_in_threadpool(library.replay, request.query_params.get("file", ""),
                                                    index, start))

    async def refused(request: Request, error: Exception) -> Response:
        status = (error.status if isinstance(error, RequestError) else 503 if isinstance(error, ServerBusyError)
                  else 422 if isinstance(error, ResultsFileError) else 499 if isinstance(error, Cancelled) else 400)
        return JSONResponse({"error": str(error)}, status_code=status)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return JSONResponse({"error": error.detail}, status_code=error.status_code)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        for store in (watches, plays):
            store.clear()
        pool.close()

    routes = [
        Route("/", index),
        Route("/api/catalogue", catalogue_route),
        Route("/api/play", play_new, methods=["POST"]),
        Route("/api/play/{key}", play_get),
        Route("/api/play/{key}", play_end, methods=["DELETE"]),
        Route("/api/play/{key}/move", play_move, methods=["POST"]),
        Route("/api/watch", watch_new, methods=["POST"]),
        Route("/api/watch/{key}", watch_get),
        Route("/api/watch/{key}", watch_stop, methods=["DELETE"]),
        Route("/api/replays", replay_files),
        Route("/api/replays/games", replay_games),
        Route("/api/replays/game", replay_game),
        Mount("/static", StaticFiles(packages=[("boardzoo.web", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={BoardzooError: refused, HTTPException: http_error})
    return Guard(app, allowed_hosts(host, port))


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse to listen beyond this machine unless asked to in so many words."""
    if not host or not host.strip():
        raise SpecError("--host must name an address (127.0.0.1 by default); an empty one would listen on every "
                        "network interface")
    if not is_loopback(host) and not allow_remote:
        raise SpecError(f"--host {host} would let other machines reach this server, which plays and reads "
                        f"results files for whoever asks; add --allow-remote if that is what you want")


def check_serve_settings(host: str, port: int, searches: int, move_seconds: float, allow_remote: bool) -> None:
    """Refuse (SpecError) settings the server cannot keep, before anything starts: the
    port, the search processes, the move limit, a host off loopback without
    ``allow_remote``, and an address it cannot listen on."""
    whole("--port", port, 1, 65535, error=SpecError)
    whole("--searches", searches, 1, 64, error=SpecError)
    number("--move-seconds", move_seconds, 0.1, 120, error=SpecError)
    check_host(host, allow_remote)
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        probe = socket.socket(family)
    except (OSError, UnicodeError) as error:
        raise SpecError(f"cannot listen on {host!r}: {getattr(error, 'strerror', None) or error}") from None
    try:
        # as uvicorn binds: a port a stopped server left in TIME_WAIT is free to take again
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as error:
        raise SpecError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    finally:
        probe.close()



def serve(host: str = "127.0.0.1", port: int = 8000, replays: str = ".", searches: int = 2,
          move_seconds: float = MOVE_SECONDS, allow_remote: bool = False, log=print) -> None:
    """Run the UI until interrupted (``boardzoo serve``)."""
    import uvicorn

    check_host(host, allow_remote)
    pool = SearchPool(searches, move_seconds=move_seconds)
    app = create_app(replays, host, port, pool)
    if not is_loopback(host):
        log(f"WARNING: listening on {host}, beyond this machine: anyone who can reach port {port} can start "
            f"searches here and read the results files under {Path(replays).resolve()}")
    shown = f"[{host}]" if ":" in host else host
    log(f"boardzoo {__version__}: open http://{shown}:{port}/ in a browser (results files for replay are read "
        f"from {Path(replays).resolve()}; Ctrl+C stops)")
    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            # Ctrl-C ends the searches first: the answers waiting for them finish at once
            # (503, the server is stopping), so the shutdown has nothing to wait for.
            pool.close()
            super().handle_exit(sig, frame)

    Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)).run()
