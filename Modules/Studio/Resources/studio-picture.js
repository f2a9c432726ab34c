"use strict";

// ---- the picture ------------------------------------------------------------------------------

function clearPicture() {
  state.snapshot = null;
  state.nodes = [];
  state.byPath = new Map();
  $("picture").removeAttribute("src");
  $("picture-title").textContent = "Choose a page on the left.";
  for (const id of ["heat", "selects"]) $(id).replaceChildren();
  $("hover").hidden = true;
  $("chosen").hidden = true;
  choose(null);
}

async function showSnapshot(id) {
  delete $("picture").dataset.shown;
  const snapshot = await api("GET", "/api/snapshots/" + id);
  state.snapshot = snapshot;
  // Nothing of the previous page stays: no element pointed at or chosen.
  state.chain = [];
  state.level = 0;
  state.hovered = null;
  $("hover").hidden = true;
  showPointed(null);
  state.nodes = [];
  state.byPath = new Map();
  (function walk(node, parent) {
    node.parentNode = parent;
    state.nodes.push(node);
    if (node.path) state.byPath.set(node.path, node);
    for (const c of node.children || []) walk(c, node);
  })(snapshot.tree, null);
  for (const b of document.querySelectorAll("#pages button")) b.setAttribute("aria-pressed", b.dataset.snapshot === String(id) ? "true" : "false");
  $("picture-title").textContent = snapshot.page + " — " + snapshot.appVersion + ", " + dateTime(snapshot.capturedAt);
  const img = $("picture");
  await new Promise((resolve) => {
    img.onload = resolve;
    img.onerror = resolve;
    img.src = "/api/snapshots/" + id + "/image";
  });
  img.alt = "The page " + snapshot.page;
  const keep = state.editing;
  state.chosen = null;
  $("chosen").hidden = true;
  showFacts(null);
  state.editing = keep;
  $("selects").replaceChildren();
  await drawHeatmap();
  if (state.editing) schedulePreview();
  img.dataset.shown = String(id);  // the page is shown whole (what a test waits for)
}

function scale() {
  const img = $("picture");
  return state.snapshot && img.naturalWidth ? img.clientWidth / state.snapshot.width : 1;
}

function frameOf(node) {
  const f = node && node.frame;
  return Array.isArray(f) && f.length === 4 ? f : null;
}

function place(box, node) {
  const f = frameOf(node);
  if (!f) { box.hidden = true; return; }
  const k = scale();
  box.style.left = (f[0] * k) + "px";
  box.style.top = (f[1] * k) + "px";
  box.style.width = Math.max(1, f[2] * k) + "px";
  box.style.height = Math.max(1, f[3] * k) + "px";
  box.hidden = false;
}

// The nodes from the root down to the deepest one whose frame holds (x, y); later siblings are on top.
function chainAt(x, y) {
  const chain = [];
  let node = state.snapshot && state.snapshot.tree;
  while (node) {
    chain.push(node);
    let next = null;
    const children = node.children || [];
    for (let i = children.length - 1; i >= 0; i--) {
      const f = frameOf(children[i]);
      if (f && x >= f[0] && y >= f[1] && x < f[0] + f[2] && y < f[1] + f[3]) { next = children[i]; break; }
    }
    node = next;
  }
  return chain;
}

function pointerAt(event) {
  const rect = $("picture").getBoundingClientRect();
  const k = scale();
  return [(event.clientX - rect.left) / k, (event.clientY - rect.top) / k];
}

// Pointing means the element interacted with: from the deepest node under the pointer up, the
// first the server marked `pick` (a control, a row, a node with stored interactions), as
// GET /api/snapshots/{S}/pick chooses; ↑/↓ still move from it.
function pickedLevel(chain) {
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i].pick) return i;
  return chain.length - 1;
}

function hover(event) {
  if (!state.snapshot) return;
  const [x, y] = pointerAt(event);
  state.chain = chainAt(x, y);
  state.level = pickedLevel(state.chain);
  showHovered();
}

// What the pointer is on is said on the picture's own line; the side panel changes only when
// an element is chosen, so it does not reflow as the pointer moves.
function showHovered() {
  state.hovered = state.chain[state.level] || null;
  place($("hover"), state.hovered);
  showPointed(state.hovered);
}

function showPointed(node) {
  const line = $("pointed");
  line.dataset.path = (node && node.path) || "";
  if (!node) { line.textContent = state.snapshot ? "Point at an element; click to choose it." : ""; return; }
  const text = ownText(node) || innerText(node);
  line.textContent = node.type + (text ? " \u201c" + text + "\u201d" : "") + " \u2014 click to choose it";
}

