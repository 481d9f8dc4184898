// farl serve: the page. Plain JavaScript, no build step, nothing loaded from the network.
// The server (farl_agents/serve/app.py) keeps the game; this file draws it as SVG and sends clicks.
// What comes from files in the served folder (agent paths, curve.csv, eval.json) is put on the page as text
// nodes built with el() / svgEl(), never as HTML strings: a file cannot add markup or scripts to the page.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
let GAMES = {};          // name -> game info from /api/games
let AGENTS = {agents: [], pretrained: []};
let VIEW = null;         // the current game's view from the server
let THOUGHTS = null;     // {values: {action: value}, best, agent, kind}
let busy = false;

async function api(method, url, body) {
  // every POST is JSON (the server refuses any other kind: that is what keeps other sites' forms out)
  const opts = {method, headers: {}};
  if (method !== "GET") { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body ?? {}); }
  const r = await fetch(url, opts);
  const data = await r.json();
  if (r.status >= 400) throw new Error(data.error || ("HTTP " + r.status));
  data._status = r.status;
  return data;
}

function setStatus(text) { $("status").textContent = text; }

// an element with attributes and children (strings become text nodes, never markup)
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

// the same for SVG elements
function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function str(x) { return x == null ? "" : String(x); }
function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c])); }
function rgb(c) { return c ? `rgb(${c[0]},${c[1]},${c[2]})` : "#ddd"; }

// ------------------------------------------------------------------ setup form
async function init() {
  // the tabs work at once (the runs view needs no game list); the form is never sent, its button starts a game
  $("setup").addEventListener("submit", (ev) => ev.preventDefault());
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => showPanel(t.dataset.panel));
  const games = await api("GET", "/api/games");
  for (const g of games) {
    GAMES[g.name] = g;
    const o = document.createElement("option"); o.value = g.name; o.textContent = g.name; $("game").appendChild(o);
  }
  AGENTS = await api("GET", "/api/agents");
  showUnreadable(AGENTS.unreadable, "agents-unreadable");
  $("game").value = GAMES.tictactoe ? "tictactoe" : games[0].name;
  $("game").addEventListener("change", fillForm);
  fillForm();
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("think").addEventListener("change", () => { THOUGHTS = null; afterUpdate(); });
  $("copy").addEventListener("click", copyMoves);
  document.addEventListener("keydown", onKey);
}

function fillForm() {
  const g = GAMES[$("game").value];
  const params = $("params");
  params.replaceChildren(el("legend", {}, "Parameters"));
  const keys = Object.keys(g.params);
  if (!keys.length) params.append(el("span", {}, "none"));
  for (const k of keys) {
    const v = g.params[k];
    const kind = typeof v === "boolean" ? "checkbox" : (typeof v === "number" ? "number" : "text");
    const input = el("input", {type: kind, "data-param": k});
    if (kind === "checkbox") input.checked = v; else input.value = v;
    params.append(el("label", {}, k + " ", input));
  }
  const seats = $("seats");
  seats.replaceChildren(el("legend", {}, "Seats"));
  for (let i = 0; i < g.n_players; i++) {
    const sel = el("select", {id: `seat-${i}`, "data-seat": i}, el("option", {value: "human"}, "you"));
    for (const o of g.opponents) sel.append(el("option", {value: o.name, "data-budget": o.budget ?? ""}, o.label));
    agentOptions(sel, g);
    if (AGENTS.pretrained.includes(g.name)) {
      sel.append(el("option", {value: "pretrained"}, "pretrained agent"));
      // the same agent with a PUCT search around it (GBG's MCTS wrapper); the number is the iterations
      sel.append(el("option", {value: "pretrained+mcts", "data-budget": 400}, "pretrained agent + search (iterations)"));
    }
    const budget = el("input", {type: "number", id: `budget-${i}`, min: "1", title: "depth / iterations", class: "hidden"});
    seats.append(el("label", {}, `seat ${i} `, sel, budget));
    sel.value = (i === 0) ? "human" : g.opponents[Math.min(1, g.opponents.length - 1)].name;
    sel.addEventListener("change", () => { showBudget(i); if (sel.value.startsWith("pretrained")) usePretrainedParams(g); });
    showBudget(i);
  }
}

