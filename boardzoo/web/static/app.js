// boardzoo's browser UI: plain JavaScript, no build step. The server draws every board as
// SVG; elements a player may click carry data attributes (see boardzoo/envs/svg.py).
"use strict";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const FRAME_PAUSE_MS = 650;

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

// A blank seed field asks for a fresh seed (the server tells it once the game is over).
const optionalNumber = (text) => (text.trim() === "" ? null : Number(text));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const spec = (name, options) => (options.trim() ? `${name}:${options.trim()}` : name);

function showBoard(holder, svgText) {
  holder.innerHTML = svgText;
  return holder.querySelector("svg");
}

// The state colours the status line: "turn", "thinking", "won", "lost", "draw", "done" or "idle".
function setStatus(element, text, state) {
  element.textContent = text;
  if (state) element.dataset.state = state;
}

// Scrolls `list` (a log) to the entry at or before `offset` (or after it, when `after`), so
// that no entry shows cut in half at the top; a little room below the last entry lets the
// list scroll that far.
function scrollToEntry(list, offset, after = false) {
  list.style.paddingBottom = "";
  const tops = [...list.children].map((item) => item.offsetTop);
  if (tops.length === 0) return;
  const top = after ? (tops.find((t) => t >= offset) ?? tops[tops.length - 1])
    : tops.filter((t) => t <= offset).pop() ?? 0;
  const room = top - (list.scrollHeight - list.clientHeight);
  if (room > 0) list.style.paddingBottom = `${room}px`;
  list.scrollTop = top;
}

function fillLog(list, lines) {
  list.innerHTML = "";
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = line;
    if (line.includes("(you)")) item.classList.add("you");
    // how the server words an ending: a play's "result: ", a watch's "game N: ", a replay's "game over: "
    if (/^(result|game \d+): |game over: /.test(line)) item.classList.add("result");
    list.appendChild(item);
  }
  scrollToEntry(list, list.scrollHeight - list.clientHeight, true);  // the newest entry in view
}

// ---- tabs -------------------------------------------------------------------------------
for (const tab of document.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll("[role=tab]")) {
      other.setAttribute("aria-selected", String(other === tab));
      $(`tab-${other.dataset.tab}`).hidden = other !== tab;
    }
    if (tab.dataset.tab === "replay") loadReplayFiles();
  });
}

// ---- catalogue --------------------------------------------------------------------------
async function loadCatalogue() {
  const data = await api("GET", "/api/catalogue");
  for (const select of document.querySelectorAll("[data-env-list]")) {
    for (const env of data.envs) {
      const option = new Option(env.name, env.name);
      option.title = `${env.summary}\nparameters: ${env.parameters}`;
      option.dataset.parameters = env.parameters.replaceAll(", ", ",");
      option.dataset.summary = env.summary;
      option.dataset.game = env.game;
      select.add(option);
    }
    // the Options field shows the chosen game's own parameters, the line below it what the game is,
    // and the agents offered are those that play the chosen game
    const options = $(`${select.id}-options`), summary = $(`${select.id}-summary`);
    const agents = $(select.id.replace("-env", "-agent-list"));
    const hint = () => {
      const chosen = select.selectedOptions[0];
      options.placeholder = chosen?.dataset.parameters || "none";
      summary.textContent = chosen?.dataset.summary || "";
      agents.replaceChildren(...data.agents.filter((agent) => !agent.games || agent.games.includes(chosen?.dataset.game))
        .map((agent) => new Option(agent.name, agent.name)));
    };
    select.addEventListener("change", hint);
    hint();
  }
}

// ---- play -------------------------------------------------------------------------------
const play = { id: null, state: null, busy: false, selected: null, reds: new Set() };

$("play-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("play-message").textContent = "";
  $("search").innerHTML = '<p class="hint">After the opponent\'s next decision, its search shows here.</p>';
  try {
    setBusy(true, "Starting...");
    const state = await api("POST", "/api/play", {
      env: spec($("play-env").value, $("play-env-options").value),
      opponent: $("play-opponent").value,
      seat: $("play-seat").value,
      seed: optionalNumber($("play-seed").value),
    });
    play.id = state.id;
    await showPlay(state);
  } catch (error) {
    $("play-message").textContent = error.message;
    setStatus($("play-status"), "The game did not start.", "idle");
  } finally {
    setBusy(false);
  }
});

function setBusy(busy, text) {
  play.busy = busy;
  $("play-start").disabled = busy;
  if (text) setStatus($("play-status"), text, "thinking");
}