// Up: toward the root; down: back toward the deepest element under the pointer.
function step(delta) {
  if (state.chosen) {
    const level = Math.min(state.chosenChain.length - 1, Math.max(0, state.chosenLevel + delta));
    if (level !== state.chosenLevel) {
      state.chosenLevel = level;
      choose(state.chosenChain[level], state.chosenChain, level, true);
    }
    return;
  }
  if (!state.chain.length) return;
  state.level = Math.min(state.chain.length - 1, Math.max(0, state.level + delta));
  showHovered();
}

// Choosing an element starts a new definition from it; while one is being edited, that one
// stays as it is unless the person says it should count this element instead.
function choose(node, chain, level, moved) {
  state.chosen = node;
  state.chosenChain = chain || [];
  state.chosenLevel = level || 0;
  if (!node) {
    $("chosen").hidden = true;
    showFacts(null);
    return;
  }
  place($("chosen"), node);
  showFacts(node);
  if (state.editing) {
    const was = state.editing;
    newDefinition(node);
    offerReplacing(was);
  } else if (moved) {
    // ↑/↓ refine the element of the definition being written: its name and choice stay.
    const was = state.replacing;
    newDefinition(node, true);
    if (was) offerReplacing(was);
  } else {
    newDefinition(node);
  }
}

function offerReplacing(rule) {
  state.replacing = rule;
  const name = rule.name || rule.id;
  $("edit-note-text").textContent = "A new definition from this element: \u201c" + name + "\u201d is not changed.";
  $("edit-instead").textContent = "Make \u201c" + name + "\u201d count this element instead";
  $("edit-note").hidden = false;
}

function showFacts(node) {
  const facts = $("facts");
  const body = document.querySelector("#props tbody");
  facts.replaceChildren();
  body.replaceChildren();
  $("no-element").hidden = !!node;
  if (!node) return;
  const f = frameOf(node);
  const inner = ownText(node) ? "" : innerText(node);
  const n = node.interactions || 0;
  const stored = plural(n, "stored interaction") + (node.event ? " (" + node.event + ")" : "") + " in the last 30 days";
  const rows = [["type", node.type], ["title", node.title], ["shows", inner], ["interactions", stored], ["id", node.id],
    ["path", node.path], ["viewId", node.viewId], ["frame", f ? f.join(", ") : null]];
  for (const [k, v] of rows) {
    if (v === undefined || v === null || v === "") continue;
    facts.append(el("dt", {}, k), el("dd", { "data-fact": k }, String(v)));
  }
  const props = Object.entries(node.props || {});
  $("props-count").textContent = String(props.length);
  for (const [k, v] of props) body.append(el("tr", {}, el("td", {}, k), el("td", {}, shown(v))));
}

// ---- the text a person sees, and the key paths that read it ------------------------------------

const TEXT_KEYS = ["label", "text", "title", "string"];
// Widgets whose one child is their `child` property (GTK), so `child` steps into it.
const CHILD_TYPES = /^(GtkListBoxRow|GtkFlowBoxChild|GtkButton|GtkToggleButton|GtkLinkButton|GtkMenuButton|GtkFrame|GtkAspectFrame|GtkScrolledWindow|GtkViewport|GtkWindow|GtkApplicationWindow|GtkRevealer|GtkExpander|GtkPopover|GtkSearchBar|GtkOverlay)$/;

// The node's own text property (`label`, `text`…) in the picture, or null.
function textKey(node) {
  const props = (node && node.props) || {};
  for (const k of TEXT_KEYS) if (typeof props[k] === "string" && props[k] !== "") return k;
  return null;
}

function ownText(node) {
  if (!node) return "";
  if (node.title) return node.title;
  const k = textKey(node);
  return k ? node.props[k] : "";
}

// The text shown inside a node (its labels, in order), for a row or a box without a title.
function innerText(node) {
  const texts = [];
  (function walk(n) {
    for (const c of n.children || []) {
      const t = c.title || "";
      if (t && !texts.includes(t)) texts.push(t);
      else walk(c);
      if (texts.length >= 6) return;
    }
  })(node);
  return texts.join(" \u00b7 ");
}

function childOf(node) {
  if (!CHILD_TYPES.test(node.type || "")) return null;
  const kids = node.children || [];
  if (kids.length === 1) return kids[0];
  // A frame's label is a child widget of its own, before the frame's child.
  if (/Frame$/.test(node.type) && kids.length === 2) return kids[1];
  return null;
}

// The values seen in and around `node`, each with the key path that reads it at the
// interaction: its own text, the text inside it (`child.label`), and around it up to the page
// (`parent.parent.label`: the row's, the product's, the page's title).
function recordable(node) {
  const out = [];
  if (!node) return out;
  const k = textKey(node);
  if (k) out.push({ keyPath: k, value: node.props[k], where: "its own text", target: node });
  let n = node;
  const down = [];
  for (let i = 0; i < 4; i++) {
    const c = childOf(n);
    if (!c) break;
    down.push("child");
    const ck = textKey(c);
    if (ck) out.push({ keyPath: down.join(".") + "." + ck, value: c.props[ck], where: "the text inside it (" + c.type + ")", target: c, inside: true });
    n = c;
  }
  let a = node.parentNode;
  const up = [];
  while (a && up.length < 8) {
    up.push("parent");
    const ak = textKey(a);
    if (ak) out.push({ keyPath: up.join(".") + "." + ak, value: a.props[ak],
      where: (a.parentNode ? plural(up.length, "level") + " up (" + a.type + ")" : "the page (" + a.type + ")"), target: a });
    a = a.parentNode;
  }
  return out;
}