// the agent files and run folders of the served folder that play game g, as options of a seat's select
function agentOptions(select, g) {
  for (const a of AGENTS.agents)
    if (a.game === g.name || a.game === g.id) select.append(el("option", {value: "agent:" + a.path}, "agent " + a.path));
}

// the files of the served folder the server could not read, each with its reason (as text)
function showUnreadable(entries, id) {
  const box = $(id);
  box.replaceChildren();
  if (!entries || !entries.length) return;
  const list = el("ul");
  for (const u of entries) list.append(el("li", {}, str(u.error || u.path)));
  box.append(el("details", {}, el("summary", {},
    `${entries.length} file${entries.length > 1 ? "s" : ""} in the served folder could not be read`), list));
}

// a pretrained agent plays the game parameters it was trained with (Nim's max_take=5 of the paper, ...)
function usePretrainedParams(g) {
  const params = (AGENTS.pretrained_params || {})[g.name] || {};
  for (const el of $("params").querySelectorAll("[data-param]")) {
    const v = params[el.dataset.param];
    if (v === undefined) continue;
    if (el.type === "checkbox") el.checked = Boolean(v); else el.value = v;
  }
}

function showBudget(i) {
  const sel = $(`seat-${i}`), b = $(`budget-${i}`);
  const budget = sel.selectedOptions[0].dataset.budget;
  b.classList.toggle("hidden", !budget);
  if (budget) b.value = budget;
}

function seatChoice(i) {
  const v = $(`seat-${i}`).value;
  const b = $(`budget-${i}`);
  return (!b.classList.contains("hidden") && b.value) ? v + b.value : v;
}

async function newGame() {
  const g = GAMES[$("game").value];
  const params = {};
  for (const el of $("params").querySelectorAll("[data-param]"))
    params[el.dataset.param] = el.type === "checkbox" ? el.checked : (el.type === "number" ? Number(el.value) : el.value);
  const seats = [];
  for (let i = 0; i < g.n_players; i++) seats.push(seatChoice(i));
  try {
    setStatus("starting (the first game of a kind compiles its rules) ...");
    $("result").textContent = "";
    VIEW = await api("POST", "/api/new", {game: g.name, params, seats, seed: Number($("seed").value) || 0});
    THOUGHTS = null;
    render();
    await advance();
  } catch (e) { setStatus("error: " + e.message); }
}

// ------------------------------------------------------------------ playing
async function advance() {
  // the agents move until a person is to move or the game ends
  busy = true;
  try {
    while (VIEW && !VIEW.terminal && !VIEW.human_to_move) {
      const seat = VIEW.seats[VIEW.to_move];
      setStatus(`${seat.name} (seat ${seat.seat}) is thinking ...`);
      const v = await api("POST", `/api/game/${VIEW.id}/agent`);
      if (v._status === 202) { await new Promise((r) => setTimeout(r, 300)); continue; }
      VIEW = v; THOUGHTS = null; render();
    }
  } catch (e) { setStatus("error: " + e.message); busy = false; return; }
  busy = false;
  await afterUpdate();
}

async function afterUpdate() {
  if (!VIEW) return;
  if ($("think").checked && !VIEW.terminal && THOUGHTS === null) {
    try { THOUGHTS = await api("GET", `/api/game/${VIEW.id}/thoughts`); } catch (e) { THOUGHTS = {values: {}, note: e.message}; }
  }
  render();
}

async function play(action) {
  if (busy || !VIEW || !VIEW.human_to_move) return;
  busy = true;
  try { VIEW = await api("POST", `/api/game/${VIEW.id}/move`, {action}); THOUGHTS = null; render(); }
  catch (e) { setStatus("error: " + e.message); busy = false; return; }
  busy = false;
  await advance();
}

