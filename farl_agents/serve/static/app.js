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
let SPEC = null;         // the chosen game at the form's parameters (from /api/spec): its seats
let PICK = [];           // the cells clicked so far towards a move of several clicks (from, to, build ...)

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
  // a new choice of game: the board of the previous one goes (no stale board under the new game's form)
  const g = GAMES[$("game").value];
  VIEW = null; THOUGHTS = null; PICK = [];
  clearTable();
  const params = $("params");
  params.replaceChildren(el("legend", {}, "Parameters"));
  const keys = Object.keys(g.params);
  if (!keys.length) params.append(el("span", {}, "none"));
  for (const k of keys) {
    const v = g.params[k];
    const kind = typeof v === "boolean" ? "checkbox" : (typeof v === "number" ? "number" : "text");
    const input = el("input", {type: kind, "data-param": k});
    if (kind === "checkbox") input.checked = v; else input.value = v;
    input.addEventListener("change", () => refreshSeats());
    params.append(el("label", {}, k + " ", input));
  }
  SPEC = g;
  SPEC_TICKET++;  // an answer about the previous game's parameters no longer counts
  $("new-game").disabled = false;
  renderSeats(g, []);
}

function clearTable() {
  const svg = $("board");
  svg.innerHTML = ""; svg.setAttribute("width", 10); svg.setAttribute("height", 10); svg.setAttribute("viewBox", "0 0 10 10");
  $("moves").replaceChildren(); $("text-board").textContent = ""; $("result").textContent = "";
  $("thoughts").textContent = ""; $("movelist").value = ""; $("totals").textContent = ""; $("players").replaceChildren();
  $("undo").disabled = true;
  setStatus("Choose a game and press “New game”.");
}

function formParams() {
  const params = {};
  for (const e of $("params").querySelectorAll("[data-param]"))
    params[e.dataset.param] = e.type === "checkbox" ? e.checked : (e.type === "number" ? Number(e.value) : e.value);
  return params;
}

// the game at the form's parameters (its player count, opponents) from the server; the seats follow it
let SPEC_TICKET = 0;     // the latest /api/spec question: answers to older ones are dropped

async function refreshSeats() {
  const name = $("game").value, ticket = ++SPEC_TICKET;
  try {
    const g = await api("POST", "/api/spec", {game: name, params: formParams()});
    if (ticket !== SPEC_TICKET || $("game").value !== name) return;  // a later question (or game) counts
    const keep = [...$("seats").querySelectorAll("select")].map((s, i) => seatChoice(i));
    const same = (x) => JSON.stringify([x.n_players, x.opponents, x.seat_colours]);
    const unchanged = SPEC && same(SPEC) === same(g) && keep.length === g.n_players;
    SPEC = g;
    if (!unchanged) renderSeats(g, keep);  // the same seats: the selectors stay as they are
    $("new-game").disabled = false;
    if (!VIEW) setStatus("Choose a game and press “New game”.");
  } catch (e) {
    if (ticket !== SPEC_TICKET) return;
    setStatus("parameters: " + e.message); $("new-game").disabled = true;
  }
}