// The name a value is reported under: the one a definition of this element already uses for
// that key path (so events stored before carry it), else one made from the element's id.
function keyNameFor(candidate) {
  const path = state.chosen && state.chosen.path;
  for (const r of state.rules) {
    if (r.keyPath === candidate.keyPath && r.keyName && path && (r.viewPath === path || r.viewPath === wildcard(path))) return r.keyName;
  }
  const id = candidate.target && candidate.target.id;
  const base = id ? id.replace(/[^A-Za-z0-9]+(.)?/g, (m, c) => (c ? c.toUpperCase() : "")) : candidate.keyPath.split(".").pop();
  return base.charAt(0).toLowerCase() + base.slice(1);
}

// ---- heatmap ------------------------------------------------------------------------------------

function range() {
  const choice = $("heat-range").value;
  if (choice === "custom") {
    const since = $("heat-since").value;
    const until = $("heat-until").value;
    const params = [];
    if (since) params.push("since=" + since);
    if (until) params.push("until=" + (Date.parse(until) + DAY));  // the chosen day included
    return params.join("&");
  }
  // Open-ended, as the preview: events stamped ahead of this browser's clock count too.
  return "since=" + (Date.now() - Number(choice) * DAY);
}

// Heat is counted on interactions only (the server's heatmap), and its colour scale is set by
// the elements a person taps: not the page itself, nor a box covering most of the picture (a
// page whose picture is one box stays readable). Those get an outline with their count.
async function drawHeatmap() {
  const layer = $("heat");
  layer.replaceChildren();
  $("heat-custom").hidden = $("heat-range").value !== "custom";
  const on = $("heat-on").checked && state.snapshot;
  $("heat-legend").hidden = !on;
  $("scroll-depth").hidden = true;
  if (!on) return;
  const snapshot = state.snapshot;
  const answer = await api("GET", "/api/snapshots/" + snapshot.id + "/heatmap?" + range());
  if (state.snapshot !== snapshot) return;
  const area = snapshot.width * snapshot.height;
  const tappable = (node) => {
    const f = frameOf(node);
    return !!node.parentNode && !!f && f[2] * f[3] < 0.6 * area;
  };
  // A back end that does not count scroll depth answers 503: the line stays hidden.
  drawScrollDepth().catch(() => { $("scroll-depth").hidden = true; });
  const counts = answer.elements.filter((e) => state.byPath.has(e.path));
  const scaled = counts.filter((e) => tappable(state.byPath.get(e.path)));
  const max = scaled.reduce((m, e) => Math.max(m, e.count), 0);
  const min = scaled.reduce((m, e) => Math.min(m, e.count), max);
  $("heat-min").textContent = scaled.length ? min : 0;
  $("heat-max").textContent = max;
  $("heat-unit").textContent = max === 1 ? "interaction" : "interactions";
  for (const e of counts) {
    const node = state.byPath.get(e.path);
    const share = max > 0 ? Math.min(1, e.count / max) : 0;
    // Elements holding others (a row, a page) get a frame of the colour, so their insides stay visible.
    const outline = (node.children || []).length > 0 || !tappable(node);
    const box = el("div", { class: outline ? "heat container" : "heat", "data-path": e.path, "data-count": e.count,
      title: plural(e.count, "interaction") }, el("span", {}, e.count));
    // Yellow to red, never the blue and purple of pointing and choosing.
    const colour = "rgba(" + Math.round(255 - 25 * share) + "," + Math.round(200 - 160 * share) + ",0," + (0.25 + 0.5 * share).toFixed(2) + ")";
    if (outline) box.style.borderColor = tappable(node) ? colour : "rgba(120,120,120,0.6)"; else box.style.background = colour;
    place(box, node);
    layer.append(box);
  }
}

// Beside the heatmap: how far down the page's visits got (its scrolling views' depth).
async function drawScrollDepth() {
  const depth = await api("GET", "/api/snapshots/" + state.snapshot.id + "/scroll-depth?" + range());
  const reached = depth.reached.map((r) => Math.round(r.share * 100) + "%: " + r.visits).join(", ");
  $("scroll-depth").textContent = "Scroll depth of " + depth.visits + " visits (" + depth.scrolled + " scrolled): " + reached;
  $("scroll-depth").hidden = false;
}