async function undo() {
  if (busy || !VIEW) return;
  try { VIEW = await api("POST", `/api/game/${VIEW.id}/undo`); THOUGHTS = null; render(); await advance(); }
  catch (e) { setStatus("error: " + e.message); }
}

function onKey(ev) {
  if (!VIEW || VIEW.game !== "game2048") return;
  const name = {ArrowUp: "up", ArrowRight: "right", ArrowDown: "down", ArrowLeft: "left"}[ev.key];
  if (!name) return;
  ev.preventDefault();
  const m = VIEW.legal.find((l) => l.name === name);
  if (m) play(m.action);
}

function copyMoves() {
  const t = $("movelist");
  t.select();
  if (navigator.clipboard) navigator.clipboard.writeText(t.value).catch(() => document.execCommand("copy"));
  else document.execCommand("copy");
}

// ------------------------------------------------------------------ drawing
function render() {
  const v = VIEW;
  if (!v) return;
  const info = GAMES[v.game];
  const mover = v.seats[v.to_move];
  if (v.terminal) setStatus("game over");
  else if (v.human_to_move) setStatus(`your move (seat ${v.to_move})`);
  else setStatus(`${mover.name} (seat ${v.to_move}) to move`);
  $("result").textContent = v.result || "";
  $("undo").disabled = !v.can_undo;
  const values = (THOUGHTS && THOUGHTS.values) || {};
  const best = THOUGHTS ? THOUGHTS.best : null;
  const legalSet = new Set(v.human_to_move ? v.legal.map((l) => l.action) : []);
  const drawer = DRAW[info.view] || drawGeneric;
  const svg = $("board");
  const {w, h, body, onBoard} = drawer(v, info, legalSet, values, best);
  svg.setAttribute("width", w); svg.setAttribute("height", h);
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.innerHTML = body;
  for (const el of svg.querySelectorAll("[data-action]"))
    el.addEventListener("click", () => play(Number(el.dataset.action)));
  // moves that are not on the board: buttons (with the agent's value when shown)
  const buttons = v.legal.filter((l) => !onBoard.has(l.action));
  $("moves").innerHTML = v.human_to_move ? buttons.map((l) => {
    const val = values[l.action];
    const cls = (best === l.action) ? "best" : "";
    return `<button type="button" class="${cls}" data-move="${l.action}">${esc(l.name)}${val != null ? " (" + fmt(val) + ")" : ""}</button>`;
  }).join("") : "";
  for (const b of $("moves").querySelectorAll("button")) b.addEventListener("click", () => play(Number(b.dataset.move)));
  $("text-board").textContent = info.view === "generic" ? v.text : "";
  $("movelist").value = v.moves.map((m, i) => `${i + 1}. ${m.name}` + (m.chance != null ? ` [${m.chance}]` : "") +
    `  (seat ${m.seat}, ${m.by})`).join("\n");
  $("totals").textContent = "rewards: " + v.totals.map((t, i) => `seat ${i}: ${fmt(t)}`).join(", ");
  const th = $("thoughts");
  if (!$("think").checked || !THOUGHTS) th.textContent = "";
  else if (THOUGHTS.agent) th.textContent = `${THOUGHTS.agent}: ${THOUGHTS.kind} of each legal move for seat ` +
      `${THOUGHTS.seat}; best: ${best != null ? v.legal.find((l) => l.action === best)?.name : "-"}`;
  else th.textContent = THOUGHTS.note || "";
}

function fmt(x) {
  if (typeof x !== "number" || !Number.isFinite(x)) return "-";
  return (Number.isInteger(x) || Math.abs(x) >= 100) ? x.toFixed(0) : x.toFixed(2);
}

function valueText(x, y, a, values, best) {
  const val = values[a];
  if (val == null) return "";
  return `<text class="value${best === a ? " best" : ""}" data-value-action="${a}" x="${x}" y="${y}" text-anchor="middle" dominant-baseline="middle">${fmt(val)}</text>`;
}

const PLAYER_FILL = ["#c82828", "#2850c8", "#e6b41e", "#2a9a40"];