async function sendMove(action) {
  if (play.busy || !play.state || !play.state.your_turn) return;
  $("play-message").textContent = "";
  try {
    setBusy(true, "The opponent is thinking...");
    const state = await api("POST", `/api/play/${play.id}/move`, { action });
    await showPlay(state);
  } catch (error) {
    $("play-message").textContent = error.message;
    showStatus(play.state);
  } finally {
    setBusy(false);
  }
}

function statusText(state) {
  const verdict = { won: "you won", lost: "you lost", draw: "a draw" }[state.outcome];
  if (state.result) return `Game over: ${verdict} (${state.result}; seed ${state.seed}).`;
  const pieces = state.your_pieces ? `you play the ${state.your_pieces}, ${state.you}` : `you are ${state.you}`;
  return state.your_turn ? `Your move (${pieces}).` : "Waiting...";
}

function showStatus(state, before = "") {
  const mood = state.result ? state.outcome : state.your_turn ? "turn" : "thinking";
  setStatus($("play-status"), before + statusText(state), mood);
}

async function showPlay(state) {
  play.state = null; // no clicks while the frames play
  play.selected = null;
  play.reds = new Set();
  for (let i = 0; i < state.frames.length; i++) {
    showBoard($("play-board"), state.frames[i].svg);
    setStatus($("play-status"), state.frames[i].announce, "thinking");
    if (i < state.frames.length - 1) await sleep(FRAME_PAUSE_MS);
  }
  play.state = state;
  fillLog($("play-log"), state.log);
  const last = state.frames[state.frames.length - 1];
  showStatus(state, state.frames.length > 1 ? `${last.announce}. ` : "");
  showSearch(state);
  showMoves(state);
}

function showMoves(state) {
  const holder = $("play-moves");
  holder.innerHTML = "";
  const placing = state.moves.length > 0 && state.moves[0].reds !== undefined;
  $("play-placement").hidden = !placing;
  $("play-place").disabled = true;
  if (placing || !state.your_turn) return;
  for (const move of state.moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = move.label;
    button.dataset.move = move.action;
    button.addEventListener("click", () => sendMove(move.action));
    holder.appendChild(button);
  }
}

// One listener for every board: what a click means is in the SVG's data attributes.
const board = $("play-board");
board.addEventListener("click", (event) => {
  const state = play.state;
  if (!state || !state.your_turn || play.busy) return;
  const target = event.target.closest("[data-action], [data-ghost], [data-square], .target");
  if (!target) return;
  if (target.dataset.action !== undefined) {
    sendMove(Number(target.dataset.action)); // the server explains an illegal one
  } else if (state.game === "geister") {
    geisterClick(target);
  }
});

board.addEventListener("mouseover", (event) => {
  // Nim: pointing at a pawn shows every pawn that move would take.
  const pawn = event.target.closest(".pawn[data-action]");
  for (const other of board.querySelectorAll(".pawn.hover")) other.classList.remove("hover");
  if (!pawn) return;
  for (const other of board.querySelectorAll(".pawn[data-action]")) {
    if (Number(other.dataset.action) <= Number(pawn.dataset.action)) other.classList.add("hover");
  }
});

function geisterClick(target) {
  const state = play.state;
  const placing = state.moves[0] && state.moves[0].reds !== undefined;
  if (target.dataset.ghost && placing) {
    const letter = target.dataset.ghost;
    const reds = state.moves[0].reds.length;  // as many as a placement names (4 in the classic game)
    if (play.reds.has(letter)) play.reds.delete(letter);
    else if (play.reds.size < reds) play.reds.add(letter);
    else {
      $("play-message").textContent = `${reds} ghost${reds === 1 ? " is" : "s are"} red already: ` +
        "click one of them to make it blue again.";
      return;
    }
    target.classList.toggle("chosen-red", play.reds.has(letter));
    $("play-place").disabled = play.reds.size !== reds;
    $("play-message").textContent = "";
    return;
  }
  if (placing) return;
  if (target.dataset.ghost) {
    selectGhost(target.dataset.ghost);
    return;
  }
  const square = target.dataset.square || target.dataset.to;
  if (square && play.selected) moveGhostTo(play.selected, square.split(",").map(Number));
}

