"""The browser UI: its HTTP API (Starlette's test client) and a real browser driving it
(Playwright with Debian's Chromium). Without the web extra, Playwright or Chromium these
tests skip, unless BOARDZOO_REQUIRE_BROWSER=1 (as .ci/run sets) makes that a failure."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

REQUIRED = os.environ.get("BOARDZOO_REQUIRE_BROWSER") == "1"


def _need(module: str):
    try:
        return pytest.importorskip(module, reason=f"the web extra is not installed (pip install '.[web]'): "
                                                  f"no {module}")
    except pytest.skip.Exception:
        if REQUIRED:
            pytest.fail(f"{module} is not installed but BOARDZOO_REQUIRE_BROWSER=1")
        raise


_need("starlette")
_need("uvicorn")

from boardzoo import arena  # noqa: E402
from boardzoo.web.app import create_app  # noqa: E402
from boardzoo.web.searches import SearchPool  # noqa: E402
from boardzoo.web.sessions import PlaySession  # noqa: E402

CHROMIUM = os.environ.get("BOARDZOO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Chromium's flags on a machine without a screen or outside network (see .ci/run).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Answer:
    def __init__(self, status_code: int, body: bytes):
        self.status_code, self.body = status_code, body

    def json(self):
        return json.loads(self.body)


class Client:
    """Requests to the live server with the standard library (no HTTP client to install)."""

    def __init__(self, base: str):
        self.base = base

    def request(self, method: str, path: str, json_body=None, content: bytes | None = None,
                params: dict | None = None) -> Answer:
        url = self.base + path + ("?" + urllib.parse.urlencode(params) if params else "")
        data = content if content is not None else None if json_body is None else json.dumps(json_body).encode()
        request = urllib.request.Request(url, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return Answer(response.status, response.read())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read())

    def get(self, path: str, params: dict | None = None) -> Answer:
        return self.request("GET", path, params=params)

    def post(self, path: str, json: dict | None = None, content: bytes | None = None) -> Answer:
        return self.request("POST", path, json_body=json, content=content)


@pytest.fixture
def client(server):
    return Client(server)


# --- the API ------------------------------------------------------------------------------------------
def test_an_illegal_move_is_explained_in_the_players_terms(client):
    game = client.post("/api/play", json={"env": "connect_four_v0", "opponent": "greedy", "seed": 0}).json()
    assert game["your_turn"] and [m["label"] for m in game["moves"]] == list("1234567")
    for _ in range(3):  # greedy answers in column 1 too until it is full (or wins elsewhere)
        state = client.post(f"/api/play/{game['id']}/move", json={"action": 0}).json()
    labels = [m["label"] for m in state["moves"]]
    if "1" not in labels:
        answer = client.post(f"/api/play/{game['id']}/move", json={"action": 0})
        assert answer.status_code == 422 and answer.json()["error"] == "that move is not legal here: column 1 is full"
    answer = client.post(f"/api/play/{game['id']}/move", json={"action": 7})
    assert answer.status_code == 422 and "no such move" in answer.json()["error"]


@pytest.mark.parametrize("body, status, words", [
    ({"env": "connect_four_v0", "opponent": "sb3:path=/tmp/x.zip"}, 400, "cannot play in the browser"),
    ({"env": "connect_four_v0", "opponent": "mcts:model=x.npz"}, 400, "names a file"),
    ({"env": "connect_four_v0", "opponent": "alphazero:weights=/tmp/x.npz"}, 400, "names a file"),
    ({"env": "connect_four_v0", "opponent": "mcts:iterations=90000000"}, 400, "at most 50000"),
    ({"env": "connect_four_v0", "opponent": "mcts:time=9"}, 400, "time may be at most 8"),
    ({"env": "connect_four_v0", "opponent": "human"}, 400, "cannot play in the browser"),
    ({"env": "chess", "opponent": "random"}, 400, "unknown env"),
    ({"env": "connect_four_v0", "opponent": "random", "seat": "player_2"}, 400, "seat must be"),
    ({"env": "connect_four_v0", "opponent": "random", "seed": -1}, 400, "seed must be"),
    ({"env": "connect_four_v0", "opponent": 3}, 400, "must be a string"),
    # a pile the shipped network was not trained on (it was a 500): refused, saying why
    ({"env": "nim_v0:n=100", "opponent": "alphazero"}, 400, "the network knows piles up to 60, not 100"),
    ({"env": "nim_v0:n=100", "opponent": "alphazero", "seat": "player_1"}, 400, "knows piles up to 60"),
    ({"env": "geister_v0", "opponent": "alphazero"}, 400, "plays cantris, connect_four, nim, tic_tac_toe only"),
])
def test_bad_requests_get_specific_4xx_json_errors(client, body, status, words):
    answer = client.post("/api/play", json=body)
    assert answer.status_code == status and words in answer.json()["error"]


def test_the_page_offers_each_game_the_agents_that_play_it(page):
    """The opponent suggestions follow the chosen game: alphazero (Connect Four, Nim,
    Cantris) is offered there and not for Geister, the network agent and the learned
    Geister player for Geister alone."""
    def offered(prefix: str) -> set[str]:
        return set(page.eval_on_selector_all(f"#{prefix}-agent-list option", "options => options.map(o => o.value)"))

    page.select_option("#play-env", "connect_four_v0")
    assert {"alphazero", "mcts", "random"} <= offered("play") and not {"network", "geister-learned"} & offered("play")
    page.select_option("#play-env", "geister_v0")
    assert "alphazero" not in offered("play") and {"mcts", "random", "network", "geister-learned"} <= offered("play")
    page.click("[data-tab=watch]")
    page.select_option("#watch-env", "nim_v0")
    assert "alphazero" in offered("watch")
    page.select_option("#watch-env", "geister_v0")
    assert "alphazero" not in offered("watch") and "minimax" in offered("watch")


def test_the_alphazero_agent_plays_in_the_browser_and_shows_its_tree(client):
    pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    game = client.post("/api/play", json={"env": "nim_v0:n=21", "opponent": "alphazero:iterations=60",
                                          "seat": "player_1", "seed": 0}).json()
    search = game["search"]
    assert search["kind"] == "tree" and search["priors"] and search["iterations"] == 60 and search["seconds"] > 0
    assert search["tree"]["visits"] == 61
    assert {row["label"] for row in search["children"]} == {"take 1", "take 2", "take 3"}
    assert sum(row["visits"] for row in search["children"]) == 60
    assert abs(sum(row["prior"] for row in search["children"]) - 1) < 1e-3
    assert game["log"][-1].endswith("takes 1")  # 21 - 1 = 20, a multiple of 4


def test_the_server_refuses_malformed_bodies_unknown_sessions_and_paths_outside_its_folder(client, tmp_path):
    assert client.post("/api/play", content=b"{oops").json()["error"] == "the request body is not JSON"
    assert client.post("/api/play", content=b"x" * 70_000).status_code == 413
    assert client.get("/api/play/nope").status_code == 404
    assert client.get("/api/nothing").status_code == 404
    (tmp_path.parent / "secret.jsonl").write_text("{}\n")
    answer = client.get("/api/replays/games", params={"file": "../secret.jsonl"})
    assert answer.status_code == 403 and "outside the replay folder" in answer.json()["error"]
    (tmp_path / "notes.jsonl").write_text("hello\n")
    answer = client.get("/api/replays/games", params={"file": "notes.jsonl"})
    assert answer.status_code == 422 and "notes.jsonl:1: not a valid game record" in answer.json()["error"]
    assert client.get("/api/replays/game", params={"file": "notes.jsonl", "index": "x"}).status_code == 400


def test_a_geister_player_sees_only_their_own_colours_and_no_search_until_the_end(client):
    game = client.post("/api/play", json={"env": "geister_v0", "opponent": "mcts:iterations=50",
                                          "seat": "player_1", "seed": 3}).json()
    # the opponent placed first: it is announced without its letters
    assert game["log"] == ["player_0 (mcts:iterations=50) chooses its red ghosts"]
    assert game["search"] is None and game["search_hidden"]
    svg = game["frames"][-1]["svg"]
    assert svg.count("<desc>unknown</desc>") == 16  # nobody's colours are set yet on our side either
    placement = next(m for m in game["moves"] if m["reds"] == "EFGH")
    state = client.post(f"/api/play/{game['id']}/move", json={"action": placement["action"]}).json()
    for frame in state["frames"]:
        assert frame["svg"].count("<desc>unknown</desc>") == 8  # theirs, every one
    assert state["search"] is None and "A" in {m["ghost"] for m in state["moves"]}


def test_the_learned_geister_player_is_offered_for_geister_alone_and_plays_there(client):
    """``geister-learned`` names the shipped network (``model=shipped``), which a browser
    may choose, where a file it may not; it is offered for Geister only."""
    agents = {agent["name"]: agent for agent in client.get("/api/catalogue").json()["agents"]}
    assert agents["geister-learned"]["games"] == ["geister"]
    opponent = "geister-learned:time=none,iterations=20"
    game = client.post("/api/play", json={"env": "geister_v0", "opponent": opponent, "seat": "player_1",
                                          "seed": 3}).json()
    placement = next(m for m in game["moves"] if m["reds"] == "EFGH")
    state = client.post(f"/api/play/{game['id']}/move", json={"action": placement["action"]}).json()
    first = next(m for m in state["moves"] if m.get("ghost") == "A")
    state = client.post(f"/api/play/{game['id']}/move", json={"action": first["action"]}).json()
    # both placements, its first move, ours and its answer
    assert len(state["log"]) == 5 and state["log"][-1].startswith(f"player_0 ({opponent}) moves")
    answer = client.post("/api/play", json={"env": "connect_four_v0", "opponent": "geister-learned"})
    assert answer.status_code == 400 and "connect_four has no worse reading of threats" in answer.json()["error"]


def test_a_smaller_geister_is_played_in_its_own_frame(client):
    """A member of the Geister family over the API: two reds to place, moves in the
    seat's own frame of a 4-column board, the drawing of that board."""
    spec = "geister_v0:rows=5,cols=4,blue=2,red=2,max_turns=30"
    game = client.post("/api/play", json={"env": spec, "opponent": "mcts:iterations=30", "seat": "player_0",
                                          "seed": 4}).json()
    placements = [m for m in game["moves"] if "reds" in m]
    assert len(placements) == 6 and all(len(m["reds"]) == 2 for m in placements)
    state = client.post(f"/api/play/{game['id']}/move", json={"action": placements[0]["action"]}).json()
    moves = [m for m in state["moves"] if "ghost" in m]
    assert moves and {m["ghost"] for m in moves} <= set("ABCD")
    assert all(0 <= m["from"][0] < 4 and 0 <= m["from"][1] < 5 for m in moves)
    assert state["frames"][-1]["svg"].count('class="square"') == 20