function drawGeneric(v, info, legal, values, best) {
  // a grid of coloured cells from the game's paint (or its n-tuple board); placement games are clickable
  let grid = v.paint;
  let shape = info.grid_shape;
  if (!grid && shape.length === 2 && shape[0] * shape[1] === v.board.length) {
    grid = [];
    for (let r = 0; r < shape[0]; r++) grid.push(v.board.slice(r * shape[1], (r + 1) * shape[1]));
  }
  const onBoard = new Set();
  if (!grid) return {w: 10, h: 10, body: "", onBoard};
  const rows = grid.length, cols = grid[0].length, cs = Math.max(18, Math.min(60, Math.floor(480 / Math.max(rows, cols))));
  const shift = info.hex_grid ? cs / 2 : 0;  // hex boards drawn as rows shifted by half a cell (a rhombus)
  const out = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
    const x = c * cs + r * shift, y = r * cs, k = r * cols + c;
    const colour = rgb(info.cell_colors[grid[r][c] % Math.max(1, info.cell_colors.length)]);
    const clickable = info.cell_actions && legal.has(k);
    if (clickable) onBoard.add(k);
    out.push(`<rect x="${x + 1}" y="${y + 1}" width="${cs - 2}" height="${cs - 2}" fill="${colour}"` +
      (clickable ? ` class="legal cell" data-action="${k}" stroke="#0a0" stroke-width="2"` : ` stroke="#999"`) + "/>");
    if (info.cell_actions) out.push(valueText(x + cs / 2, y + cs / 2, k, values, best));
  }
  return {w: cols * cs + (rows - 1) * shift + 2, h: rows * cs + 2, body: out.join(""), onBoard};
}

function drawTicTacToe(v, info, legal, values, best) {
  const cs = 110, out = [], onBoard = new Set();
  for (let k = 0; k < 9; k++) {
    const x = (k % 3) * cs, y = Math.floor(k / 3) * cs, b = v.board[k];
    const cls = legal.has(k) ? ` class="legal cell" data-action="${k}"` : "";
    if (legal.has(k)) onBoard.add(k);
    out.push(`<rect x="${x + 3}" y="${y + 3}" width="${cs - 6}" height="${cs - 6}" fill="${legal.has(k) ? "#eef8ee" : "#f4f4f4"}"${cls}/>`);
    if (b === 1) out.push(`<path d="M${x + 25} ${y + 25} L${x + cs - 25} ${y + cs - 25} M${x + cs - 25} ${y + 25} L${x + 25} ${y + cs - 25}" stroke="${PLAYER_FILL[0]}" stroke-width="10" stroke-linecap="round"/>`);
    if (b === 2) out.push(`<circle cx="${x + cs / 2}" cy="${y + cs / 2}" r="${cs / 2 - 25}" fill="none" stroke="${PLAYER_FILL[1]}" stroke-width="10"/>`);
    out.push(valueText(x + cs / 2, y + cs / 2, k, values, best));
  }
  return {w: 3 * cs, h: 3 * cs, body: out.join(""), onBoard};
}

function drawConnectFour(v, info, legal, values, best) {
  const rows = v.params.rows, cols = v.params.cols, cs = 60, top = 30, out = [], onBoard = new Set();
  out.push(`<rect x="0" y="${top}" width="${cols * cs}" height="${rows * cs}" fill="#2456a8" rx="8"/>`);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
    const b = v.board[r * cols + c];
    const fill = b === 1 ? "#d22" : (b === 2 ? "#f0c020" : "#f6f6f6");
    out.push(`<circle cx="${c * cs + cs / 2}" cy="${top + r * cs + cs / 2}" r="${cs / 2 - 6}" fill="${fill}"/>`);
  }
  for (let c = 0; c < cols; c++) {
    if (legal.has(c)) {
      onBoard.add(c);
      out.push(`<rect class="legal column" data-action="${c}" x="${c * cs}" y="0" width="${cs}" height="${top + rows * cs}" fill="#fff" fill-opacity="0.01"/>`);
    }
    out.push(valueText(c * cs + cs / 2, top / 2, c, values, best));
  }
  return {w: cols * cs, h: top + rows * cs, body: out.join(""), onBoard};
}