function selectGhost(letter) {
  const svg = board.querySelector("svg");
  for (const old of svg.querySelectorAll(".target")) old.remove();
  for (const ghost of svg.querySelectorAll(".ghost.selected")) ghost.classList.remove("selected");
  const moves = play.state.moves.filter((move) => move.ghost === letter);
  play.selected = letter;
  svg.querySelector(`[data-ghost="${letter}"]`).classList.add("selected");
  if (moves.length === 0) {
    $("play-message").textContent = `Ghost ${letter} cannot move now: every square next to it is blocked.`;
    return;
  }
  $("play-message").textContent = "";
  const cell = Number(svg.dataset.cell), left = Number(svg.dataset.left), top = Number(svg.dataset.top);
  for (const move of moves) {
    const mark = document.createElementNS(SVG_NS, "rect");
    mark.setAttribute("x", left + move.to[0] * cell + 4);
    mark.setAttribute("y", top + move.to[1] * cell + 4);
    mark.setAttribute("width", cell - 8);
    mark.setAttribute("height", cell - 8);
    mark.setAttribute("rx", 8);
    mark.setAttribute("class", "target");
    mark.dataset.to = move.to.join(",");
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = move.label;
    mark.appendChild(title);
    svg.appendChild(mark);
  }
}

function moveGhostTo(letter, square) {
  const move = play.state.moves.find(
    (m) => m.ghost === letter && m.to[0] === square[0] && m.to[1] === square[1]);
  if (move) {
    sendMove(move.action);
  } else {
    $("play-message").textContent =
      `Ghost ${letter} cannot go there: a ghost moves one square up, down, left or right, ` +
      "not onto one of your own ghosts (only a blue ghost leaves by your corners).";
  }
}

// Drag a ghost onto a square: the same move as two clicks.
board.addEventListener("pointerdown", (event) => {
  const ghost = event.target.closest("[data-ghost]");
  const state = play.state;
  if (!ghost || !state || !state.your_turn || state.game !== "geister") return;
  if (state.moves[0] && state.moves[0].reds !== undefined) return;
  selectGhost(ghost.dataset.ghost);
  play.dragging = ghost.dataset.ghost;
});
board.addEventListener("pointerup", (event) => {
  const letter = play.dragging;
  play.dragging = null;
  if (!letter) return;
  const under = document.elementsFromPoint(event.clientX, event.clientY)
    .find((element) => element.dataset && (element.dataset.to || element.dataset.square));
  if (!under) return;
  const square = (under.dataset.to || under.dataset.square).split(",").map(Number);
  const origin = play.state.moves.find((m) => m.ghost === letter);
  if (origin && (square[0] !== origin.from[0] || square[1] !== origin.from[1])) moveGhostTo(letter, square);
});

$("play-place").addEventListener("click", () => {
  const letters = [...play.reds].sort().join("");
  const move = play.state.moves.find((m) => m.reds === letters);
  if (move) sendMove(move.action);
});

// ---- inside the search ------------------------------------------------------------------
function showSearch(state) {
  const holder = $("search");
  if (state.search_hidden) {
    holder.innerHTML = '<p class="hint">In a game with hidden pieces the opponent\'s search stays closed ' +
      "until the game ends: it would show which of its ghosts can escape.</p>";
    return;
  }
  const search = state.search;
  if (!search) return;
  if (search.kind === "line") {
    holder.innerHTML = "";
    const text = document.createElement("p");
    text.className = "line";
    text.textContent = `Principal variation (depth ${search.depth}, ${search.nodes} nodes, value ` +
      `${Number(search.value).toFixed(2)}): ${search.line.join(" → ")}`;
    holder.appendChild(text);
    return;
  }
  holder.innerHTML = `<p class="stats"><span>${search.iterations} iterations</span>` +
    `<span>${(search.seconds * 1000).toFixed(0)} ms</span></p>` +
    "<p class=\"hint\">Edge width: visits; colour: the mover's mean value (red −1 … green +1); orange: the move " +
    "played and its expected continuation. Click a node to open or close it.</p>";
  const view = new TreeView(search.tree);
  const scroller = document.createElement("div");
  scroller.className = "tree-scroll";
  scroller.appendChild(view.svg);
  holder.appendChild(scroller);
  view.draw();
  // Open on the move played: the root and its expected line, centred when they fit; a line
  // wider than the frame shows the root at the frame's edge and as much of the line as fits.
  const xs = view.chosenLine().map((node) => node.x + 30);
  const root = xs[0], low = Math.min(...xs) - 40, high = Math.max(...xs) + 40, frame = scroller.clientWidth;
  let left = (low + high - frame) / 2;
  if (high - low > frame) left = root - low > high - root ? root + 40 - frame : root - 40;
  scroller.scrollLeft = Math.max(0, left);
  holder.appendChild(childrenTable(search.children, search.tree, search.priors));
}

