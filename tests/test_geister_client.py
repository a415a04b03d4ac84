"""The tournament client against a fake server written from the protocol description:
both seats, captures acknowledged with OKR/OKB, an escape, a draw, NG, a dropped
connection, a malformed board, refused connections and reconnecting between games."""

import socket
import threading
import time

import pytest
from fake_geister_server import FakeServer

from boardzoo.cli import main
from boardzoo.geister_client import ClientError, GameTracker, run
from boardzoo.strategy.geister.players import rushing_action


def client(port, agent="greedy", games=1, **kwargs):
    lines = []
    records = run("127.0.0.1", port, agent, games, seed=kwargs.pop("seed", 0), out=lines.append,
                  retries=kwargs.pop("retries", 3), backoff=0.05, timeout=10, **kwargs)
    return records, lines


def idle_bot(state, rng):
    """Shuffles one back-row ghost sideways: never captures, never escapes."""
    actions = [a for a in state.legal_actions() if a % 4 in (1, 3)] or state.legal_actions()
    return rng.choice(actions)


def test_both_seats_play_a_whole_game():
    with FakeServer(games=2, seed=1) as server:
        results = {}

        def seat(index, agent):
            results[index] = client(server.ports[index], agent, games=2, seed=index)

        threads = [threading.Thread(target=seat, args=(i, a)) for i, a in ((0, "greedy"), (1, "random"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert not server.errors
    for game, outcome in enumerate(server.results):
        assert outcome["ended"] == "game"
        r0 = outcome["returns"][0]
        expected = ("won", "lost") if r0 > 0 else ("lost", "won") if r0 < 0 else ("draw", "draw")
        assert (results[0][0][game].result, results[1][0][game].result) == expected
    assert [r.seat for r in results[0][0]] == ["first", "first"]
    assert [r.seat for r in results[1][0]] == ["second", "second"]
    assert all(("won" in line or "lost" in line or "draw" in line) for line in results[0][1] + results[1][1])


def test_captures_are_acknowledged_with_their_colour():
    with FakeServer(games=3, bots={1: lambda s, rng: rng.choice(s.legal_actions())}, seed=2) as server:
        records, _ = client(server.ports[0], "greedy", games=3)
    assert not server.errors
    for record, outcome in zip(records, server.results):
        # every capture the client made was acknowledged, with the colour the server knows
        assert record.captured.count("blue") == outcome["lost"][1][0]
        assert record.captured.count("red") == outcome["lost"][1][1]
    assert any(record.captured for record in records)


@pytest.mark.parametrize("stale_escape_ack", [False, True])
def test_an_escape_wins(stale_escape_ack):
    # The reference server acknowledges an escape with the escaping ghost's last capture
    # (OKB/OKR): the client takes that as the escape's plain OK.
    with FakeServer(bots={1: idle_bot}, seed=3, stale_escape_ack=stale_escape_ack) as server:
        records, lines = client(server.ports[0], "greedy")
    assert server.results[0]["escaped"] and records[0].result == "won"
    assert "88" in records[0].board and lines == [lines[0]] and lines[0].startswith("game 1: won")
    assert records[0].captured.count("blue") == server.results[0]["lost"][1][0]


def test_an_escape_after_a_capture_is_acknowledged_as_the_reference_server_does():
    # greedy against a bot that walks into it: some escaping ghost has captured before
    stale = 0
    for seed in range(6):
        with FakeServer(bots={1: lambda s, rng: rng.choice(s.legal_actions())}, seed=seed,
                        stale_escape_ack=True) as server:
            records, _ = client(server.ports[0], "greedy")
        assert not server.errors and records[0].result in ("won", "lost", "draw")
        assert records[0].captured.count("blue") == server.results[0]["lost"][1][0]
        assert records[0].captured.count("red") == server.results[0]["lost"][1][1]
        stale += any(ack in ("OKR", "OKB") for ack in server.escape_acks)
    assert stale, "no game had an escape by a ghost that had captured: the test checked nothing"


def test_the_second_seat_and_a_draw_at_the_ply_limit():
    with FakeServer(max_turns=6, bots={0: idle_bot}, seed=4) as server:
        records, lines = client(server.ports[1], "random", max_turns=6)
    assert records[0].result == "draw" and records[0].seat == "second" and "draw" in lines[0]


def test_ng_ends_the_run_with_a_clear_error():
    with FakeServer(ng_on_move=1, bots={1: idle_bot}) as server:
        with pytest.raises(ClientError, match=r"refused 'MOV:[A-H],(NORTH|EAST|SOUTH|WEST)' \(NG\)"):
            client(server.ports[0])
    assert server.results == [{"ended": "NG"}]


def test_a_dropped_connection_is_reported():
    with FakeServer(drop_after_moves=2, bots={1: idle_bot}) as server:
        with pytest.raises(ClientError, match="closed the connection before the game ended"):
            client(server.ports[0])


def test_a_malformed_board_is_reported():
    with FakeServer(malformed_board=True, bots={1: idle_bot}) as server:
        with pytest.raises(ClientError, match="malformed board from the server: a board string has 48"):
            client(server.ports[0])


def test_refused_connections_give_up_after_the_retries():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens here once the probe is closed
    start = time.perf_counter()
    with pytest.raises(ClientError, match=r"could not connect to 127.0.0.1:\d+ after 3 attempts"):
        client(port, retries=2)
    assert time.perf_counter() - start < 5


def test_the_client_waits_for_a_server_that_comes_up_late():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server_ready = threading.Event()

    def late_server():
        time.sleep(0.3)
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(1)
        server_ready.set()
        conn, _ = listener.accept()
        conn.sendall(b"SET?\r\n")
        conn.makefile("rb").readline()
        conn.sendall(b"OK \r\nDRW:14R24R34R44R15B25B35B45B41u31u21u11u40u30u20u10u\r\n")
        conn.close()
        listener.close()

    thread = threading.Thread(target=late_server, daemon=True)
    thread.start()
    records, _ = client(port, retries=6)
    thread.join(timeout=10)
    assert server_ready.is_set() and records[0].result == "draw"


def test_a_connection_reset_before_the_game_begins_is_retried():
    # The real server, closing one game, accepts a connection and resets it before it
    # says anything; the client must count that as "not ready yet", not as a broken game.
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(2)
    port = listener.getsockname()[1]
    resets = []

    def flaky_server():
        conn, _ = listener.accept()  # the first connection: reset at once, without a word
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()
        resets.append(1)
        conn, _ = listener.accept()  # the second one plays (a draw at once)
        conn.sendall(b"SET?\r\n")
        conn.makefile("rb").readline()
        conn.sendall(b"OK \r\nDRW:14R24R34R44R15B25B35B45B41u31u21u11u40u30u20u10u\r\n")
        conn.close()

    thread = threading.Thread(target=flaky_server, daemon=True)
    thread.start()
    try:
        records, _ = client(port, retries=4)
    finally:
        thread.join(timeout=10)
        listener.close()
    assert resets == [1] and records[0].result == "draw"


def test_a_connection_that_stays_silent_is_an_error_not_a_retry():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        with pytest.raises(ClientError, match="accepted the connection but sent nothing"):
            run("127.0.0.1", port, "greedy", 1, seed=0, out=lambda line: None, retries=3, backoff=0.05, timeout=0.5)
    finally:
        listener.close()


def test_the_command_line_plays_and_reports(capsys):
    with FakeServer(games=2, bots={1: rushing_action}, seed=5) as server:
        status = main(["geister-client", "--host", "127.0.0.1", "--port", str(server.ports[0]), "--agent", "greedy",
                       "--games", "2", "--seed", "1", "--red", "EFGH", "--timeout", "10"])
    out = capsys.readouterr().out.strip().splitlines()
    assert status == 0 and len(out) == 2
    assert all(line.startswith(f"game {n}: ") and line.split()[2] in ("won", "lost", "draw")
               for n, line in zip((1, 2), out))
    assert [r["placements"] for r in server.results] == [{0: "EFGH"}, {0: "EFGH"}]


def test_the_command_line_fails_clearly_on_ng(capsys):
    with FakeServer(ng_on_move=1, bots={1: idle_bot}) as server:
        status = main(["geister-client", "--port", str(server.ports[0]), "--host", "127.0.0.1", "--agent", "random",
                       "--retries", "1"])
    assert status == 2 and "(NG)" in capsys.readouterr().err
    status = main(["geister-client", "--red", "ABCZ", "--port", "1"])  # refused before connecting
    assert status == 2 and "4 distinct letters" in capsys.readouterr().err


def test_tracker_reads_seat_and_evidence_from_board_strings():
    tracker = GameTracker(300)
    view = tracker.view("14R24R34R44R15B25B35B45B41u31u21u11u40u30u20u10u")
    assert tracker.first and view.plies == 0 and view.current_player() == 0
    tracker = GameTracker(300)
    view = tracker.view("14R24R34R44R15B25B35B45B42u31u21u11u40u30u20u10u")  # a stepped toward us
    assert not tracker.first and view.plies == 1
    view = tracker.view("14R23R34R44R15B25B35B45B43u31u21u11u40u30u20u10u")
    assert view.advance[8] == 1 and view.plies == 3


@pytest.mark.parametrize("seed", range(6))
def test_the_tracker_keeps_the_same_public_evidence_as_the_game(seed):
    """What the client rebuilds from board strings (how often each opponent ghost moved,
    how far forward, how often it declined an escape or stepped next to ours) is what the env's own state counts,
    so a belief reads the same evidence on the server as in the arena."""
    import random

    from boardzoo.games.geister import GeisterState, board_string

    rng = random.Random(seed)
    state = GeisterState(200)
    state.apply(32 + rng.randrange(70))
    state.apply(32 + rng.randrange(70))
    tracker = GameTracker(200)
    while not state.is_terminal():
        if state.player == 0:
            view = tracker.view(board_string(state, 0))
            for g in range(8, 16):
                if state.pos[g] >= 0:
                    assert (view.advance[g], view.declined[g], view.moved[g], view.offered[g]) == (
                        state.advance[g], state.declined[g], state.moved[g], state.offered[g])
        state.apply(rng.choice(state.legal_actions()))


def same_game(moves, history):
    """The same moves, but for the direction of an escape (a ghost on a corner exit leaves
    the board by either of its two outer sides: the boards cannot tell which)."""
    from boardzoo.games.geister import GeisterState

    if len(moves) != len(history):
        return False
    a, b = GeisterState(300), GeisterState(300)
    for (seat_a, action_a), (seat_b, action_b) in zip(moves, history):
        if seat_a != seat_b or (action_a != action_b and action_a // 4 != action_b // 4):
            return False
        a.apply(action_a)
        b.apply(action_b)
        if a.pos != b.pos:
            return False
    return True


def test_a_results_file_holds_both_seats_moves_exactly_as_the_server_played_them(tmp_path):
    """Each seat's results file rebuilds the whole game (the opponent's placement from the
    final board's colours, its moves from the boards around them): the moves are the
    server's own, record for record, and the file reads back as arena records."""
    from boardzoo.ledger import read_records

    files = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    with FakeServer(games=3, seed=7) as server:
        threads = [threading.Thread(target=client, args=(server.ports[i], agent),
                                    kwargs={"games": 3, "seed": i, "results": str(files[i])})
                   for i, agent in ((0, "greedy"), (1, "random"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert not server.errors and len(server.results) == 3
    for index, path in enumerate(files):
        records, notes = read_records(str(path), 100)
        assert not notes and [r["game"] for r in records] == [0, 1, 2]
        for record, outcome in zip(records, server.results):
            assert same_game(record["moves"], outcome["history"])
            assert record["seat_of_a"] == f"player_{index}" and record["env"] == "geister_v0:max_turns=300"
            ours = outcome["returns"][index]
            assert record["winner"] == ("a" if ours > 0 else "b" if ours < 0 else None)
            assert len(record["decision_seconds"]["a"]) == 1 + sum(seat == index for seat, a in outcome["history"][2:])
            assert "note" not in record


def test_a_results_file_grows_across_runs_and_refuses_an_arena_file(tmp_path):
    from boardzoo.arena import play_game
    from boardzoo.errors import ResultsFileError
    from boardzoo.ledger import Ledger, read_records

    path = tmp_path / "games.jsonl"
    for _ in range(2):
        with FakeServer(bots={1: idle_bot}, seed=8) as server:
            client(server.ports[0], "greedy", results=str(path))
    records, _ = read_records(str(path), 100)
    assert [r["game"] for r in records] == [0, 1] and all(r["b"].startswith("server 127.0.0.1:") for r in records)
    arena_file = tmp_path / "arena.jsonl"
    with Ledger(str(arena_file), key=lambda r: r["game"]) as ledger:
        ledger.append(play_game("geister_v0", "random", "random", 0, 0))
    with pytest.raises(ResultsFileError, match="arena game"):
        client(1, "greedy", results=str(arena_file))  # refused before connecting


def test_a_final_board_that_hides_colours_gives_a_record_without_moves(tmp_path):
    from boardzoo.ledger import read_records

    path = tmp_path / "games.jsonl"
    with FakeServer(bots={1: idle_bot}, seed=9, reveal_final=False) as server:
        records, _ = client(server.ports[0], "greedy", results=str(path))
    (record,), _ = read_records(str(path), 10)
    assert record["moves"] == [] and "does not show the opponent's colours" in record["note"]
    assert record["verdict"] == records[0].result and record["boards"][-1] == records[0].board


@pytest.mark.parametrize("seed", range(4))
def test_moves_from_boards_plays_the_game_again_and_refuses_an_impossible_board(seed):
    import random

    from boardzoo.games.geister import GeisterState, board_string, moves_from_boards

    rng = random.Random(seed)
    state = GeisterState(300)
    history = []
    for _ in range(2):
        history.append([state.player, 32 + rng.randrange(70)])
        state.apply(history[-1][1])
    ours = seed % 2
    boards, actions = [], []
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        if state.player == ours:
            boards.append(board_string(state, ours))
            actions.append(action)
        history.append([state.player, action])
        state.apply(action)
    final = board_string(state, ours, reveal=True)
    assert same_game(moves_from_boards(ours == 0, history[ours][1], actions, boards, final, 300), history)
    if len(boards) > 3:
        tampered = boards[:]
        tampered[2] = boards[3]  # two opponent moves between our moves
        with pytest.raises(ValueError, match="no legal move of the opponent"):
            moves_from_boards(ours == 0, history[ours][1], actions, tampered, final, 300)


@pytest.fixture
def made(monkeypatch):
    """The agents the client makes, kept for the test to look at."""
    import boardzoo.geister_client as geister_client

    agents, original = [], geister_client.make

    def make_and_keep(spec, seed=None):
        agents.append(original(spec, seed=seed))
        return agents[-1]

    monkeypatch.setattr(geister_client, "make", make_and_keep)
    return agents


def test_each_finished_game_teaches_the_agent_what_the_final_board_revealed(made):
    """After each game the client hands its agent the last position with every colour the
    final board shows and the evidence of the whole game, as the server played it: a
    belief=profile agent learns where the opponent put its reds over the match."""
    from boardzoo.games.geister import GeisterState

    with FakeServer(games=3, bots={1: lambda s, rng: rng.choice(s.legal_actions())}, seed=5) as server:
        records, _ = client(server.ports[0], "purple:time=none,depth=1,belief=profile", games=3)
    assert not server.errors
    for record, outcome in zip(records, server.results):
        truth = GeisterState(300)
        for _, action in outcome["history"]:
            truth.apply(action)
        assert record.final is not None
        for g in range(8, 16):  # the opponent's ghosts, in our frame (we are player_0)
            assert record.final.red[g] == truth.red[g]
            assert (record.final.moved[g], record.final.offered[g], record.final.advance[g]) == (
                truth.moved[g], truth.offered[g], truth.advance[g])
    profile = made[0].profile
    reds = [sum(record.final.red[8 + i] for record in records) for i in range(8)]
    assert profile.games == 3 and profile.slot_reds == reds


def test_a_searching_agent_learns_its_opponent_over_the_match(made):
    """mcts:match=learn is taught each finished game of the match: its reader has scored
    the games and its profile has learned where the opponent put its reds."""
    with FakeServer(games=3, bots={1: lambda s, rng: rng.choice(s.legal_actions())}, seed=6) as server:
        records, _ = client(server.ports[0], "mcts:belief=adaptive,match=learn,iterations=5", games=3)
    assert not server.errors
    reader = made[0].match_reader
    reds = [sum(record.final.red[8 + i] for record in records) for i in range(8)]
    assert reader.games == 3 and reader.profile.slot_reds == reds
    assert reader.scores[0] < 0 and reader.scores[1] < 0  # each reading of each game scored