function hexPoints(cx, cy, r) {
  const p = [];
  for (let i = 0; i < 6; i++) { const a = Math.PI / 180 * (60 * i + 30); p.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`); }
  return p.join(" ");
}

function drawHex(v, info, legal, values, best) {
  // the rhombus: row r shifted right by half a cell per row; player_0 joins top and bottom, player_1 left and right
  const n = v.params.size, R = 26, w = Math.sqrt(3) * R, out = [], onBoard = new Set();
  const cx = (r, c) => 30 + c * w + r * w / 2 + w / 2, cy = (r) => 30 + r * 1.5 * R + R;
  out.push(`<line x1="${cx(0, 0) - w / 2}" y1="${cy(0) - R - 8}" x2="${cx(0, n - 1) + w / 2}" y2="${cy(0) - R - 8}" stroke="${PLAYER_FILL[0]}" stroke-width="6"/>`);
  out.push(`<line x1="${cx(n - 1, 0) - w / 2}" y1="${cy(n - 1) + R + 8}" x2="${cx(n - 1, n - 1) + w / 2}" y2="${cy(n - 1) + R + 8}" stroke="${PLAYER_FILL[0]}" stroke-width="6"/>`);
  out.push(`<line x1="${cx(0, 0) - w / 2 - 8}" y1="${cy(0)}" x2="${cx(n - 1, 0) - w / 2 - 8}" y2="${cy(n - 1)}" stroke="${PLAYER_FILL[1]}" stroke-width="6"/>`);
  out.push(`<line x1="${cx(0, n - 1) + w / 2 + 8}" y1="${cy(0)}" x2="${cx(n - 1, n - 1) + w / 2 + 8}" y2="${cy(n - 1)}" stroke="${PLAYER_FILL[1]}" stroke-width="6"/>`);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
    const k = r * n + c, b = v.board[k];
    const fill = b === 1 ? PLAYER_FILL[0] : (b === 2 ? PLAYER_FILL[1] : (legal.has(k) ? "#eef8ee" : "#f2f2f2"));
    if (legal.has(k)) onBoard.add(k);
    out.push(`<polygon points="${hexPoints(cx(r, c), cy(r), R - 1)}" fill="${fill}" stroke="#888"` +
      (legal.has(k) ? ` class="legal cell" data-action="${k}"` : "") + "/>");
    out.push(valueText(cx(r, c), cy(r), k, values, best));
  }
  return {w: 60 + n * w + (n - 1) * w / 2, h: 60 + (1.5 * (n - 1) + 2) * R, body: out.join(""), onBoard};
}

function drawOthello(v, info, legal, values, best) {
  const cs = 52, out = [], onBoard = new Set();
  out.push(`<rect width="${8 * cs}" height="${8 * cs}" fill="#1e7a3c"/>`);
  for (let k = 0; k < 64; k++) {
    const x = (k % 8) * cs, y = Math.floor(k / 8) * cs, b = v.board[k];
    out.push(`<rect x="${x}" y="${y}" width="${cs}" height="${cs}" fill="none" stroke="#0d4a22"/>`);
    if (b === 1 || b === 2) out.push(`<circle cx="${x + cs / 2}" cy="${y + cs / 2}" r="${cs / 2 - 5}" fill="${b === 1 ? "#151515" : "#f2f2f2"}"/>`);
    if (legal.has(k)) {
      onBoard.add(k);
      out.push(`<rect class="legal cell" data-action="${k}" x="${x}" y="${y}" width="${cs}" height="${cs}" fill="#fff" fill-opacity="0.12"/>`);
      if (values[k] == null) out.push(`<circle cx="${x + cs / 2}" cy="${y + cs / 2}" r="5" fill="#9fd" pointer-events="none"/>`);
    }
    out.push(valueText(x + cs / 2, y + cs / 2, k, values, best));
  }
  return {w: 8 * cs, h: 8 * cs, body: out.join(""), onBoard};
}