// The prior column only where the search reads priors (PUCT): plain UCB1's would be 1/n.
function childrenTable(children, tree, priors) {
  const table = document.createElement("table");
  table.innerHTML = "<thead><tr><th>move</th><th>visits</th><th>value</th><th>win ratio</th>" +
    (priors ? "<th>prior</th>" : "") + "<th>proven</th></tr></thead>";
  const body = document.createElement("tbody");
  const chosen = (tree.children.find((child) => child.chosen) || {}).label;
  for (const child of children) {
    const row = document.createElement("tr");
    if (child.label === chosen) row.className = "chosen";
    for (const value of [child.label, child.visits, child.value.toFixed(3), child.win_ratio.toFixed(3),
      ...(priors ? [child.prior.toFixed(2)] : []), child.proven === null ? "" : child.proven]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.appendChild(cell);
    }
    body.appendChild(row);
  }
  table.appendChild(body);
  return table;
}

function valueColour(value) {
  const t = Math.max(-1, Math.min(1, value));
  const red = t < 0 ? 220 : Math.round(220 - 170 * t);
  const green = t > 0 ? 170 : Math.round(170 + 50 * t);
  return `rgb(${red},${green},${t < 0 ? 60 : 70})`;
}

// The children in their order, the move played (or expected) moved to the middle: the
// expected line then runs down the middle of the tree instead of off to one side.
function spineInMiddle(children) {
  const chosen = children.find((child) => child.chosen);
  if (!chosen) return children;
  const others = children.filter((child) => child !== chosen);
  const middle = Math.floor(others.length / 2);
  return [...others.slice(0, middle), chosen, ...others.slice(middle)];
}

class TreeView {
  constructor(tree) {
    this.tree = tree;
    this.svg = document.createElementNS(SVG_NS, "svg");
    this.svg.setAttribute("class", "tree");
    // Open at first: the root's children, and the chosen line four levels deeper.
    const open = (node, depth) => {
      node.open = depth < 1 || (node.chosen && depth < 5);
      for (const child of node.children) open(child, depth + 1);
    };
    open(tree, 0);
  }

  // The root and, from it, each shown child that is the move played or its expected continuation.
  chosenLine() {
    const line = [this.tree];
    for (let node = this.tree; node.open;) {
      node = node.children.find((child) => child.chosen);
      if (!node) break;
      line.push(node);
    }
    return line;
  }

  draw() {
    const dx = 46, dy = 70, radius = 9;
    let column = 0;
    const place = (node, depth) => {
      node.depth = depth;
      const shown = node.open ? spineInMiddle(node.children) : [];
      if (shown.length === 0) {
        node.x = column++ * dx;
      } else {
        for (const child of shown) place(child, depth + 1);
        node.x = (shown[0].x + shown[shown.length - 1].x) / 2;
      }
    };
    place(this.tree, 0);
    let deepest = 0;
    const parts = [], root = this.tree.visits || 1;
    const walk = (node) => {
      deepest = Math.max(deepest, node.depth);
      if (!node.open) return;
      for (const child of node.children) {
        const width = 1 + 9 * Math.sqrt(child.visits / root);
        parts.push(`<path class="edge${child.chosen && node.chosen ? " chosen" : ""}" stroke-width="${width.toFixed(1)}" ` +
          `d="M${node.x + 30},${node.depth * dy + 24} L${child.x + 30},${child.depth * dy + 24}"/>`);
        walk(child);
      }
    };
    walk(this.tree);
    const nodes = [];
    const collect = (node) => {
      nodes.push(node);
      if (node.open) node.children.forEach(collect);
    };
    collect(this.tree);
    nodes.forEach((node, index) => {
      const closed = !node.open && node.children.length > 0;
      const more = node.hidden > 0 ? ` (+${node.hidden} not sent)` : "";
      parts.push(`<g class="node${closed ? " collapsed" : ""}" data-index="${index}" ` +
        `transform="translate(${node.x + 30},${node.depth * dy + 24})">` +
        `<title>${escapeText(node.label)}: ${node.visits} visits, value ${node.value.toFixed(3)}, ` +
        `wins ${node.wins.toFixed(2)}${node.proven === null ? "" : `, proven ${node.proven}`}${more}</title>` +
        `<circle r="${radius}" fill="${valueColour(node.value)}"/>` +
        `<text y="-13" text-anchor="middle" font-size="11">${escapeText(node.label)}</text>` +
        `<text y="22" text-anchor="middle" font-size="9" fill="#555">${node.visits}</text></g>`);
    });
    const width = Math.max(column * dx + 20, 120), height = (deepest + 1) * dy + 10;
    this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    this.svg.setAttribute("width", width);
    this.svg.setAttribute("height", height);
    this.svg.innerHTML = parts.join("");
    for (const element of this.svg.querySelectorAll(".node")) {
      element.addEventListener("click", () => {
        const node = nodes[Number(element.dataset.index)];
        if (node.children.length === 0) return;
        node.open = !node.open;
        this.draw();
      });
    }
  }
}