// one seat selector per player of game g; `keep`: earlier choices (name + budget) kept where still offered
function renderSeats(g, keep) {
  const seats = $("seats");
  seats.replaceChildren(el("legend", {}, `Seats (${g.n_players} players)`));
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
    const swatch = el("span", {class: "swatch"});
    swatch.style.background = (g.seat_colours || [])[i] || "#999";  // CSSOM: no style attribute (the CSP)
    seats.append(el("label", {}, swatch, `seat ${i} `, sel, budget));
    sel.value = (i === 0) ? "human" : g.opponents[Math.min(1, g.opponents.length - 1)].name;
    const earlier = keep[i];
    let kept = null;
    if (earlier) {
      const m = /^(.*?)(\d+)$/.exec(earlier);
      for (const [value, num] of [[earlier, null], ...(m ? [[m[1], m[2]]] : [])]) {
        if ([...sel.options].some((o) => o.value === value)) { sel.value = value; kept = num; break; }
      }
    }
    sel.addEventListener("change", () => {
      showBudget(i);
      if (sel.value.startsWith("pretrained")) usePretrainedParams(g);
    });
    showBudget(i);
    if (kept != null) budget.value = kept;
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

// a pretrained agent plays the game parameters it was trained with (Nim's max_take=5 of the paper, Sim's
// players=3 ...); the seats then follow those parameters
function usePretrainedParams(g) {
  const params = (AGENTS.pretrained_params || {})[g.name] || {};
  let changed = false;
  for (const e of $("params").querySelectorAll("[data-param]")) {
    const v = params[e.dataset.param];
    if (v === undefined) continue;
    if (e.type === "checkbox") { changed ||= e.checked !== Boolean(v); e.checked = Boolean(v); }
    else { changed ||= String(e.value) !== String(v); e.value = v; }
  }
  if (changed) refreshSeats();
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
  const name = $("game").value;
  const params = formParams();
  const seats = [];
  for (let i = 0; i < $("seats").querySelectorAll("select").length; i++) seats.push(seatChoice(i));
  try {
    VIEW = null; THOUGHTS = null; PICK = [];
    clearTable();
    setStatus("starting (the first game of a kind compiles its rules) ...");
    VIEW = await api("POST", "/api/new", {game: name, params, seats, seed: Number($("seed").value) || 0});
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
      VIEW = v; THOUGHTS = null; PICK = chainStart(v); render();
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
  try { VIEW = await api("POST", `/api/game/${VIEW.id}/move`, {action}); THOUGHTS = null; PICK = chainStart(VIEW); render(); }
  catch (e) { setStatus("error: " + e.message); busy = false; return; }
  busy = false;
  await advance();
}

async function undo() {
  if (busy || !VIEW) return;
  try { VIEW = await api("POST", `/api/game/${VIEW.id}/undo`); THOUGHTS = null; PICK = []; render(); await advance(); }
  catch (e) { setStatus("error: " + e.message); }
}

function onKey(ev) {
  if (!VIEW || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const tag = (ev.target && ev.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;  // typing in the form
  if (ev.key === "u") { ev.preventDefault(); undo(); return; }
  if (ev.key === "Escape" && PICK.length) { PICK = []; render(); return; }
  if (VIEW.game !== "game2048") return;
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
  const colours = v.seat_colours || [];
  const status = $("status");
  if (v.terminal) setStatus("game over");
  else if (v.human_to_move) setStatus(`your move (seat ${v.to_move})` + (v.roll != null ? `: the die shows ${v.roll}` : ""));
  else setStatus(`${mover.name} (seat ${v.to_move}) to move` + (v.roll != null ? ` (die: ${v.roll})` : ""));
  status.style.color = v.terminal ? "" : (colours[v.to_move] || "");
  status.classList.toggle("light", !v.terminal && isLight(colours[v.to_move]));
  showPlayers(v);
  $("result").textContent = v.result || "";
  $("undo").disabled = !v.can_undo;
  const values = (THOUGHTS && THOUGHTS.values) || {};
  const best = THOUGHTS ? THOUGHTS.best : null;
  const legalSet = new Set(v.human_to_move ? v.legal.map((l) => l.action) : []);
  const drawer = v.layout ? drawCells : (DRAW[info.view] || drawGeneric);
  const svg = $("board");
  const {w, h, body, onBoard} = drawer(v, info, legalSet, values, best);
  svg.setAttribute("width", Math.round(w)); svg.setAttribute("height", Math.round(h));
  svg.setAttribute("viewBox", `0 0 ${w.toFixed(1)} ${h.toFixed(1)}`);
  svg.innerHTML = body;
  for (const e of svg.querySelectorAll("[data-action]"))
    e.addEventListener("click", () => play(Number(e.dataset.action)));
  for (const e of svg.querySelectorAll("[data-cell]"))
    e.addEventListener("click", () => pickCell(Number(e.dataset.cell)));
  // moves that are not on the board (a pass, or games without a board): buttons, with the agent's value
  const buttons = v.legal.filter((l) => !onBoard.has(l.action));
  $("moves").innerHTML = v.human_to_move ? buttons.map((l) => {
    const val = values[l.action];
    const cls = (best === l.action) ? "best" : "";
    return `<button type="button" class="${cls}" data-move="${l.action}">${esc(l.name)}${val != null ? " (" + fmt(val) + ")" : ""}</button>`;
  }).join("") : "";
  for (const b of $("moves").querySelectorAll("button")) b.addEventListener("click", () => play(Number(b.dataset.move)));
  $("text-board").textContent = (!v.layout && info.view === "generic") ? v.text : "";
  $("movelist").value = v.moves.map((m, i) => `${i + 1}. ${m.name}` + (m.chance != null ? ` [${chanceText(m.chance)}]` : "") +
    `  (seat ${m.seat}, ${m.by})`).join("\n");
  $("totals").textContent = "rewards: " + v.totals.map((t, i) => `seat ${i}: ${fmt(t)}`).join(", ");
  const th = $("thoughts");
  if (!$("think").checked || !THOUGHTS) th.textContent = "";
  else if (THOUGHTS.agent) th.textContent = `${THOUGHTS.agent}: ${THOUGHTS.kind} of each legal move for seat ` +
      `${THOUGHTS.seat}; best: ${best != null ? v.legal.find((l) => l.action === best)?.name : "-"}`;
  else th.textContent = THOUGHTS.note || "";
}

function chanceText(c) {
  if (c && typeof c === "object" && !Array.isArray(c)) return Object.entries(c).map(([k, x]) => `${k} ${x}`).join(", ");
  return String(c);
}

function isLight(c) {
  const m = /rgb\((\d+),(\d+),(\d+)\)/.exec(c || "");
  return Boolean(m) && (Number(m[1]) + Number(m[2]) + Number(m[3])) > 600;
}

// who sits where: each seat in its colour, the one to move marked, players who are out struck through
function showPlayers(v) {
  const out = new Set(v.out || []);
  const list = $("players");
  list.replaceChildren();
  v.seats.forEach((s, i) => {
    const cls = ["player"];
    if (i === v.to_move && !v.terminal) cls.push("to-move");
    if (out.has(i)) cls.push("out");
    const swatch = el("span", {class: "swatch"});
    swatch.style.background = (v.seat_colours || [])[i] || "#999";
    list.append(el("span", {class: cls.join(" "), "data-seat": i}, swatch,
      `seat ${i}: ${s.name}` + (out.has(i) ? " (out)" : "") + (i === v.to_move && !v.terminal ? " ◀" : "")));
  });
}

// ------------------------------------------------------------------ moves of several clicks
// The server gives, per legal action, the orders in which its cells are clicked (v.paths: from, to, build ...).
// PICK holds the cells clicked so far; the actions whose order starts with PICK are still possible.
function candidates(v) {
  const out = [];
  if (!v.human_to_move) return out;
  for (const l of v.legal) for (const p of (v.paths[l.action] || []))
    if (p.length >= PICK.length && PICK.every((c, i) => p[i] === c)) out.push({action: l.action, path: p});
  return out;
}

// a turn that goes on with the same piece (Chinese Checkers' chain of hops): that piece is picked already,
// so the next click is where it hops next (or the pass button ends the chain)
function chainStart(v) {
  if (!v || !v.human_to_move || !v.moves.length || v.moves[v.moves.length - 1].seat !== v.to_move) return [];
  const firsts = new Set();
  for (const l of v.legal) for (const p of (v.paths[l.action] || [])) {
    if (p.length < 2) return [];
    firsts.add(p[0]);
  }
  return firsts.size === 1 ? [...firsts] : [];
}

function pickCell(k) {
  const v = VIEW;
  if (busy || !v || !v.human_to_move) return;
  if (PICK.length && PICK[PICK.length - 1] === k) { PICK.pop(); render(); return; }  // a second click undoes it
  const next = candidates(v).filter((c) => c.path.length > PICK.length && c.path[PICK.length] === k);
  if (!next.length) {  // not a continuation: start again from this cell if a move starts there
    PICK = [];
    if (candidates(v).some((c) => c.path[0] === k)) return pickCell(k);
    render(); return;
  }
  PICK.push(k);
  const now = candidates(v);
  const done = now.filter((c) => c.path.length === PICK.length);
  const actions = new Set(now.map((c) => c.action));
  if (done.length && done.length === now.length) return play(done[0].action);
  if (actions.size === 1 && PICK.length >= 2) return play(now[0].action);  // e.g. Santorini's winning move
  render();
}

const LIGHT = "#f0d9b5", DARK = "#b58863";

function drawCells(v, info, legal, values, best) {
  const L = v.layout, pieces = v.pieces || [], colours = v.seat_colours || [];
  const xs = L.kind === "graph" ? L.nodes.map((n) => n[0]) : L.cells.map((c) => c[0]);
  const ys = L.kind === "graph" ? L.nodes.map((n) => n[1]) : L.cells.map((c) => c[1]);
  const minX = Math.min(...xs), minY = Math.min(...ys), spanX = Math.max(...xs) - minX, spanY = Math.max(...ys) - minY;
  const graph = L.kind === "graph";
  const cs = graph ? 200 : Math.max(18, Math.min(64, Math.floor(560 / (Math.max(spanX, spanY) + 1))));
  const pad = graph ? 40 : (L.circuits ? cs * 2.2 : cs * 0.5 + 14);
  const X = (x) => pad + (x - minX) * cs + (graph ? 0 : cs / 2) - (graph ? 0 : cs / 2);
  const Y = (y) => pad + (y - minY) * cs;
  const boardW = 2 * pad + spanX * cs + (graph ? 0 : cs), H = 2 * pad + spanY * cs + (graph ? 0 : cs);
  const W = boardW + (v.roll != null ? 1.6 * cs : 0);  // room for the die (EinStein würfelt nicht!)
  const cx = (k) => X(L.cells[k][0]) + (graph ? 0 : cs / 2), cy = (k) => Y(L.cells[k][1]) + (graph ? 0 : cs / 2);
  const out = [], onBoard = new Set();
  // what a click can do now: the next cell of every still possible action, with the best value through it
  const cand = candidates(v);
  for (const l of v.legal) if ((v.paths[l.action] || []).length) onBoard.add(l.action);  // the rest: buttons
  const next = new Map();  // cell -> {actions, value, best}
  for (const c of cand) if (c.path.length > PICK.length) {
    const k = c.path[PICK.length];
    const e = next.get(k) || {actions: new Set(), value: null, best: false};
    e.actions.add(c.action);
    const val = values[c.action];
    if (val != null && (e.value == null || val > e.value)) e.value = val;
    if (best === c.action) e.best = true;
    next.set(k, e);
  }
  const picked = new Set(PICK);
  const lastMove = v.moves.length ? (v.moves[v.moves.length - 1].cells || []) : [];
  const last = new Set(lastMove);
  out.push(`<rect width="${W}" height="${H}" fill="${graph ? "#fbfaf6" : (L.stones ? "#dcb35c" : "#f4efe4")}"/>`);
  if (L.stones) out.push(goGrid(L, cs, X, Y));
  if (graph) {
    L.edges.forEach(([i, j], k) => {
      const p = pieces[k] || {}, own = p.owner != null;
      const x1 = X(L.nodes[i][0]), y1 = Y(L.nodes[i][1]), x2 = X(L.nodes[j][0]), y2 = Y(L.nodes[j][1]);
      const stroke = own ? colours[p.owner] : (next.has(k) ? "#9c9" : "#ddd");
      const wide = own ? 5 : 2, mark = last.has(k) ? ` stroke-dasharray="10 4"` : "";
      out.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${stroke}" stroke-width="${wide}"${mark}/>`);
      if (next.has(k)) out.push(`<line class="legal edge" data-cell="${k}" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#fff" stroke-opacity="0.01" stroke-width="14"/>`);
    });
    L.nodes.forEach((n, i) => {  // a vertex is cell node_base + i: click two vertices to colour their edge
      const k = L.node_base + i, on = next.has(k), sel = picked.has(k);
      out.push(`<circle cx="${X(n[0])}" cy="${Y(n[1])}" r="${on || sel ? 15 : 11}" fill="${sel ? "#c9a400" : "#333"}"` +
        (on ? ` class="legal node" data-cell="${k}" stroke="#2a9a40" stroke-width="4"` : (sel ? ` data-cell="${k}"` : "")) + "/>");
      out.push(`<text x="${X(n[0])}" y="${Y(n[1])}" fill="#fff" font-size="11" text-anchor="middle" dominant-baseline="central" pointer-events="none">${i}</text>`);
    });
  } else {
    L.cells.forEach((c, k) => {  // the cells first, the circuits (Surakarta) over them, then the pieces
      const x = X(c[0]), y = Y(c[1]);
      if (L.kind === "square" && !L.stones) {
        const fill = L.checker ? ((Math.round(c[0]) + Math.round(c[1])) % 2 ? DARK : LIGHT) : "#e9e4d4";
        out.push(`<rect x="${x}" y="${y}" width="${cs}" height="${cs}" fill="${fill}" stroke="#9a8c70" stroke-width="0.5"/>`);
      } else if (L.kind === "hex") {
        out.push(`<polygon points="${hexPoints(x + cs / 2, y + cs / 2, cs * 0.577)}" fill="#ece6d6" stroke="#9a8c70"/>`);
      } else if (L.kind === "hole") {
        out.push(`<circle cx="${x + cs / 2}" cy="${y + cs / 2}" r="${cs * 0.28}" fill="#d8d2c2" stroke="#9a8c70"/>`);
      }
    });
    if (L.circuits) out.push(circuits(L, cs, X, Y));
    L.cells.forEach((c, k) => {
      const x = X(c[0]), y = Y(c[1]), p = pieces[k] || {};
      if (p.height != null) out.push(tower(x, y, cs, p.height));
      if (p.kind) out.push(piece(x + cs / 2, y + cs / 2, cs, p, colours));
      if (last.has(k)) out.push(`<rect x="${x + 2}" y="${y + 2}" width="${cs - 4}" height="${cs - 4}" fill="none" stroke="#e08a00" stroke-width="3" stroke-dasharray="5 3" pointer-events="none"/>`);
      if (picked.has(k)) out.push(`<rect x="${x + 1}" y="${y + 1}" width="${cs - 2}" height="${cs - 2}" fill="#ffeb3b" fill-opacity="0.35" stroke="#c9a400" stroke-width="3" pointer-events="none"/>`);
    });
    if (PICK.length) {  // a click on a picked cell takes it back
      for (const k of PICK) out.push(`<rect class="picked" data-cell="${k}" x="${X(L.cells[k][0])}" y="${Y(L.cells[k][1])}" width="${cs}" height="${cs}" fill="#fff" fill-opacity="0.01"/>`);
    }
  }
  for (const [k, e] of next) {
    if (graph && k >= L.node_base) continue;  // a vertex: drawn above
    if (!graph) {  // a legal target: a green dot; square boards also frame the square
      if (!(pieces[k] && pieces[k].label) && e.value == null)  // not over a cube's number or a value
        out.push(`<circle cx="${cx(k)}" cy="${cy(k)}" r="${cs * 0.14}" fill="#2a9a40" fill-opacity="0.7" pointer-events="none"/>`);
      const frame = L.kind === "square" && !L.stones ? ` fill-opacity="0.12" stroke="#2a9a40" stroke-width="2"` : ` fill-opacity="0.01"`;
      out.push(`<rect class="legal cell" data-cell="${k}" x="${cx(k) - cs / 2}" y="${cy(k) - cs / 2}" width="${cs}" height="${cs}" fill="#2a9a40"${frame}/>`);
    }
    if (e.value != null) {
      const a = e.actions.size === 1 ? [...e.actions][0] : null;
      out.push(`<text class="value${e.best ? " best" : ""}" data-value-action="${a ?? ""}" data-value-cell="${k}" x="${cx(k)}" y="${cy(k) + (graph ? -8 : 0)}" text-anchor="middle" dominant-baseline="middle">${fmt(e.value)}</text>`);
    }
  }
  if (v.roll != null) {  // the die the player to move has rolled, in that player's colour
    const x = boardW + 0.1 * cs, y = pad, s = 1.2 * cs, fill = colours[v.to_move] || "#fff";
    out.push(`<rect class="die" x="${x}" y="${y}" width="${s}" height="${s}" rx="${s * 0.18}" fill="${fill}" stroke="#333" stroke-width="2"/>`);
    out.push(`<text x="${x + s / 2}" y="${y + s / 2}" text-anchor="middle" dominant-baseline="central" font-size="${s * 0.55}" font-weight="700" fill="${isLight(fill) ? "#111" : "#fff"}">${esc(v.roll)}</text>`);
    out.push(`<text x="${x + s / 2}" y="${y + s + 14}" text-anchor="middle" font-size="12" fill="#444">die</text>`);
  }
  return {w: W, h: H, body: out.join(""), onBoard};
}

// a piece: a disc in its colour, an Amazons queen (crown) or arrow, a Santorini worker, an EWN cube with its number
function piece(x, y, cs, p, colours) {
  const fill = p.fill || (p.owner != null ? colours[p.owner] : "#555");
  const edge = isLight(fill) ? "#555" : "#000";
  if (p.kind === "arrow") return `<path d="M${x - cs * 0.3} ${y - cs * 0.3} L${x + cs * 0.3} ${y + cs * 0.3} M${x + cs * 0.3} ${y - cs * 0.3} L${x - cs * 0.3} ${y + cs * 0.3}" stroke="#333" stroke-width="${cs * 0.12}" stroke-linecap="round"/>`;
  if (p.kind === "left") return `<circle cx="${x}" cy="${y}" r="${cs * 0.3}" fill="none" stroke="#888" stroke-dasharray="3 3"/>`;
  if (p.kind === "cube") {
    const r = cs * 0.36;
    return `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="${r * 0.25}" fill="${fill}" stroke="${edge}"/>` +
      `<text x="${x}" y="${y}" text-anchor="middle" dominant-baseline="central" font-size="${cs * 0.42}" font-weight="700" fill="${isLight(fill) ? "#111" : "#fff"}">${esc(p.label || "")}</text>`;
  }
  if (p.kind === "worker") return `<circle cx="${x}" cy="${y}" r="${cs * 0.2}" fill="${fill}" stroke="${edge}" stroke-width="2"/>`;
  let s = `<circle cx="${x}" cy="${y}" r="${cs * 0.38}" fill="${fill}" stroke="${edge}"/>`;
  if (p.kind === "queen") s += `<path d="M${x - cs * 0.2} ${y + cs * 0.12} L${x - cs * 0.22} ${y - cs * 0.14} L${x - cs * 0.1} ${y - cs * 0.02} L${x} ${y - cs * 0.18} L${x + cs * 0.1} ${y - cs * 0.02} L${x + cs * 0.22} ${y - cs * 0.14} L${x + cs * 0.2} ${y + cs * 0.12} Z" fill="#fff" fill-opacity="0.85"/>`;
  return s;
}

// Santorini: levels 1-3 as nested squares from the ground up, a dome (height 4) as a blue cap
function tower(x, y, cs, h) {
  const s = [];
  const shades = ["#cfcfcf", "#e3e3e3", "#f7f7f7"];
  for (let l = 1; l <= Math.min(h, 3); l++) {
    const m = cs * (0.06 + 0.1 * (l - 1));
    s.push(`<rect x="${x + m}" y="${y + m}" width="${cs - 2 * m}" height="${cs - 2 * m}" fill="${shades[l - 1]}" stroke="#888"/>`);
  }
  if (h >= 4) s.push(`<circle cx="${x + cs / 2}" cy="${y + cs / 2}" r="${cs * 0.22}" fill="#2856b8" stroke="#123"/>`);
  if (h > 0) s.push(`<text x="${x + 4}" y="${y + cs - 5}" font-size="${cs * 0.2}" fill="#444">${h >= 4 ? "dome" : "L" + h}</text>`);
  return s.join("");
}

// Surakarta: the two circuits, the lines of the board with a loop around each corner
function circuits(L, cs, X, Y) {
  const n = L.rows, s = [], colour = ["#2a9a40", "#2856b8"];
  const px = (c) => X(c) + cs / 2, py = (r) => Y(r) + cs / 2;
  L.circuits.forEach(([a, b], i) => {
    const st = `stroke="${colour[i]}" stroke-width="3" fill="none" opacity="0.55"`;
    for (const k of [a, b]) {
      s.push(`<line x1="${px(0)}" y1="${py(k)}" x2="${px(n - 1)}" y2="${py(k)}" ${st}/>`);
      s.push(`<line x1="${px(k)}" y1="${py(0)}" x2="${px(k)}" y2="${py(n - 1)}" ${st}/>`);
    }
    const r = a * cs;  // a loop joins line a of the rows to line a of the columns around each corner
    for (const [cr, cc] of [[0, 0], [0, n - 1], [n - 1, 0], [n - 1, n - 1]]) {
      const sx = cc === 0 ? 1 : -1, sy = cr === 0 ? 1 : -1;
      const sweep = sx * sy > 0 ? 1 : 0;
      s.push(`<path d="M${px(cc)} ${py(cr) + sy * r} A${r} ${r} 0 1 ${sweep} ${px(cc) + sx * r} ${py(cr)}" ${st}/>`);
    }
  });
  return s.join("");
}

// Outer-Open Gomoku: a go board (stones on the intersections) and the two outer lines where the first stone goes
function goGrid(L, cs, X, Y) {
  const n = L.rows, s = [];
  const px = (c) => X(c) + cs / 2, py = (r) => Y(r) + cs / 2;
  for (let i = 0; i < n; i++) {
    s.push(`<line x1="${px(0)}" y1="${py(i)}" x2="${px(n - 1)}" y2="${py(i)}" stroke="#6b4e1e"/>`);
    s.push(`<line x1="${px(i)}" y1="${py(0)}" x2="${px(i)}" y2="${py(n - 1)}" stroke="#6b4e1e"/>`);
  }
  const [lo, hi] = L.band;  // the inner square the first stone may not use
  s.push(`<rect class="outer-band" x="${px(lo) - cs / 2}" y="${py(lo) - cs / 2}" width="${(hi - lo + 1) * cs}" height="${(hi - lo + 1) * cs}" fill="none" stroke="#a02020" stroke-width="2" stroke-dasharray="6 4"/>`);
  s.push(`<rect x="${px(0) - cs / 2}" y="${py(0) - cs / 2}" width="${n * cs}" height="${n * cs}" fill="none" stroke="#a02020" stroke-width="2"/>`);
  return s.join("");
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

// the action of the last move (to mark it on the six games drawn by their own code), or null
function lastAction(v) { return v.moves.length ? v.moves[v.moves.length - 1].action : null; }
const LAST = `fill="none" stroke="#e08a00" stroke-width="3" stroke-dasharray="5 3" pointer-events="none"`;

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
    if (lastAction(v) === k) out.push(`<rect x="${x + 6}" y="${y + 6}" width="${cs - 12}" height="${cs - 12}" ${LAST}/>`);
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
  const lc = lastAction(v);
  if (lc != null && lc < cols) {
    let r = 0;
    while (r < rows && (v.board[r * cols + lc] !== 1 && v.board[r * cols + lc] !== 2)) r++;
    if (r < rows) out.push(`<circle cx="${lc * cs + cs / 2}" cy="${top + r * cs + cs / 2}" r="${cs / 2 - 3}" ${LAST}/>`);
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
    if (lastAction(v) === k) out.push(`<circle cx="${cx(r, c)}" cy="${cy(r)}" r="${R / 2}" ${LAST}/>`);
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
    if (lastAction(v) === k) out.push(`<rect x="${x + 2}" y="${y + 2}" width="${cs - 4}" height="${cs - 4}" ${LAST}/>`);
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
