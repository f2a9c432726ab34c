extension StudioAssets {
    /// `/studio.js`: the studio page's script (plain JavaScript, no framework).
    static let javaScript = #"""
    // Autotrack Studio: apps → versions → pages, the page's picture, circling an element, definitions.
    // Plain JavaScript, no framework; every request goes to this collector's /api (docs/studio.md).
    "use strict";

    const DAY = 86400000;
    const state = {
      apps: [], app: null, version: "", snapshots: [], allSnapshots: [], snapshot: null, nodes: [], byPath: new Map(),
      chain: [], level: 0, hovered: null, chosen: null, chosenChain: [], chosenLevel: 0,
      editing: null, replacing: null, rules: [], etag: "", previewTimer: 0, previewSeq: 0, pollTimer: 0,
      contentKey: null, circleSince: new Map(), opened: Date.now(), pagesShown: "",
    };
    const $ = (id) => document.getElementById(id);

    // ---- requests --------------------------------------------------------------------------------

    class APIError extends Error {
      constructor(status, body) {
        super((body && body.reason) || ("HTTP " + status));
        this.status = status;
        this.code = body && body.error;
      }
    }

    // Every write says JSON, with a body or without (the server refuses other writes).
    async function api(method, path, body) {
      const init = { method, credentials: "same-origin", headers: { "Accept": "application/json" } };
      if (method !== "GET" && method !== "HEAD") init.headers["Content-Type"] = "application/json";
      if (body !== undefined) init.body = JSON.stringify(body);
      const response = await fetch(path, init);
      if (response.status === 401) {
        window.location.assign("/login");
        throw new APIError(401, { error: "unauthorized", reason: "the session ended; log in again" });
      }
      const text = await response.text();
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
      if (!response.ok) throw new APIError(response.status, json);
      return json;
    }

    // The status line holds one message: a new one (an error included) replaces the last.
    function say(text, isError) {
      const s = $("status");
      s.textContent = text;
      s.className = isError ? "error" : "";
      s.setAttribute("role", isError ? "alert" : "status");
    }

    function failed(error) { say(error.message, true); }

    // A problem with the definition being written: beside the form, and no older success above.
    function problem(text) {
      $("def-error").textContent = text;
      if (text && !$("status").classList.contains("error")) say("");
    }

    function plural(n, one, many) { return n + " " + (n === 1 ? one : (many || one + "s")); }

    // A value as a person reads it: text as it is, anything else as JSON.
    function shown(value) { return typeof value === "string" ? value : JSON.stringify(value); }

    function shortDay(day) {
      const d = new Date(day + "T00:00:00Z");
      return d.toLocaleDateString([], { day: "numeric", month: "short", timeZone: "UTC" });
    }

    function el(tag, attributes, ...children) {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attributes || {})) {
        if (k === "class") e.className = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : String(v));
      }
      for (const c of children) {
        if (c === null || c === undefined) continue;
        e.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
      }
      return e;
    }

    function clock(ms) {
      const d = new Date(ms);
      return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    }

    function clockSeconds(ms) {
      return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    }

    function dateTime(ms) { return new Date(ms).toLocaleString(); }

    // ---- apps, versions, pages -------------------------------------------------------------------

    async function loadApps() {
      const answer = await api("GET", "/api/apps");
      state.apps = answer.apps;
      const list = $("apps");
      list.replaceChildren();
      for (const app of state.apps) {
        const on = app.circleModeUntil !== null && app.circleModeUntil > Date.now();
        list.append(el("li", {}, el("button", {
          type: "button", "data-app": app.appKey, "aria-pressed": state.app && state.app.appKey === app.appKey ? "true" : "false",
          onclick: () => chooseApp(app.appKey).catch(failed),
        }, app.appKey, " ", el("span", { class: "hint" }, app.snapshots + " pictures" + (on ? ", circling" : "")))));
      }
      $("no-apps").hidden = state.apps.length > 0;
      if (state.app) {
        const fresh = state.apps.find((a) => a.appKey === state.app.appKey);
        if (fresh) { state.app = fresh; showCircle(); }
      }
    }

    async function chooseApp(appKey) {
      if (state.app && state.app.appKey === appKey) return;  // already shown (or being loaded)
      state.app = state.apps.find((a) => a.appKey === appKey) || null;
      if (!state.app) return;
      for (const b of document.querySelectorAll("#apps button")) b.setAttribute("aria-pressed", b.dataset.app === appKey ? "true" : "false");
      $("app-panel").hidden = false;
      $("definitions-panel").hidden = false;
      $("app-title").textContent = appKey;
      const versions = $("versions");
      versions.replaceChildren(el("option", { value: "" }, "all versions"));
      for (const v of state.app.versions) versions.append(el("option", { value: v }, v));
      state.version = "";
      showCircle();
      clearPicture();
      await loadSnapshots();
      await loadDefinitions();
      resetDefinition();
    }

    function showCircle() {
      const until = state.app.circleModeUntil;
      const on = until !== null && until > Date.now();
      $("circle-state").replaceChildren(on ? el("span", { class: "on" }, "Circle mode on until " + clock(until)) : "Circle mode off");
      $("circle-off").hidden = !on;
      $("circle-on").textContent = on ? "Extend" : "Turn circle mode on";
      clearInterval(state.pollTimer);
      if (on) state.pollTimer = setInterval(() => refresh().catch(failed), 5000);
      showCircleLife();
    }

    // Circle mode's sign of life: which devices sent a picture since it was turned on (by the
    // collector's clock, the pictures' receivedAt), and when their last one came.
    function showCircleLife() {
      const life = $("circle-life");
      const until = state.app && state.app.circleModeUntil;
      if (!(until !== null && until > Date.now())) { life.hidden = true; life.replaceChildren(); return; }
      const since = state.circleSince.get(state.app.appKey) || state.opened;
      const fresh = state.allSnapshots.filter((s) => s.receivedAt >= since);
      life.hidden = false;
      if (!fresh.length) {
        life.dataset.pictures = "0";
        life.dataset.devices = "0";
        life.textContent = "No picture since " + clockSeconds(since) + ": no running app has picked circle mode up yet. "
          + "Apps ask at their next CONFIG (about once a minute): open the app, or start it again.";
        return;
      }
      // One line per device; pictures of agents that name no device, one line per app version.
      const senders = new Map();
      for (const s of fresh) {
        const key = s.device ? "d:" + s.device : "v:" + s.appVersion;
        const v = senders.get(key) || { device: s.device, versions: new Set(), count: 0, last: 0, pages: new Set() };
        v.count++; v.last = Math.max(v.last, s.receivedAt); v.pages.add(s.page); v.versions.add(s.appVersion);
        senders.set(key, v);
      }
      const lines = [...senders.values()].sort((a, b) => b.last - a.last);
      life.dataset.pictures = String(fresh.length);
      life.dataset.devices = String(lines.filter((v) => v.device).length);
      life.replaceChildren(el("span", {}, plural(fresh.length, "picture") + " since " + clockSeconds(since) + ", from "
        + plural(lines.length, "device") + ":"),
        el("ul", {}, ...lines.map((v) => el("li", { "data-device": v.device || "" },
          (v.device ? "device " + v.device : "a device that names none") + " (version " + [...v.versions].join(", ") + "): "
          + plural(v.count, "picture") + ", the last at " + clockSeconds(v.last) + " (" + [...v.pages].join(", ") + ")"))));
    }

    async function refresh() {
      await loadApps();
      if (state.app) await loadSnapshots();
    }

    async function setCircle(minutes) {
      const was = state.app.circleModeUntil;
      const answer = await api("POST", "/api/apps/" + encodeURIComponent(state.app.appKey) + "/circle", { minutes });
      // Since when, by the collector's clock (as the pictures' receivedAt): its end less the minutes asked.
      if (minutes > 0 && !(was !== null && was > Date.now())) state.circleSince.set(state.app.appKey, answer.circleModeUntil - minutes * 60000);
      state.app.circleModeUntil = answer.circleModeUntil;
      say(minutes > 0 ? "Circle mode is on until " + clock(answer.circleModeUntil) + ": open the app's pages" : "Circle mode is off");
      await loadApps();
      showCircle();
    }

    async function loadSnapshots() {
      let path = "/api/snapshots?app=" + encodeURIComponent(state.app.appKey);
      if (state.version) path += "&version=" + encodeURIComponent(state.version);
      const answer = await api("GET", path);
      const same = answer.snapshots.length === state.snapshots.length && answer.snapshots.every((s, i) => s.id === state.snapshots[i].id);
      state.snapshots = answer.snapshots;
      state.allSnapshots = state.version
        ? (await api("GET", "/api/snapshots?app=" + encodeURIComponent(state.app.appKey))).snapshots : answer.snapshots;
      showCircleLife();
      const pages = (await api("GET", "/api/pages?app=" + encodeURIComponent(state.app.appKey))).pages;
      // The refresh while circling keeps the thumbnails when nothing new came (images are not cached).
      const shown = JSON.stringify([state.version, pages]);
      if (same && state.pagesShown === shown && state.snapshots.length > 0) return;
      state.pagesShown = shown;
      // Each page once, by its name, with a strip of its newest picture per version (newest first).
      const byId = new Map(state.snapshots.map((s) => [s.id, s]));
      const list = $("pages");
      list.replaceChildren();
      for (const page of pages) {
        const strip = [];
        for (const version of page.versions) {
          const s = page.snapshots.map((id) => byId.get(id)).find((p) => p && p.appVersion === version);
          if (!s) continue;  // another version than the one chosen
          const count = page.snapshots.filter((id) => byId.get(id) && byId.get(id).appVersion === version).length;
          strip.push(el("button", {
            type: "button", class: "thumb", "data-snapshot": s.id, "data-page": s.page, "data-version": s.appVersion,
            "aria-pressed": state.snapshot && state.snapshot.id === s.id ? "true" : "false",
            title: page.name + " (" + s.appVersion + ", " + dateTime(s.capturedAt) + ")",
            onclick: () => showSnapshot(s.id).catch(failed),
          }, el("img", { src: "/api/snapshots/" + s.id + "/image", alt: "", loading: "lazy" }),
            el("span", {}, s.appVersion), el("span", { class: "hint" }, plural(count, "picture"))));
        }
        if (!strip.length) continue;
        const entry = el("li", { "data-page-entry": page.page });
        const title = el("div", { class: "page-name" }, el("span", { class: "name" }, page.name),
          page.name !== page.page ? el("span", { class: "hint" }, " " + page.page) : null, " ",
          el("button", { type: "button", class: "link rename-page", title: "Give this page a name people know it by",
            onclick: () => renamePage(entry, page) }, "Rename"));
        entry.append(title, el("div", { class: "strip" }, ...strip));
        list.append(entry);
      }
      $("no-pages").hidden = state.snapshots.length > 0;
    }

    // A page's name, as a person gives it: in place of the name, Enter or Save keeps it, Esc leaves
    // it; an empty name shows the page by its title or root again.
    function renamePage(entry, page) {
      const title = entry.querySelector(".page-name");
      const input = el("input", { type: "text", class: "page-name-input", value: page.name, "aria-label": "Name of the page " + page.page, maxlength: 256 });
      const save = async () => {
        const answer = await api("PUT", "/api/pages/" + encodeURIComponent(page.page) + "?app=" + encodeURIComponent(state.app.appKey),
          { name: input.value });
        say(answer.name ? "Named the page \u201c" + answer.name + "\u201d" : "The page " + page.page + " has no name of its own now");
        state.pagesShown = "";
        await loadSnapshots();
      };
      const form = el("form", { class: "page-rename", onsubmit: (e) => { e.preventDefault(); save().catch(failed); } },
        input, el("button", { type: "submit" }, "Save"),
        el("button", { type: "button", onclick: () => form.replaceWith(title) }, "Cancel"));
      input.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); form.replaceWith(title); } });
      title.replaceWith(form);
      input.focus();
      input.select();
    }

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
      const since = thirtyDaysSince();
      await Promise.all(state.rules.map(async (rule) => {
        const item = el("li", { "data-rule": rule.id });
        list.append(item);
        const count = el("span", { class: "count" }, "\u2026");
        item.append(el("div", { class: "row" },
          el("span", { class: "name" }, rule.name || rule.id),
          count,
          el("button", { type: "button", onclick: () => edit(rule, true).catch(failed) }, "Edit")),
          el("div", { class: "hint" }, rule.viewEvent + (rule.content !== undefined ? " showing \u201c" + rule.content + "\u201d" : "") + " \u00b7 ", el("code", {}, rule.viewPath)));
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
          if (p.selects.length === 0) {
            item.append(el("div", { class: "warning", "data-warning": "selects-nothing" }, pictured
              ? "\u26a0 selects nothing on the newest picture of " + page + ": the app may have changed"
              : "\u26a0 no picture of " + page + " yet: turn circle mode on and open it"));
          }
        } catch (error) {
          count.textContent = "?";
          item.append(el("div", { class: "warning" }, error.message));
        }
      }));
    }

    // ---- wiring -----------------------------------------------------------------------------------

    // Keys typed into text go to the text; elsewhere (a choice, a button, the picture) the arrow
    // keys move the chosen element to its parent or child instead of changing a choice.
    function typing(event) {
      const t = event.target;
      if (!t) return false;
      if (t.tagName === "SELECT" || t.tagName === "TEXTAREA") return true;
      return t.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(t.type);
    }

    async function logout() {
      try { await api("POST", "/logout"); } finally { window.location.assign("/login"); }
    }

    function start() {
      const stage = $("stage");
      stage.addEventListener("mousemove", hover);
      stage.addEventListener("mouseleave", () => { $("hover").hidden = true; showPointed(null); });
      stage.addEventListener("wheel", (event) => {
        if (!state.snapshot) return;
        event.preventDefault();
        step(event.deltaY < 0 ? -1 : 1);
      }, { passive: false });
      stage.addEventListener("click", (event) => {
        if (!state.snapshot) return;
        if (!state.chain.length) hover(event);
        if (!(state.chosen && state.hovered === state.chosen)) choose(state.hovered, state.chain.slice(), state.level);
        stage.focus();
      });
      document.addEventListener("keydown", (event) => {
        if (typing(event) || !state.snapshot) return;
        if (event.key === "ArrowUp" || event.key === "p") { step(-1); event.preventDefault(); }
        else if (event.key === "ArrowDown" || event.key === "c") { step(1); event.preventDefault(); }
        else if (event.key === "Escape") { choose(null); }
      }, true);
      window.addEventListener("resize", () => {
        place($("hover"), state.hovered);
        if (state.chosen) place($("chosen"), state.chosen);
        drawHeatmap().catch(failed);
        schedulePreview();
      });
      $("logout").addEventListener("submit", (event) => { event.preventDefault(); logout(); });
      $("versions").addEventListener("change", () => { state.version = $("versions").value; loadSnapshots().catch(failed); });
      $("circle-on").addEventListener("click", () => setCircle(Number($("circle-minutes").value)).catch(failed));
      $("circle-off").addEventListener("click", () => setCircle(0).catch(failed));
      for (const id of ["heat-on", "heat-range", "heat-since", "heat-until"]) $(id).addEventListener("change", () => drawHeatmap().catch(failed));
      for (const id of ["def-event", "def-version", "def-keyname", "content-exact", "content-rows"]) $(id).addEventListener("input", schedulePreview);
      for (const radio of document.querySelectorAll("input[name=case]")) {
        radio.addEventListener("change", () => { applyContentKey(); schedulePreview(); });
      }
      $("def-keypath").addEventListener("change", () => {
        const select = $("def-keypath");
        const option = select.selectedOptions[0];
        const k = select.value;
        $("def-keyname").value = k ? (option && option.dataset.keyName) || k.split(".").pop() : "";
        schedulePreview();
      });
      $("def-name").addEventListener("input", () => { if (!state.editing) $("def-id").value = slug($("def-name").value); });
      $("save").addEventListener("click", () => save(false).catch(failed));
      $("confirm-save").addEventListener("click", () => save(true).catch(failed));
      $("confirm-cancel").addEventListener("click", hideConfirm);
      $("edit-instead").addEventListener("click", editInstead);
      $("delete").addEventListener("click", () => remove().catch(failed));
      $("new").addEventListener("click", resetDefinition);
      loadApps().then(() => {
        if (state.apps.length === 1) return chooseApp(state.apps[0].appKey);
      }).catch(failed);
    }

    document.addEventListener("DOMContentLoaded", start);
    """#
}