def test_replaying_a_results_file_shows_every_position(client, tmp_path):
    (tmp_path / "runs").mkdir()
    arena.run("nim_v0:n=12", "greedy", "random", 2, seed=5, out=str(tmp_path / "runs" / "nim.jsonl"))
    # other JSON-lines files are not offered: a training history, an empty file, a broken first line
    (tmp_path / "runs" / "history.jsonl").write_text('{"generation": 1, "games": 1024}\n')
    (tmp_path / "runs" / "empty.jsonl").write_text("")
    (tmp_path / "runs" / "broken.jsonl").write_text("{not json\n")
    assert client.get("/api/replays").json()["files"] == ["runs/nim.jsonl"]
    games = client.get("/api/replays/games", params={"file": "runs/nim.jsonl"}).json()["games"]
    assert len(games) == 2
    replay = client.get("/api/replays/game", params={"file": "runs/nim.jsonl", "index": 1}).json()
    assert len(replay["frames"]) == len(replay["announces"]) == games[1]["plies"] + 1
    assert replay["frames"][-1].count('class="pawn"') == 0  # the last pawn was taken
    assert replay["announces"][-1].endswith(f"game over: {replay['result']}") and "wins" in replay["result"]


def test_a_tournament_clients_results_file_replays_both_sides(client, tmp_path):
    from fake_geister_server import FakeServer

    from boardzoo.geister_client import run

    (tmp_path / "runs").mkdir()
    with FakeServer(games=1, bots={0: lambda state, rng: rng.choice(state.legal_actions())}, seed=3) as server:
        run("127.0.0.1", server.ports[1], "greedy", 1, seed=2, out=lambda line: None, timeout=10,
            results=str(tmp_path / "runs" / "server.jsonl"))
    (game,) = client.get("/api/replays/games", params={"file": "runs/server.jsonl"}).json()["games"]
    assert game["b"].startswith("server 127.0.0.1:") and game["seat_of_a"] == "player_1"
    replay = client.get("/api/replays/game", params={"file": "runs/server.jsonl", "index": 0}).json()
    assert len(replay["frames"]) == game["plies"] + 1 == len(server.results[0]["history"]) + 1
    assert any(announce.startswith("b (server") for announce in replay["announces"])


