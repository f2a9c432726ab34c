"use strict";

// ---- the definition being written ------------------------------------------------------------

function slug(text) {
  return text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
}

// A path's cell indexes `s:r` become `s:*` (every row of that section); a path without cells gets
// `*` as its last index (any position among its same-named siblings).
function wildcard(path) {
  const amp = path.lastIndexOf("&");
  if (amp < 0) return path;
  let cells = false;
  const indexes = path.slice(amp + 1).split("-").map((i) => {
    if (i.includes(":")) { cells = true; return i.split(":")[0] + ":*"; }
    return i;
  });
  if (!cells && indexes.length > 1) indexes[indexes.length - 1] = "*";
  return path.slice(0, amp) + "&" + indexes.join("-");
}

function isExact(pattern) { return !pattern.includes("*"); }

function defaultEvent(node) {
  if (node.event) return node.event;
  const path = node.path || "";
  const leaf = path.slice(path.lastIndexOf("&") + 1).split("-").pop() || "";
  if (!node.parentNode) return "PageEnter";
  if (leaf.includes(":")) return "ListItemClick";
  if (/Button/i.test(node.type)) return "ButtonClick";
  if (/Switch|Check|Toggle|Slider|Scale|Spin|Range|Dropdown/i.test(node.type)) return "ValueChanged";
  return "ViewTap";
}

function selectedCase() { return document.querySelector("input[name=case]:checked").value; }

function setCase(value) { $("case-" + value).checked = true; }

function hasContent() { return selectedCase().endsWith("content"); }

// "Also record": the values seen in and around the element, then its own properties (folded).
function fillKeyPaths(node, chosen) {
  const select = $("def-keypath");
  select.replaceChildren(el("option", { value: "" }, "nothing"));
  const seen = new Set();
  const around = recordable(node);
  if (around.length) {
    const group = el("optgroup", { label: "What it shows, and around it" });
    for (const c of around) {
      seen.add(c.keyPath);
      group.append(el("option", { value: c.keyPath, "data-key-name": keyNameFor(c) },
        "\u201c" + shown(c.value) + "\u201d \u2014 " + c.where + ": " + c.keyPath));
    }
    select.append(group);
  }
  const own = Object.keys((node && node.props) || {}).filter((k) => !seen.has(k));
  if (chosen && !seen.has(chosen) && !own.includes(chosen)) own.push(chosen);
  if (own.length) {
    const group = el("optgroup", { label: "Its own properties" });
    for (const k of own) {
      const v = node && node.props && node.props[k];
      group.append(el("option", { value: k }, v === undefined ? k : k + " (now " + shown(v) + ")"));
    }
    select.append(group);
  }
  select.value = chosen || "";
}

function captured() {
  return state.snapshot ? dateTime(state.snapshot.capturedAt) : "";
}

// The content a person would type: what the element shows (its own title, or for a row the
// text of the label inside it, read then through that label's key path), said as captured.
function fillContent(node) {
  state.contentKey = null;
  let text = ownText(node);
  let note = "";
  if (text) {
    note = "As shown in the picture of " + captured() + "; when tapped it may have shown something else (the preview lists what was stored).";
  } else {
    const inside = recordable(node).find((c) => c.inside && typeof c.value === "string");
    if (inside) {
      text = inside.value;
      state.contentKey = { keyPath: inside.keyPath, keyName: keyNameFor(inside) };
      note = "The text of its " + inside.target.type + " (read at each tap as " + inside.keyPath + ", recorded as "
        + state.contentKey.keyName + "), as shown in the picture of " + captured() + ".";
    } else if (node) {
      note = "It shows no text of its own in the picture of " + captured() + ".";
    }
  }
  $("content-exact").value = text;
  $("content-rows").value = text;
  $("content-note").textContent = note;
}

// A content that is not the element's title is compared with a value read at the tap: the
// key path that reads it is recorded with the definition.
function applyContentKey() {
  if (!hasContent() || !state.contentKey || $("def-keypath").value) return;
  $("def-keypath").value = state.contentKey.keyPath;
  $("def-keyname").value = state.contentKey.keyName;
}