function drawNim(v, info, legal, values, best) {
  // heap h is a row of sticks; clicking a stick takes it and every stick right of it
  const heaps = v.board, size = v.params.heap_size, cs = 34, left = 70, out = [], onBoard = new Set();
  const byName = {};
  for (const l of v.legal) byName[l.name] = l.action;
  heaps.forEach((n, h) => {
    const y = 20 + h * 60;
    out.push(`<text x="10" y="${y + 28}" font-size="14">heap ${h}</text>`);
    for (let j = 0; j < size; j++) {
      const x = left + j * cs;
      if (j >= n) { out.push(`<rect x="${x + 12}" y="${y + 4}" width="8" height="40" fill="#e4e4e4"/>`); continue; }
      const a = byName[`${n - j}@${h}`];
      const ok = a !== undefined && legal.has(a);
      if (ok) onBoard.add(a);
      out.push(`<rect x="${x + 12}" y="${y + 4}" width="8" height="40" fill="#d9a73a" stroke="#8a6415"/>`);
      if (ok) out.push(`<rect class="legal stick" data-action="${a}" x="${x}" y="${y}" width="${cs}" height="48" fill="#0a0" fill-opacity="0.06"/>`);
      if (ok) out.push(valueText(x + cs / 2, y + 56, a, values, best));
    }
  });
  return {w: left + size * cs + 20, h: 40 + heaps.length * 60, body: out.join(""), onBoard};
}

function draw2048(v, info, legal, values, best) {
  const cs = 90, out = [], onBoard = new Set();
  out.push(`<rect width="${4 * cs + 10}" height="${4 * cs + 10}" fill="#bbada0" rx="6"/>`);
  for (let k = 0; k < 16; k++) {
    const x = 10 + (k % 4) * cs, y = 10 + Math.floor(k / 4) * cs, e = v.board[k];
    out.push(`<rect x="${x}" y="${y}" width="${cs - 10}" height="${cs - 10}" rx="4" fill="${rgb(info.cell_colors[e])}"/>`);
    if (e > 0) out.push(`<text x="${x + (cs - 10) / 2}" y="${y + (cs - 10) / 2}" text-anchor="middle" dominant-baseline="middle" font-size="${e > 9 ? 22 : 28}" font-weight="700" fill="${e > 2 ? "#fff" : "#776e65"}">${2 ** e}</text>`);
  }
  return {w: 4 * cs + 10, h: 4 * cs + 10, body: out.join(""), onBoard};
}

const DRAW = {tictactoe: drawTicTacToe, connect_four: drawConnectFour, hex: drawHex, othello: drawOthello,
              nim: drawNim, nim3p: drawNim, game2048: draw2048, generic: drawGeneric};

// ------------------------------------------------------------------ runs view
async function showPanel(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.panel === name);
  $("panel-play").classList.toggle("hidden", name !== "play");
  $("panel-runs").classList.toggle("hidden", name !== "runs");
  if (name === "runs" && !$("run").options.length) {
    const listing = await api("GET", "/api/runs");
    showUnreadable(listing.unreadable, "runs-unreadable");
    if (!listing.runs.length) { $("run-plot").textContent = "no run folders (with a curve.csv) in the served folder"; return; }
    for (const r of listing.runs) $("run").append(el("option", {value: r.path}, r.path + (r.game ? ` (${r.game})` : "")));
    $("run").addEventListener("change", showRun);
    showRun();
  }
}

async function showRun() {
  try {
    const data = await api("GET", "/api/run?path=" + encodeURIComponent($("run").value));
    $("run-plot").replaceChildren(plotCurve(data.rows));
    $("run-evals").replaceChildren(evalTables(data.evaluations));
  } catch (e) { $("run-plot").textContent = "error: " + e.message; $("run-evals").replaceChildren(); }
}

function isNum(x) { return typeof x === "number" && Number.isFinite(x); }

