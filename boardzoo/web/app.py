"""The browser UI's HTTP routes (Starlette); the state they serve is in
:mod:`boardzoo.web.sessions`, the page in ``static/``.

Every route answers JSON; a request the server refuses gets a 4xx status and
``{"error": "..."}`` saying why. Agent moves run in worker threads, so one long search
does not stop the server answering others.
"""

from __future__ import annotations

import json
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
from boardzoo.agents import catalogue
from boardzoo.envs import ENVS, env_module
from boardzoo.errors import BoardzooError, ResultsFileError
from boardzoo.spec import describe
from boardzoo.web.sessions import (
    MAX_PLAY_SESSIONS,
    MAX_WATCH_SESSIONS,
    PlaySession,
    Replays,
    RequestError,
    Store,
    WatchSession,
    web_allowed,
)

#: The largest request body read, in bytes (requests are a few short fields).
MAX_BODY = 64 * 1024


async def _body(request: Request) -> dict[str, Any]:
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
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
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    return body


def _field(body: dict, name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    value = body.get(name, default)
    if value is None or isinstance(value, bool) or not isinstance(value, kind):
        raise RequestError(f"field {name!r} must be {'a string' if kind is str else 'a number'}, got {value!r}")
    return value


def create_app(replays: str = ".") -> Starlette:
    """The app; results files for replay are read from under the folder ``replays`` only."""
    library = Replays(replays)
    plays = Store(MAX_PLAY_SESSIONS)
    watches = Store(MAX_WATCH_SESSIONS, on_drop=lambda session: session.stop())

    async def index(request: Request) -> Response:
        page = resources.files("boardzoo.web").joinpath("static/index.html").read_text(encoding="utf-8")
        return HTMLResponse(page.replace("{{version}}", __version__))

    async def catalogue_route(request: Request) -> Response:
        envs = [{"name": name, "summary": summary,
                 "parameters": describe(env_module(name).raw_env, hidden=("render_mode", "view"))}
                for name, summary in ENVS.items()]
        agents = [{"name": name, "summary": summary, "parameters": params}
                  for name, params, summary in catalogue() if web_allowed(name)]
        return JSONResponse({"version": __version__, "envs": envs, "agents": agents,
                             "replays": str(library.root)})

    async def play_new(request: Request) -> Response:
        body = await _body(request)
        session = await run_in_threadpool(
            PlaySession, _field(body, "env", str), _field(body, "opponent", str),
            _field(body, "seat", str, "player_0"), _field(body, "seed", int, 0))
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

        return JSONResponse({"id": key, **await run_in_threadpool(move)})

    async def watch_new(request: Request) -> Response:
        body = await _body(request)
        session = await run_in_threadpool(
            WatchSession, _field(body, "env", str), _field(body, "a", str), _field(body, "b", str),
            _field(body, "games", int, 10), _field(body, "seed", int, 0), _field(body, "delay", (int, float), 0.5))
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
        index = request.query_params.get("index", "")
        if not index.isdigit():
            raise RequestError(f"index must be a game index (0, 1, ...), got {index!r}")
        return JSONResponse(await run_in_threadpool(library.replay, request.query_params.get("file", ""), int(index)))

    async def refused(request: Request, error: Exception) -> Response:
        status = error.status if isinstance(error, RequestError) else 422 if isinstance(error, ResultsFileError) \
            else 400
        return JSONResponse({"error": str(error)}, status_code=status)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return JSONResponse({"error": error.detail}, status_code=error.status_code)

    routes = [
        Route("/", index),
        Route("/api/catalogue", catalogue_route),
        Route("/api/play", play_new, methods=["POST"]),
        Route("/api/play/{key}", play_get),
        Route("/api/play/{key}/move", play_move, methods=["POST"]),
        Route("/api/watch", watch_new, methods=["POST"]),
        Route("/api/watch/{key}", watch_get),
        Route("/api/watch/{key}", watch_stop, methods=["DELETE"]),
        Route("/api/replays", replay_files),
        Route("/api/replays/games", replay_games),
        Route("/api/replays/game", replay_game),
        Mount("/static", StaticFiles(packages=[("boardzoo.web", "static")]), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={BoardzooError: refused, HTTPException: http_error})


def serve(host: str = "127.0.0.1", port: int = 8000, replays: str = ".", log=print) -> None:
    """Run the UI until interrupted (``boardzoo serve``)."""
    import uvicorn

    app = create_app(replays)
    log(f"boardzoo {__version__}: open http://{host}:{port}/ in a browser (results files for replay are read "
        f"from {Path(replays).resolve()}; Ctrl+C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