// A fresh form for a new definition from `node`: nothing of another definition carries over.
function newDefinition(node, keepChoices) {
  state.editing = null;
  state.replacing = null;
  $("edit-note").hidden = true;
  hideConfirm();
  $("definition").hidden = !node;
  $("definition-title").textContent = "New definition";
  if (!keepChoices) {
    $("def-name").value = "";
    $("def-id").value = "";
    $("def-version").value = "*";
    setCase("exact");
  }
  $("def-id").disabled = false;
  $("def-keyname").value = "";
  $("delete").hidden = true;
  $("rename-hint").hidden = true;
  problem("");
  resetPreview();
  fillKeyPaths(node, "");
  if (!node) return;
  $("def-event").value = defaultEvent(node);
  fillContent(node);
  applyContentKey();
  schedulePreview();
}

function resetDefinition() { newDefinition(state.chosen); }

function resetPreview() {
  $("preview-total").textContent = "\u2013";
  $("preview-why").textContent = "";
  $("preview-unit").textContent = "interactions";
  $("preview-selects").textContent = "";
  $("preview-days").replaceChildren();
  $("preview-axis").replaceChildren();
  $("preview-values").replaceChildren();
  $("selects").replaceChildren();
}

function basePath() {
  if (state.chosen && state.chosen.path) return state.chosen.path;
  return state.editing ? state.editing.viewPath : "";
}

function currentPattern() {
  const base = basePath();
  if (!base) return "";
  if (state.editing && !state.chosen) return state.editing.viewPath;
  const c = selectedCase();
  if (c === "rows" || c === "rows-content") return wildcard(base);
  return base;
}

function currentRule() {
  const name = $("def-name").value.trim();
  const rule = {
    id: $("def-id").value.trim() || slug(name),
    name: name || undefined,
    appKey: state.app.appKey,
    appVersion: $("def-version").value.trim() || "*",
    viewEvent: $("def-event").value,
    viewPath: currentPattern(),
  };
  const keyPath = $("def-keypath").value;
  if (keyPath) {
    rule.keyPath = keyPath;
    rule.keyName = $("def-keyname").value.trim() || keyPath.split(".").pop();
  }
  const c = selectedCase();
  if (c === "exact-content") rule.content = $("content-exact").value;
  if (c === "rows-content") rule.content = $("content-rows").value;
  if (!rule.name) delete rule.name;
  if (!rule.id) delete rule.id;
  // The elements the edited definition also selects (other versions' paths) stay with it.
  const also = state.editing && state.editing.id === rule.id ? (state.editing.alsoViewPaths || []).filter((p) => p !== rule.viewPath) : [];
  if (also.length) rule.alsoViewPaths = also;
  return rule;
}

function schedulePreview() {
  $("def-pattern").textContent = currentPattern();
  $("preview-total").dataset.state = "pending";
  state.previewPending = true;
  clearTimeout(state.previewTimer);
  state.previewTimer = setTimeout(() => preview().catch(failed), 250);
}

function bars(container, axis, days) {
  container.replaceChildren();
  axis.replaceChildren();
  const max = days.reduce((m, d) => Math.max(m, d.count), 0);
  for (const d of days) {
    const bar = el("span", { title: d.day + ": " + plural(d.count, "interaction") });
    bar.style.height = (max > 0 ? Math.round(100 * d.count / max) : 0) + "%";
    container.append(bar);
  }
  if (days.length) axis.append(el("span", {}, shortDay(days[0].day)), el("span", {}, shortDay(days[days.length - 1].day)));
}

// Every day of the last 30, zeros included, from the answer's days (which may leave zeros out).
function lastThirtyDays(days) {
  const counts = new Map(days.map((d) => [d.day, d.count]));
  const out = [];
  const today = Math.floor(Date.now() / DAY);
  for (let n = today - 29; n <= today; n++) {
    const day = new Date(n * DAY).toISOString().slice(0, 10);
    out.push({ day, count: counts.get(day) || 0 });
  }
  return out;
}

// From midnight UTC 29 days ago, open-ended: the API's default range, so the page and
// GET /api/rules/{id}/counts agree (events stamped ahead of this browser's clock included).
function thirtyDaysSince() {
  return (Math.floor(Date.now() / DAY) - 29) * DAY;
}

function counted(rule) { return api("POST", "/api/preview?since=" + thirtyDaysSince(), rule); }