function escapeText(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// ---- watch ------------------------------------------------------------------------------
const watch = { id: null, timer: null, svg: null };

$("watch-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("watch-message").textContent = "";
  await stopWatching();
  try {
    const state = await api("POST", "/api/watch", {
      env: spec($("watch-env").value, $("watch-env-options").value),
      a: $("watch-a").value, b: $("watch-b").value,
      games: Number($("watch-games").value), seed: optionalNumber($("watch-seed").value),
      delay: Number($("watch-delay").value),
    });
    watch.id = state.id;
    $("watch-stop").disabled = false;
    showWatch(state);
    watch.timer = setInterval(pollWatch, 250);
  } catch (error) {
    $("watch-message").textContent = error.message;
  }
});

async function pollWatch() {
  if (!watch.id) return;
  try {
    const state = await api("GET", `/api/watch/${watch.id}`);
    showWatch(state);
    if (!state.running) {
      clearInterval(watch.timer);
      $("watch-stop").disabled = true;
    }
  } catch (error) {
    $("watch-message").textContent = error.message;
    clearInterval(watch.timer);
  }
}

function showWatch(state) {
  if (state.frame.svg !== watch.svg) {
    watch.svg = state.frame.svg;
    showBoard($("watch-board"), state.frame.svg);
  }
  const s = state.summary;
  const score = s ? ` — a ${s.a_wins} : ${s.b_wins} b, ${s.ties} draws` : "";
  const where = state.running ? `game ${state.frame.game + 1}, ply ${state.frame.ply}` : "finished";
  setStatus($("watch-status"), `a = ${state.a}, b = ${state.b}: ${state.finished} of ${state.games} games` +
    `${score} (${where})`, state.running ? "thinking" : "done");
  if (state.error) $("watch-message").textContent = state.error;
  fillLog($("watch-log"), state.log);
}

async function stopWatching() {
  clearInterval(watch.timer);
  if (watch.id) {
    await api("DELETE", `/api/watch/${watch.id}`).catch(() => null);
    watch.id = null;
  }
  $("watch-stop").disabled = true;
}
$("watch-stop").addEventListener("click", stopWatching);

// ---- replay -----------------------------------------------------------------------------
// A replay comes in parts: every move's announcement at once, the drawings of a bounded
// run of positions per answer; the slider asks for the part it reaches.
const replay = { key: null, announces: [], frames: new Map(), timer: null };

async function loadReplayFiles() {
  try {
    const data = await api("GET", "/api/replays");
    $("replay-root").textContent = `Results files (.jsonl) under ${data.root}` +
      (data.files.length ? "" : ": none found. Start the server with --replays FOLDER.");
    const select = $("replay-file");
    const current = select.value;
    select.innerHTML = "";
    for (const file of data.files) select.add(new Option(file, file));
    if (current && data.files.includes(current)) select.value = current;
    if (select.value) await loadReplayGames();
  } catch (error) {
    $("replay-message").textContent = error.message;
  }
}

async function loadReplayGames() {
  $("replay-message").textContent = "";
  try {
    const data = await api("GET", `/api/replays/games?file=${encodeURIComponent($("replay-file").value)}`);
    const select = $("replay-game");
    select.innerHTML = "";
    for (const game of data.games) {
      const result = game.winner === null ? "draw" : `${game.winner} wins`;
      select.add(new Option(`game ${game.game}: ${game.a} vs ${game.b}, ${result}, ${game.plies} plies`, game.index));
    }
    if (data.notes.length) $("replay-message").textContent = data.notes.join("; ");
    if (data.games.length) await openReplay();
    else clearReplay();
  } catch (error) {
    $("replay-message").textContent = error.message;
  }
}
$("replay-file").addEventListener("change", loadReplayGames);
$("replay-game").addEventListener("change", () => openReplay());