# --- a real browser -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    playwright_api = _need("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        if REQUIRED:
            pytest.fail(f"no Chromium at {CHROMIUM} but BOARDZOO_REQUIRE_BROWSER=1")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path):
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(str(tmp_path), "127.0.0.1", port), host="127.0.0.1", port=port,
                            log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(10)


@pytest.fixture
def page(browser, server, tmp_path):
    # Playwright's wait_for_function evaluates strings, which the page's Content Security
    # Policy forbids; test_the_page_works_under_its_content_security_policy runs without this.
    context = browser.new_context(viewport={"width": 1300, "height": 900}, bypass_csp=True)
    opened = context.new_page()
    opened.goto(server)
    opened.wait_for_selector("#play-env option", state="attached")
    yield opened
    opened.screenshot(path=str(tmp_path / "last.png"), full_page=True)
    context.close()


def start_game(page, env: str, opponent: str, seat: str = "player_0", seed: int = 0) -> None:
    page.select_option("#play-env", env)
    page.fill("#play-opponent", opponent)
    page.select_option("#play-seat", seat)
    page.fill("#play-seed", str(seed))
    page.click("#play-start")


def test_a_person_beats_random_at_connect_four_by_clicking(page, tmp_path):
    # A seed whose random player never blocks column 1: four clicks there win.
    pool = SearchPool(1)
    try:
        seed = next(s for s in range(200) if _column_one_wins(s, pool))
    finally:
        pool.close()
    start_game(page, "connect_four_v0", "random", seed=seed)
    page.wait_for_function("document.querySelector('#play-status').textContent.includes('Your move')")
    assert "you play the red discs, player_0" in page.inner_text("#play-status")
    for move in range(4):
        page.wait_for_function("document.querySelector('#play-status').textContent.includes('Your move')"
                               if move < 4 else "true")
        page.click("#play-board .column[data-action='0']")
        if move < 3:
            page.wait_for_function(f"document.querySelectorAll('#play-log li').length >= {2 * move + 2}")
    page.wait_for_function("document.querySelector('#play-status').textContent.includes('Game over')")
    assert "you won" in page.inner_text("#play-status") and "player_0 (you) wins" in page.inner_text("#play-status")
    assert page.locator("#play-board .disc.player_0").count() == 4
    assert page.locator("#play-board .disc.player_0.four").count() == 4  # the winning four, ringed
    page.screenshot(path=str(tmp_path / "connect_four_won.png"), full_page=True)