async function preview() {
  state.previewPending = false;
  if (!state.app || !currentPattern()) { $("preview-total").dataset.state = "done"; return; }
  const seq = ++state.previewSeq;
  let answer;
  try {
    answer = await counted(currentRule());
  } catch (error) {
    if (seq !== state.previewSeq) return;
    resetPreview();
    if (!state.previewPending) $("preview-total").dataset.state = "done";
    state.previewFailed = true;
    problem(error.message);
    return;
  }
  if (seq !== state.previewSeq) return;  // a newer preview is on its way
  if (!state.previewPending) $("preview-total").dataset.state = "done";
  // Only the preview's own problem goes away with it (a refused save stays said).
  if (state.previewFailed) { state.previewFailed = false; problem(""); }
  $("preview-total").textContent = answer.total;
  $("preview-why").textContent = "";
  if (answer.total === 0) explainZero(currentRule(), seq).catch(() => {});
  $("preview-unit").textContent = answer.total === 1 ? "interaction" : "interactions";
  bars($("preview-days"), $("preview-axis"), lastThirtyDays(answer.days));
  const values = $("preview-values");
  values.replaceChildren();
  for (const v of answer.values.slice(0, 5)) {
    values.append(el("li", {}, el("span", { class: "value" }, shown(v.value)), " \u2014 ", plural(v.count, "interaction")));
  }
  const onPicture = answer.selects.filter((p) => state.byPath.has(p));
  $("preview-selects").textContent = plural(answer.selects.length, "element") + " on the newest picture of its page";
  const layer = $("selects");
  layer.replaceChildren();
  for (const p of onPicture) {
    const box = el("div", { class: "selected", "data-path": p });
    place(box, state.byPath.get(p));
    layer.append(box);
  }
}

// Why a preview counts nothing: the content filter, the app versions, the event kind, or no
// interaction stored on the element at all (each tried by counting without it).
async function explainZero(rule, seq) {
  const why = $("preview-why");
  let text = "";
  if (rule.content !== undefined) {
    const loose = Object.assign({}, rule);
    delete loose.content;
    const without = await counted(loose);
    if (without.total > 0) {
      const seen = without.values.slice(0, 3).map((v) => "\u201c" + shown(v.value) + "\u201d").join(", ");
      text = "Without \u201c" + rule.content + "\u201d it counts " + plural(without.total, "interaction")
        + (seen ? ": the taps stored show " + seen : "") + ".";
    }
  }
  if (!text && rule.appVersion && rule.appVersion !== "*") {
    const any = await counted(Object.assign({}, rule, { appVersion: "*" }));
    if (any.total > 0) text = "In every version it counts " + plural(any.total, "interaction") + ": none in " + rule.appVersion + ".";
  }
  if (!text) {
    const node = state.chosen;
    const n = node && node.path === rule.viewPath ? node.interactions || 0 : 0;
    text = n > 0
      ? "Its " + plural(n, "stored interaction") + " are " + (node.event || "of another kind") + ", not " + rule.viewEvent + "."
      : "No interaction is stored on " + (isExact(rule.viewPath) ? "this element" : "these elements")
        + " in the last 30 days, in any version.";
  }
  if (seq === state.previewSeq) why.textContent = text;
}

// What makes two definitions count the same interactions.
function selection(rule) {
  return JSON.stringify([rule.appKey, rule.appVersion || "*", rule.viewEvent, rule.viewPath,
    rule.content === undefined || rule.content === null ? null : rule.content, rule.content === undefined ? null : rule.keyName || null]);
}

function hideConfirm() {
  $("confirm").hidden = true;
  $("confirm-list").replaceChildren();
}

// Before a save that changes what a definition counts, or that counts what another one already
// counts: the facts, and Save / Cancel.
async function checkSave(rule) {
  const notes = [];
  const twin = state.rules.find((r) => r.id !== rule.id && selection(r) === selection(rule));
  if (twin) {
    notes.push({ kind: "same", text: "It counts the same interactions as \u201c" + (twin.name || twin.id) + "\u201d (same element, event and content)." });
  }
  const was = state.editing;
  if (was && selection(was) !== selection(rule)) {
    const [before, after] = await Promise.all([counted(was), counted(rule)]);
    notes.push({ kind: "change", before: before.total, after: after.total,
      text: "This changes what \u201c" + (was.name || was.id) + "\u201d counts: " + plural(before.total, "interaction")
        + " before, " + plural(after.total, "interaction") + " after, over the last 30 days." });
  }
  return notes;
}