function plotCurve(rows) {
  if (!rows.length) return el("p", {}, "curve.csv has no rows yet");
  const xKey = rows.some((r) => r.episode != null) ? "episode" : "env_steps";
  const series = Object.keys(rows[0]).filter((k) => k.startsWith("score_"));
  if (!series.length) series.push("train_reward");
  const W = 640, H = 320, L = 60, B = 40, T = 20, Rm = 160;
  const pts = [];
  for (const s of series) for (const r of rows) if (isNum(r[s]) && isNum(r[xKey])) pts.push([r[xKey], r[s]]);
  if (!pts.length) return el("p", {}, "no evaluation scores in curve.csv yet");
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  let y0 = Math.min(...ys, 0), y1 = Math.max(...ys);
  if (y1 <= 1 && y0 >= 0) y1 = 1; if (y1 === y0) y1 = y0 + 1;
  const X = (x) => L + (x - x0) / (x1 - x0) * (W - L - Rm), Y = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const svg = svgEl("svg", {id: "curve", width: W, height: H, viewBox: `0 0 ${W} ${H}`});
  svg.append(svgEl("line", {x1: L, y1: Y(y0), x2: W - Rm, y2: Y(y0), stroke: "#333"}),
             svgEl("line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#333"}));
  for (let i = 0; i <= 4; i++) {
    const yv = y0 + (y1 - y0) * i / 4, xv = x0 + (x1 - x0) * i / 4;
    svg.append(svgEl("text", {x: L - 6, y: Y(yv), "text-anchor": "end", "dominant-baseline": "middle", "font-size": 11}, fmt(yv)),
               svgEl("line", {x1: L, y1: Y(yv), x2: W - Rm, y2: Y(yv), stroke: "#eee"}),
               svgEl("text", {x: X(xv), y: H - B + 16, "text-anchor": "middle", "font-size": 11}, String(Math.round(xv))));
  }
  svg.append(svgEl("text", {x: (L + W - Rm) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12}, xKey));
  const colours = ["#c82828", "#2850c8", "#2a9a40", "#b060c0", "#e08a00", "#555"];
  series.forEach((s, i) => {
    const p = rows.filter((r) => isNum(r[s]) && isNum(r[xKey])).map((r) => `${X(r[xKey]).toFixed(1)},${Y(r[s]).toFixed(1)}`);
    const c = colours[i % colours.length];
    svg.append(svgEl("polyline", {class: "series", "data-series": s, points: p.join(" "), fill: "none", stroke: c, "stroke-width": 2}),
               svgEl("text", {x: W - Rm + 10, y: T + 16 * i + 8, "font-size": 12, fill: c}, s.replace(/^score_/, "vs ")));
  });
  return svg;
}

function scoreText(m) {
  if (isNum(m.win_rate)) return `${(m.win_rate * 100).toFixed(1)}% ± ${(isNum(m.win_rate_se) ? m.win_rate_se * 100 : 0).toFixed(1)}`;
  return `${fmt(m.mean_score)} ± ${fmt(isNum(m.score_se) ? m.score_se : 0)}`;
}

function evalTables(evals) {
  const out = document.createDocumentFragment();
  for (const [file, data] of Object.entries(evals)) {
    if (data && Array.isArray(data.matchups)) {
      const table = el("table", {class: "evals"}, el("tr", {}, el("th", {}, "player"), el("th", {}, "opponent"),
        el("th", {}, "games"), el("th", {}, data.metric === "win_rate" ? "win rate (draw ½)" : "score")));
      for (const m of data.matchups) {
        if (!m || typeof m !== "object") continue;
        table.append(el("tr", {}, el("td", {}, str(m.player)), el("td", {}, str(m.opponent)), el("td", {}, str(m.n_games)),
          el("td", {}, scoreText(m))));
      }
      out.append(el("h3", {}, file), table);
    } else {
      out.append(el("details", {}, el("summary", {}, file), el("pre", {}, JSON.stringify(data, null, 1))));
    }
  }
  if (!out.childNodes.length) out.append(el("p", {}, "no evaluation results in this run folder"));
  return out;
}

init().catch((e) => setStatus("error: " + e.message));