def _column_one_wins(seed: int, pool) -> bool:
    session = PlaySession("connect_four_v0", "random", "player_0", seed, pool)
    for _ in range(4):
        if session.over():
            return False
        session.move(0)
    return session.result() == "player_0 (you) wins"


def test_a_smaller_geisters_placement_asks_for_its_own_number_of_reds(page):
    page.select_option("#play-env", "geister_v0")
    page.fill("#play-env-options", "rows=5,cols=4,blue=2,red=2,max_turns=30")
    page.fill("#play-opponent", "random")
    page.fill("#play-seed", "1")
    page.click("#play-start")
    page.wait_for_selector("#play-placement:not([hidden])")
    for letter in "ABC":
        page.click(f"#play-board [data-ghost='{letter}']")
    assert page.locator("#play-board .ghost.chosen-red").count() == 2
    assert "2 ghosts are red already" in page.inner_text("#play-message")
    page.click("#play-place")
    page.wait_for_function("document.querySelector('#play-log').textContent.includes('chooses red AB')")


def test_geister_placement_by_clicking_and_a_move_by_dragging(page, tmp_path):
    start_game(page, "geister_v0", "random", seed=2)
    page.wait_for_selector("#play-placement:not([hidden])")
    for letter in "ABCD":
        page.click(f"#play-board [data-ghost='{letter}']")
    assert page.locator("#play-board .ghost.chosen-red").count() == 4
    page.screenshot(path=str(tmp_path / "geister_placement.png"), full_page=True)
    page.click("#play-place")
    page.wait_for_function("document.querySelector('#play-status').textContent.includes('Your move')")
    log = page.inner_text("#play-log")
    assert "player_0 (you) chooses red ABCD" in log and "player_1 (random) chooses its red ghosts" in log
    # our red ghosts are drawn red, theirs unknown
    assert page.locator("#play-board .ghost.mine desc", has_text="red").count() == 4
    assert page.locator("#play-board .ghost.theirs desc", has_text="unknown").count() == 8
    # drag ghost B one square up (north, from our side)
    ghost = page.locator("#play-board [data-ghost='B']").bounding_box()
    x, y = ghost["x"] + ghost["width"] / 2, ghost["y"] + ghost["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - ghost["height"] * 1.4, steps=5)
    page.mouse.up()
    page.wait_for_function("document.querySelector('#play-log').textContent.includes('moves B north')")
    page.wait_for_function("document.querySelector('#play-status').textContent.includes('Your move')")
    page.screenshot(path=str(tmp_path / "geister_moved.png"), full_page=True)
    # a click on a ghost, then on the empty square above it (not on its highlight): the same move
    page.click("#play-board [data-ghost='C']")
    square = page.locator("#play-board .target").first.get_attribute("data-to")
    page.locator("#play-board .target").first.evaluate("mark => mark.remove()")
    page.click(f"#play-board .square[data-square='{square}']")
    page.wait_for_function("document.querySelector('#play-log').textContent.includes('moves C')")


def test_the_tree_view_shows_the_searched_nodes_and_opens_and_closes_them(page, tmp_path):
    start_game(page, "connect_four_v0", "mcts:iterations=400", seat="player_1", seed=1)
    page.wait_for_selector("#search svg.tree .node")
    # the tree opens on its root, in view however wide the tree is
    root = page.locator("#search svg.tree .node").first.bounding_box()
    frame = page.locator("#search .tree-scroll").bounding_box()
    assert frame["x"] <= root["x"] and root["x"] + root["width"] <= frame["x"] + frame["width"]
    shown = page.locator("#search svg.tree .node").count()
    assert shown > 20  # two levels of a 7-wide tree, and the chosen line deeper
    assert page.locator("#search table tbody tr").count() == 7  # the root's children
    assert page.locator("#search .edge.chosen").count() >= 2
    page.screenshot(path=str(tmp_path / "tree.png"), full_page=True)
    # the move played and its expected line, several levels deep, are in view too (they ran
    # off the frame's left edge when the tree opened centred on the root alone)
    chosen = page.locator("#search svg.tree .edge.chosen")
    assert chosen.count() >= 3
    for index in range(chosen.count()):
        edge = chosen.nth(index).bounding_box()
        assert frame["x"] <= edge["x"] and edge["x"] + edge["width"] <= frame["x"] + frame["width"], index
    page.locator("#search svg.tree .node").first.click()  # the root: close it
    assert page.locator("#search svg.tree .node").count() == 1
    page.locator("#search svg.tree .node").first.click()
    assert page.locator("#search svg.tree .node").count() == shown


def test_the_replay_slider_walks_through_a_recorded_game(page, tmp_path):
    arena.run("connect_four_v0", "greedy", "random", 2, seed=9, out=str(tmp_path / "games.jsonl"))
    page.click("[data-tab=replay]")
    page.wait_for_selector("#replay-game option", state="attached")
    # Game 0 opens by itself; choosing game 1 at once must show game 1 even if game 0's
    # answer arrives after it (the page drops a game's answer once another is chosen).
    with page.expect_response(lambda answer: "/api/replays/game?" in answer.url and "index=1" in answer.url):
        page.select_option("#replay-game", "1")
    page.wait_for_function("document.querySelector('#replay-ply').textContent.startsWith('0 /')")
    last = int(page.get_attribute("#replay-slider", "max"))
    assert last >= 7  # a Connect Four game has at least 7 plies
    page.fill("#replay-slider", str(last))
    # A frame beyond the first part is fetched first, so the page answers when it has it.
    page.wait_for_function(f"document.querySelector('#replay-ply').textContent === '{last} / {last}'")
    assert page.locator("#replay-board .disc.player_0, #replay-board .disc.player_1").count() == last
    page.click("#replay-prev")
    assert page.locator("#replay-board .disc.player_0, #replay-board .disc.player_1").count() == last - 1
    page.screenshot(path=str(tmp_path / "replay.png"), full_page=True)


def test_a_games_answer_that_comes_after_another_game_was_chosen_is_dropped(page, tmp_path):
    arena.run("connect_four_v0", "greedy", "random", 2, seed=9, out=str(tmp_path / "games.jsonl"))
    held = []  # game 0's answer, held back until game 1 is on show
    page.route(re.compile(r".*/api/replays/game\?.*index=0.*"), lambda route: held.append(route))
    page.click("[data-tab=replay]")
    page.wait_for_function("document.querySelector('#replay-game').options.length === 2")
    with page.expect_response(lambda answer: "/api/replays/game?" in answer.url and "index=1" in answer.url):
        page.select_option("#replay-game", "1")
    page.wait_for_function("document.querySelector('#replay-ply').textContent.startsWith('0 /')")
    shown = page.inner_text("#replay-log"), page.inner_text("#replay-ply"), page.inner_html("#replay-board")
    assert len(held) == 1
    with page.expect_response(lambda answer: "/api/replays/game?" in answer.url and "index=0" in answer.url):
        held[0].continue_()
    page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # the late answer's handlers run
    assert (page.inner_text("#replay-log"), page.inner_text("#replay-ply"), page.inner_html("#replay-board")) == shown


def test_a_replay_opens_by_itself_lists_games_in_order_and_plays_through(page, tmp_path):
    """No Show click needed; games in their numbered order; the last frame states the result;
    the move list and the Play button walk the game."""
    arena.run("nim_v0:n=7", "greedy", "random", 3, seed=5, out=str(tmp_path / "games.jsonl"))
    page.click("[data-tab=replay]")
    page.wait_for_selector("#replay-board svg")
    labels = page.locator("#replay-game option").all_inner_texts()
    assert [int(re.match(r"game (\d+):", label).group(1)) for label in labels] == [0, 1, 2]
    last = int(page.get_attribute("#replay-slider", "max"))
    assert page.locator("#replay-log li").count() == last + 1
    assert page.locator("#replay-log li.result").count() == 1  # the last, "... game over: ..."
    assert "result" in page.get_attribute(f"#replay-log li:nth-child({last + 1})", "class")
    page.locator("#replay-log li").nth(2).click()
    assert page.input_value("#replay-slider") == "2" and page.inner_text("#replay-ply") == f"2 / {last}"
    assert "current" in page.get_attribute("#replay-log li:nth-child(3)", "class")
    page.click("#replay-auto")
    page.wait_for_function("document.querySelector('#replay-slider').value === "
                           "document.querySelector('#replay-slider').max", timeout=20_000)
    page.wait_for_function("document.querySelector('#replay-auto').textContent === 'Play'")
    assert "game over" in page.inner_text("#replay-status")
    assert page.get_attribute("#replay-status", "data-state") == "done"


def _top_entry_cut(page, log: str) -> bool:
    """Whether the first entry in view of the list ``log`` shows only in part."""
    return page.eval_on_selector(log, """list => {
        const first = [...list.children].find((item) => item.offsetTop + item.offsetHeight > list.scrollTop);
        return Math.abs(first.offsetTop - list.scrollTop) > 1;
    }""")


def test_no_move_list_shows_its_top_entry_cut_in_half(page, tmp_path):
    """A list longer than its box scrolls to the newest move (play) or the move on show
    (replay), a whole entry at its top: they stopped mid-entry, half of it hidden."""
    arena.run("nim_v0:n=60", "random", "random", 1, seed=3, out=str(tmp_path / "games.jsonl"))
    page.click("[data-tab=replay]")
    page.wait_for_selector("#replay-board svg")
    last = int(page.get_attribute("#replay-slider", "max"))
    assert page.eval_on_selector("#replay-log", "list => list.scrollHeight > list.clientHeight + 100")
    for index in (last, last // 2, last // 3, 1):
        page.fill("#replay-slider", str(index))
        page.wait_for_function(f"document.querySelector('#replay-ply').textContent.startsWith('{index} /')")
        assert not _top_entry_cut(page, "#replay-log"), index
        current = page.locator("#replay-log li.current").bounding_box()
        box = page.locator("#replay-log").bounding_box()
        assert box["y"] <= current["y"] and current["y"] + current["height"] <= box["y"] + box["height"] + 1
    page.set_viewport_size({"width": 1000, "height": 900})  # the moves card under the board
    page.click("[data-tab=play]")
    page.select_option("#play-env", "nim_v0")
    page.fill("#play-env-options", "n=40,k=3")
    start_game(page, "nim_v0", "random", seed=4)
    for _ in range(7):
        page.wait_for_function("document.querySelector('#play-status').textContent.includes('Your move')")
        count = page.locator("#play-log li").count()
        page.locator("#play-moves button").first.click()
        page.wait_for_function(f"document.querySelectorAll('#play-log li').length >= {count + 2}")
    assert page.eval_on_selector("#play-log", "list => list.scrollHeight > list.clientHeight")
    assert not _top_entry_cut(page, "#play-log")
    newest = page.locator("#play-log li").last.bounding_box()
    box = page.locator("#play-log").bounding_box()
    assert newest["y"] + newest["height"] <= box["y"] + box["height"] + 1  # the newest move in full
    page.screenshot(path=str(tmp_path / "moves.png"), full_page=True)


def test_the_replay_controls_wait_for_a_game_when_there_is_none(page):
    """With no results file, Play, the arrows and Show again ask for nothing (they sent
    index='' and showed the server's 400 about it)."""
    refused: list[int] = []
    page.on("response", lambda answer: refused.append(answer.status) if answer.status >= 400 else None)
    page.click("[data-tab=replay]")
    page.wait_for_function("document.querySelector('#replay-root').textContent.includes('none found')")
    for button in ("#replay-auto", "#replay-next", "#replay-prev", "#replay-form button[type=submit]"):
        page.click(button)
    assert page.inner_text("#replay-message") == "No game to replay: choose a results file that holds games."
    assert page.inner_text("#replay-auto") == "Play" and page.inner_text("#replay-ply") == ""
    assert refused == []


def test_a_geister_replay_counts_plies_alike_on_the_slider_the_board_and_the_list(page, tmp_path):
    """Placements are plies everywhere: the slider's index, the board's 'ply N/' and the
    game list's count agree (they did not: the board left the two placements out)."""
    arena.run("geister_v0:max_turns=30", "random", "random", 1, seed=1, out=str(tmp_path / "games.jsonl"))
    page.click("[data-tab=replay]")
    page.wait_for_selector("#replay-board svg")
    last = int(page.get_attribute("#replay-slider", "max"))
    assert f"{last} plies" in page.inner_text("#replay-game")
    for index in (0, 2, last):
        page.fill("#replay-slider", str(index))
        page.wait_for_function(f"document.querySelector('#replay-ply').textContent.startsWith('{index} /')")
        assert re.search(rf"\bply {index}/", page.inner_text("#replay-board")), index


def test_each_game_shows_its_own_options_and_what_it_is(page):
    """The Options field's placeholder and the line under the game are the chosen game's
    own (they were Connect Four's for every game)."""
    seen = {}
    for env in ("connect_four_v0", "nim_v0", "geister_v0", "cantris_v0"):
        page.select_option("#play-env", env)
        seen[env] = (page.get_attribute("#play-env-options", "placeholder"), page.inner_text("#play-env-summary"))
    assert "rows=6" in seen["connect_four_v0"][0] and "k=3" in seen["nim_v0"][0]
    assert "max_turns=" in seen["geister_v0"][0] and "board=" in seen["cantris_v0"][0]
    assert len({placeholder for placeholder, _ in seen.values()}) == 4
    assert "Geister" in seen["geister_v0"][1] and "Nim" in seen["nim_v0"][1]


def test_the_page_has_an_icon(page):
    status, kind = page.evaluate("fetch(document.querySelector('link[rel=icon]').href)"
                                 ".then(answer => [answer.status, answer.headers.get('content-type')])")
    assert status == 200 and kind.startswith("image/svg+xml")


def test_a_long_status_line_moves_nothing(page):
    """The board's column and the side panel keep their place however long the status
    line grows (a long agent spec wrapped and pushed the side panel under the board)."""
    before = [page.locator(selector).bounding_box() for selector in ("#play-board", "#tab-play aside")]
    page.evaluate("document.querySelector('#play-status').textContent = "
                  "'player_1 (mcts:iterations=1000,c=1.4142135623730951,rollout=random) plays 4. ' .repeat(6)")
    after = [page.locator(selector).bounding_box() for selector in ("#play-board", "#tab-play aside")]
    for old, new in zip(before, after):
        assert (old["x"], old["width"]) == (new["x"], new["width"])


@pytest.mark.parametrize("opponent, has_priors", [("mcts:iterations=200", False),
                                                   ("mcts:policy=puct,iterations=200", True)])
def test_the_prior_column_shows_only_for_a_search_that_reads_priors(page, opponent, has_priors):
    """Plain UCB1 has no priors (it showed 1/n as if it had); PUCT's are shown."""
    start_game(page, "connect_four_v0", opponent, seat="player_1", seed=1)
    page.wait_for_selector("#search table thead")
    headers = page.locator("#search table thead th").all_inner_texts()
    assert ("prior" in headers) == has_priors, headers


def test_the_status_line_is_coloured_by_whose_turn_and_how_the_game_ended(page):
    page.fill("#play-env-options", "n=3,k=3")
    start_game(page, "nim_v0", "random")
    page.wait_for_function("document.querySelector('#play-status').dataset.state === 'turn'")
    page.locator("#play-board .pawn[data-action='2']").click()
    page.wait_for_function("document.querySelector('#play-status').dataset.state === 'won'")
    assert "you won" in page.inner_text("#play-status")


def test_watching_an_arena_run_live(page, tmp_path):
    page.click("[data-tab=watch]")
    page.select_option("#watch-env", "nim_v0")
    page.fill("#watch-games", "3")
    page.fill("#watch-a", "greedy")
    page.fill("#watch-b", "random")
    page.fill("#watch-delay", "0.05")
    page.click("#watch-form button[type=submit]")
    page.wait_for_function("document.querySelector('#watch-status').textContent.includes('3 of 3 games')",
                           timeout=30_000)
    score = re.search(r"a (\d+) : (\d+) b, (\d+) draws", page.inner_text("#watch-status"))
    a_wins, b_wins, draws = map(int, score.groups())
    assert a_wins + b_wins + draws == 3
    assert "takes" in page.inner_text("#watch-log")


def test_the_page_works_under_its_content_security_policy(browser, server, tmp_path):
    """The other browser tests bypass the policy (see the page fixture); here a game is
    started and a move played by clicking, under the policy the server sends, with no
    console error."""
    arena.run("nim_v0:n=9", "greedy", "random", 1, seed=4, out=str(tmp_path / "games.jsonl"))
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    opened.goto(server)
    opened.wait_for_selector("#play-env option", state="attached")
    opened.select_option("#play-env", "nim_v0")
    opened.fill("#play-env-options", "n=3,k=3")
    opened.fill("#play-opponent", "random")
    opened.click("#play-start")
    opened.locator("#play-board .pawn[data-action='2']").click()
    opened.get_by_text("Game over: you won").wait_for()
    opened.click("[data-tab=replay]")
    opened.locator("#replay-board svg").wait_for()
    assert opened.inner_text("#replay-ply") == "0 / " + opened.get_attribute("#replay-slider", "max")
    opened.screenshot(path=str(tmp_path / "csp.png"), full_page=True)
    context.close()
    assert errors == []


def test_an_unexpected_error_in_a_watched_run_is_reported_not_swallowed(monkeypatch):
    from boardzoo.web import sessions

    def broken(*args, **kwargs):
        raise RuntimeError("an internal invariant broke")

    monkeypatch.setattr(sessions.arena, "play_game", broken)
    pool = SearchPool(1)
    try:
        watch = sessions.WatchSession("nim_v0", "greedy", "random", 2, 0, 0, pool)
        watch.thread.join(60)
        view = watch.view()
        assert not view["running"] and "internal error" in view["error"] and "invariant broke" in view["error"]
    finally:
        pool.close()


def test_a_game_that_draws_no_pictures_is_left_out_and_refused(client):
    """Tic-tac-toe has only the generic env, which renders as text: the catalogue leaves it
    out and a request for it is a 400 that says why."""
    names = [env["name"] for env in client.get("/api/catalogue").json()["envs"]]
    assert "tic_tac_toe_v0" not in names and "connect_four_v0" in names
    answer = client.post("/api/play", json={"env": "tic_tac_toe_v0", "opponent": "random", "seed": 0})
    assert answer.status_code == 400 and "draws no pictures" in answer.json()["error"]