async function save(confirmed) {
  hideConfirm();
  const rule = currentRule();
  if (!rule.viewPath) { problem("Choose an element on the picture first."); return; }
  if (!rule.id) { problem("Give the definition a name."); return; }
  if (!confirmed) {
    let notes;
    try { notes = await checkSave(rule); } catch (error) { problem(error.message); return; }
    if (notes.length) {
      const list = $("confirm-list");
      for (const n of notes) {
        const item = el("li", { "data-note": n.kind }, n.text);
        if (n.kind === "change") { item.dataset.before = n.before; item.dataset.after = n.after; }
        list.append(item);
      }
      $("confirm").hidden = false;
      $("confirm-save").focus();
      return;
    }
  }
  try {
    if (state.editing) {
      await api("PUT", "/api/rules/" + encodeURIComponent(state.editing.id) + "?app=" + encodeURIComponent(state.app.appKey), rule);
    } else {
      await api("POST", "/api/rules", rule);
    }
  } catch (error) {
    problem(error.message);
    return;
  }
  problem("");
  say("Saved \u201c" + (rule.name || rule.id) + "\u201d: running apps pick it up at their next CONFIG");
  await loadDefinitions();
  edit(state.rules.find((r) => r.id === rule.id) || rule, false);
}

async function remove() {
  if (!state.editing) return;
  const name = state.editing.name || state.editing.id;
  if (!window.confirm("Delete the definition \u201c" + name + "\u201d? Its events stay stored.")) return;
  try {
    await api("DELETE", "/api/rules/" + encodeURIComponent(state.editing.id) + "?app=" + encodeURIComponent(state.app.appKey));
  } catch (error) {
    problem(error.message);
    return;
  }
  say("Deleted \u201c" + name + "\u201d");
  state.editing = null;
  await loadDefinitions();
  resetDefinition();
}

// Loads `rule` into the form; with `locate`, shows a picture of its page and its first element,
// and brings the form into view.
async function edit(rule, locate) {
  state.editing = rule;
  state.replacing = null;
  $("edit-note").hidden = true;
  hideConfirm();
  $("definition").hidden = false;
  $("definition-title").textContent = "Definition \u201c" + (rule.name || rule.id) + "\u201d";
  $("def-name").value = rule.name || "";
  $("def-id").value = rule.id;
  $("def-id").disabled = true;
  $("def-event").value = rule.viewEvent;
  $("def-version").value = rule.appVersion || "*";
  $("def-keyname").value = rule.keyName || "";
  $("delete").hidden = false;
  $("rename-hint").hidden = false;
  problem("");
  const wild = !isExact(rule.viewPath);
  const hasContent = rule.content !== undefined && rule.content !== null;
  setCase((wild ? "rows" : "exact") + (hasContent ? "-content" : ""));
  if (locate) {
    const page = rule.viewPath.split("&")[0].split("-")[0];
    const onPage = state.snapshot && state.snapshot.page === page;
    const snapshot = state.snapshots.find((s) => s.page === page);
    state.chosen = null;
    if (!onPage && snapshot) await showSnapshot(snapshot.id);
    state.editing = rule;
    const pattern = rule.viewPath;
    const node = state.nodes.find((n) => n.path && (n.path === pattern || wildcard(n.path) === pattern));
    if (node) {
      state.chosen = node;
      place($("chosen"), node);
      showFacts(node);
      state.chosenChain = [];
      for (let n = node; n; n = n.parentNode) state.chosenChain.unshift(n);
      state.chosenLevel = state.chosenChain.length - 1;
    } else {
      $("chosen").hidden = true;
    }
  }
  const content = hasContent ? rule.content : "";
  $("content-exact").value = content;
  $("content-rows").value = content;
  $("content-note").textContent = "";
  state.contentKey = null;
  fillKeyPaths(state.chosen, rule.keyPath || "");
  $("def-keyname").value = rule.keyName || "";
  schedulePreview();
  if (locate) $("definition").scrollIntoView({ block: "start" });
}