// The frames go to the map of the game that asked for them, even if another game is open by then.
async function replayPart(start) {
  const frames = replay.frames;
  const file = encodeURIComponent($("replay-file").value);
  const data = await api("GET", `/api/replays/game?file=${file}&index=${$("replay-game").value}&start=${start}`);
  data.frames.forEach((svg, i) => frames.set(start + i, svg));
  return data;
}

// No game open: nothing drawn, and the slider and buttons wait for one.
function clearReplay() {
  replay.key = null;
  $("replay-board").innerHTML = "";
  $("replay-log").innerHTML = "";
  setStatus($("replay-status"), "", "idle");
  $("replay-ply").textContent = "";
  $("replay-slider").max = 0;
}

async function openReplay() {
  $("replay-message").textContent = "";
  stopAutoplay();
  if (!$("replay-game").value) {
    clearReplay();
    $("replay-message").textContent = "No game to replay: choose a results file that holds games.";
    return;
  }
  const key = `${$("replay-file").value}#${$("replay-game").value}`;
  replay.key = key;
  replay.frames = new Map();
  $("replay-ply").textContent = "";
  try {
    const data = await replayPart(0);
    if (key !== replay.key) return;  // another game was chosen while this one loaded
    replay.announces = data.announces;
    fillLog($("replay-log"), data.announces);
    const slider = $("replay-slider");
    slider.max = data.announces.length - 1;
    slider.value = 0;
    showReplayFrame(0);
  } catch (error) {
    if (key === replay.key) $("replay-message").textContent = error.message;
  }
}
$("replay-form").addEventListener("submit", (event) => { event.preventDefault(); openReplay(); });

async function showReplayFrame(index) {
  if (!replay.key) return;
  if (!replay.frames.has(index)) {
    const key = replay.key;
    try {
      await replayPart(index);
    } catch (error) {
      $("replay-message").textContent = error.message;
      return;
    }
    if (key !== replay.key || Number($("replay-slider").value) !== index) return;  // moved on meanwhile
  }
  showBoard($("replay-board"), replay.frames.get(index));
  const last = replay.announces.length - 1;
  setStatus($("replay-status"), replay.announces[index], index === last ? "done" : "idle");
  $("replay-ply").textContent = `${index} / ${last}`;
  const items = $("replay-log").children;
  for (let i = 0; i < items.length; i++) items[i].classList.toggle("current", i === index);
  keepInView($("replay-log"), items[index]);
}
// Scrolls the list only (scrollIntoView would scroll the page too, on a narrow screen).
function keepInView(list, item) {
  if (!item) return;
  if (item.offsetTop < list.scrollTop || item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
    scrollToEntry(list, item.offsetTop - list.clientHeight / 2);
  }
}
$("replay-log").addEventListener("click", (event) => {
  const item = event.target.closest("li");
  if (!item) return;
  stopAutoplay();
  const index = [...$("replay-log").children].indexOf(item);
  $("replay-slider").value = index;
  showReplayFrame(index);
});
$("replay-slider").addEventListener("input", (event) => showReplayFrame(Number(event.target.value)));
async function stepReplay(step) {
  const slider = $("replay-slider");
  slider.value = Math.max(0, Math.min(Number(slider.max), Number(slider.value) + step));
  await showReplayFrame(Number(slider.value));
}
$("replay-prev").addEventListener("click", () => { stopAutoplay(); stepReplay(-1); });
$("replay-next").addEventListener("click", () => { stopAutoplay(); stepReplay(1); });

// The play button walks through the moves at the live game's pace, from the start once at the end.
function stopAutoplay() {
  clearInterval(replay.timer);
  replay.timer = null;
  $("replay-auto").setAttribute("aria-pressed", "false");
  $("replay-auto").textContent = "Play";
}
$("replay-auto").addEventListener("click", () => {
  if (replay.timer) return stopAutoplay();
  if (!replay.key) return;
  const slider = $("replay-slider");
  if (Number(slider.value) >= Number(slider.max)) slider.value = 0;
  $("replay-auto").setAttribute("aria-pressed", "true");
  $("replay-auto").textContent = "Pause";
  showReplayFrame(Number(slider.value));
  replay.timer = setInterval(() => {
    if (Number(slider.value) >= Number(slider.max)) stopAutoplay();
    else stepReplay(1);
  }, FRAME_PAUSE_MS);
});

loadCatalogue().catch((error) => { $("play-message").textContent = error.message; });