// While a new definition was started from an element during an edit: the edited one counts
// this element instead (its save then shows the counts before and after).
function editInstead() {
  const rule = state.replacing;
  if (!rule || !state.chosen) return;
  const node = state.chosen;
  const keep = { event: $("def-event").value, kase: selectedCase(), exact: $("content-exact").value, rows: $("content-rows").value,
    keyPath: $("def-keypath").value, keyName: $("def-keyname").value };
  state.editing = rule;
  state.replacing = null;
  $("edit-note").hidden = true;
  $("definition-title").textContent = "Definition \u201c" + (rule.name || rule.id) + "\u201d, on another element";
  $("def-name").value = rule.name || "";
  $("def-id").value = rule.id;
  $("def-id").disabled = true;
  $("def-version").value = rule.appVersion || "*";
  $("delete").hidden = false;
  $("def-event").value = keep.event;
  setCase(keep.kase);
  $("content-exact").value = keep.exact;
  $("content-rows").value = keep.rows;
  fillKeyPaths(node, keep.keyPath);
  $("def-keyname").value = keep.keyName;
  schedulePreview();
}

function sparkline(days) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 100 24");
  svg.setAttribute("preserveAspectRatio", "none");
  const max = days.reduce((m, d) => Math.max(m, d.count), 0);
  const points = days.map((d, i) => (i * 100 / Math.max(1, days.length - 1)).toFixed(1) + "," + (22 - (max > 0 ? 20 * d.count / max : 0)).toFixed(1));
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", points.join(" "));
  svg.append(line);
  const box = el("div", { class: "trend" }, svg);
  if (days.length) {
    box.append(el("div", { class: "axis" }, el("span", {}, shortDay(days[0].day)), el("span", {}, shortDay(days[days.length - 1].day))));
  }
  return box;
}

// A crop of `snapshot`'s picture around the node at `path`, at most 96 × 40 px; null when the
// tree has no frame for it. Trees are asked once per picture.
const cropTrees = new Map();
async function crop(snapshot, path) {
  if (!cropTrees.has(snapshot.id)) cropTrees.set(snapshot.id, api("GET", "/api/snapshots/" + snapshot.id).then((s) => s.tree).catch(() => null));
  const tree = await cropTrees.get(snapshot.id);
  const stack = tree ? [tree] : [];
  let node = null;
  for (let seen = 0; stack.length && seen < 100000; seen++) {
    const n = stack.pop();
    if (n.path === path) { node = n; break; }
    for (const c of n.children || []) stack.push(c);
  }
  if (!node || !Array.isArray(node.frame) || node.frame[2] <= 0 || node.frame[3] <= 0) return null;
  const [x, y, w, h] = node.frame;
  const k = Math.min(96 / w, 40 / h, 1);
  const box = el("span", { class: "crop", "data-crop": path, "data-snapshot": snapshot.id, title: "As the picture of " + dateTime(snapshot.capturedAt) + " shows it" });
  box.style.width = Math.max(1, Math.round(w * k)) + "px";
  box.style.height = Math.max(1, Math.round(h * k)) + "px";
  const img = el("img", { src: "/api/snapshots/" + snapshot.id + "/image", alt: "" });
  img.style.width = (snapshot.width * k) + "px";
  img.style.height = (snapshot.height * k) + "px";
  img.style.left = (-x * k) + "px";
  img.style.top = (-y * k) + "px";
  box.append(img);
  return box;
}

async function loadDefinitions() {
  const answer = await api("GET", "/api/rules?app=" + encodeURIComponent(state.app.appKey));
  state.rules = answer.rules;
  state.etag = answer.etag;
  const list = $("definitions");
  list.replaceChildren();
  $("no-definitions").hidden = state.rules.length > 0;
  fillInsightChoices();
  const since = thirtyDaysSince();
  await Promise.all(state.rules.map(async (rule) => {
    const item = el("li", { "data-rule": rule.id });
    list.append(item);
    const count = el("span", { class: "count" }, "\u2026");
    item.append(el("div", { class: "row" },
      el("span", { class: "name" }, rule.name || rule.id),
      count,
      el("button", { type: "button", onclick: () => edit(rule, true).catch(failed) }, "Edit")),
      el("div", { class: "hint" }, rule.viewEvent + (rule.content !== undefined ? " showing \u201c" + rule.content + "\u201d" : "") + " \u00b7 ", el("code", {}, rule.viewPath),
        (rule.alsoViewPaths || []).length ? el("span", { class: "also" }, " and " + rule.alsoViewPaths.length + " more element" + (rule.alsoViewPaths.length > 1 ? "s" : "")) : null));
    try {
      const p = await api("POST", "/api/preview?since=" + since, rule);
      count.textContent = p.total + " in 30 days";
      item.append(sparkline(lastThirtyDays(p.days)));
      const page = rule.viewPath.split("&")[0].split("-")[0];
      const pictured = state.snapshots.some((s) => s.page === page);
      // Its element as the newest picture of its page shows it (the picture `selects` is of).
      const newest = state.allSnapshots.find((s) => s.page === page);
      if (newest && p.selects.length) {
        const picture = await crop(newest, p.selects[0]);
        if (picture) item.querySelector(".row").prepend(picture);
      }
      if (p.selects.length === 0 && !(rule.alsoViewPaths || []).length) {
        item.append(el("div", { class: "warning", "data-warning": "selects-nothing" }, pictured
          ? "\u26a0 selects nothing on the newest picture of " + page + ": the app may have changed"
          : "\u26a0 no picture of " + page + " yet: turn circle mode on and open it"));
      }
      // Health is a second look: a back end that cannot tell leaves the count as it is.
      await showHealth(rule, item).catch((error) => item.append(el("div", { class: "hint" }, "health unknown: " + error.message)));
    } catch (error) {
      count.textContent = "?";
      item.append(el("div", { class: "warning" }, error.message));
    }
  }));
}

// ---- definitions that survive releases ---------------------------------------------------------

// The definition's health per app version (GET /api/rules/{id}/health): a strip of versions, each
// ok, broken or unseen; a broken one says why, with the drift check's suggestion one click away.
async function showHealth(rule, item) {
  const health = await api("GET", "/api/rules/" + encodeURIComponent(rule.id) + "/health?app=" + encodeURIComponent(rule.appKey));
  const strip = el("div", { class: "health", "data-health": rule.id });
  for (const v of health.versions) {
    strip.append(el("span", { class: "version " + v.status, "data-version": v.appVersion, "data-status": v.status,
      title: v.appVersion + ": " + v.count + " counted" + (v.inPicture ? ", on its picture" : "") }, v.appVersion + " " + mark(v.status)));
  }
  if (health.versions.length) item.append(strip);
  const newest = health.versions[health.versions.length - 1];
  for (const v of health.versions.filter((x) => x.status === "broken")) {
    const why = v.inPicture ? "counts nothing there" : "its element is not on the version's picture";
    const warning = el("div", { class: "warning broken", "data-warning": "broken", "data-version": v.appVersion },
      "\u26a0 broken in " + v.appVersion + (v === newest ? " (the newest version)" : "") + ": " + why + ". ");
    if (v.suggestion) {
      warning.append(el("span", {}, "Its element is now probably "), el("code", { class: "suggestion" }, v.suggestion), " ",
        el("button", { type: "button", class: "apply", "data-suggestion": v.suggestion, onclick: () => applySuggestion(rule, v.suggestion).catch(failed) },
          "Also count it there"));
    } else {
      warning.append("Circle the element again on the picture of " + v.appVersion + ".");
    }
    item.append(warning);
  }
}

function mark(status) { return status === "ok" ? "\u2713" : status === "broken" ? "\u2717" : "\u2013"; }

// Adds the suggested path to the definition (it then selects both versions' elements, each event once).
async function applySuggestion(rule, path) {
  const changed = Object.assign({}, rule, { alsoViewPaths: (rule.alsoViewPaths || []).concat([path]) });
  await api("PUT", "/api/rules/" + encodeURIComponent(rule.id) + "?app=" + encodeURIComponent(rule.appKey), changed);
  say("\u201c" + (rule.name || rule.id) + "\u201d also counts " + path + " now");
  await loadDefinitions();
}
