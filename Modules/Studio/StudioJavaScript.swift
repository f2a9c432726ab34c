extension StudioAssets {
    /// `/studio.js`: the studio page's script (plain JavaScript, no framework).
    static let javaScript = #"""
    // Autotrack Studio: apps → versions → pages, the page's picture, circling an element, definitions.
    // Plain JavaScript, no framework; every request goes to this collector's /api (docs/studio.md).
    "use strict";

    const DAY = 86400000;
    const state = {
      apps: [], app: null, version: "", snapshots: [], snapshot: null, nodes: [], byPath: new Map(),
      chain: [], level: 0, hovered: null, chosen: null, chosenChain: [], chosenLevel: 0,
      editing: null, rules: [], etag: "", previewTimer: 0, previewSeq: 0, pollTimer: 0,
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

    async function api(method, path, body) {
      const init = { method, credentials: "same-origin", headers: { "Accept": "application/json" } };
      if (body !== undefined) {
        init.headers["Content-Type"] = "application/json";
        init.body = JSON.stringify(body);
      }
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

    function say(text, isError) {
      const s = $("status");
      s.textContent = text;
      s.className = isError ? "error" : "";
    }

    function failed(error) { say(error.message, true); }

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
    }

    async function refresh() {
      await loadApps();
      if (state.app) await loadSnapshots();
    }

    async function setCircle(minutes) {
      const answer = await api("POST", "/api/apps/" + encodeURIComponent(state.app.appKey) + "/circle", { minutes });
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
      // The refresh while circling keeps the thumbnails when nothing new came (images are not cached).
      if (same && $("pages").children.length === state.snapshots.length && state.snapshots.length > 0) return;
      const list = $("pages");
      list.replaceChildren();
      for (const s of state.snapshots) {
        list.append(el("li", {}, el("button", {
          type: "button", class: "thumb", "data-snapshot": s.id, "data-page": s.page,
          "aria-pressed": state.snapshot && state.snapshot.id === s.id ? "true" : "false",
          title: s.page + " (" + s.appVersion + ", " + dateTime(s.capturedAt) + ")",
          onclick: () => showSnapshot(s.id).catch(failed),
        }, el("img", { src: "/api/snapshots/" + s.id + "/image", alt: "", loading: "lazy" }),
          el("span", {}, s.page), el("span", { class: "hint" }, s.appVersion))));
      }
      $("no-pages").hidden = state.snapshots.length > 0;
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
      const snapshot = await api("GET", "/api/snapshots/" + id);
      state.snapshot = snapshot;
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
      choose(null);
      $("selects").replaceChildren();
      await drawHeatmap();
      if (state.editing) schedulePreview();
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

    function hover(event) {
      if (!state.snapshot) return;
      const [x, y] = pointerAt(event);
      state.chain = chainAt(x, y);
      state.level = state.chain.length - 1;
      showHovered();
    }

    function showHovered() {
      state.hovered = state.chain[state.level] || null;
      place($("hover"), state.hovered);
      if (!state.chosen) showFacts(state.hovered);
    }

    // Up: toward the root; down: back toward the deepest element under the pointer.
    function step(delta) {
      if (state.chosen) {
        const level = Math.min(state.chosenChain.length - 1, Math.max(0, state.chosenLevel + delta));
        if (level !== state.chosenLevel) {
          state.chosenLevel = level;
          choose(state.chosenChain[level], state.chosenChain, level);
        }
        return;
      }
      if (!state.chain.length) return;
      state.level = Math.min(state.chain.length - 1, Math.max(0, state.level + delta));
      showHovered();
    }

    function choose(node, chain, level) {
      state.chosen = node;
      state.chosenChain = chain || [];
      state.chosenLevel = level || 0;
      if (!node) {
        $("chosen").hidden = true;
        showFacts(state.hovered);
        return;
      }
      place($("chosen"), node);
      showFacts(node);
      fillDefinition(node);
    }

    function showFacts(node) {
      const facts = $("facts");
      const body = document.querySelector("#props tbody");
      facts.replaceChildren();
      body.replaceChildren();
      $("no-element").hidden = !!node;
      if (!node) return;
      const f = frameOf(node);
      const rows = [["type", node.type], ["id", node.id], ["title", node.title], ["path", node.path], ["viewId", node.viewId],
        ["frame", f ? f.join(", ") : null]];
      for (const [k, v] of rows) {
        if (v === undefined || v === null || v === "") continue;
        facts.append(el("dt", {}, k), el("dd", { "data-fact": k }, String(v)));
      }
      for (const [k, v] of Object.entries(node.props || {})) body.append(el("tr", {}, el("td", {}, k), el("td", {}, JSON.stringify(v))));
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
      const now = Date.now();
      return "since=" + (now - Number(choice) * DAY) + "&until=" + (now + 1);
    }

    async function drawHeatmap() {
      const layer = $("heat");
      layer.replaceChildren();
      $("heat-custom").hidden = $("heat-range").value !== "custom";
      const on = $("heat-on").checked && state.snapshot;
      $("heat-legend").hidden = !on;
      $("scroll-depth").hidden = true;
      if (!on) return;
      const answer = await api("GET", "/api/snapshots/" + state.snapshot.id + "/heatmap?" + range());
      // A back end that does not count scroll depth answers 503: the line stays hidden.
      drawScrollDepth().catch(() => { $("scroll-depth").hidden = true; });
      const counts = answer.elements.filter((e) => state.byPath.has(e.path));
      const max = counts.reduce((m, e) => Math.max(m, e.count), 0);
      const min = counts.reduce((m, e) => Math.min(m, e.count), max);
      $("heat-min").textContent = counts.length ? min : 0;
      $("heat-max").textContent = max;
      for (const e of counts) {
        const share = max > 0 ? e.count / max : 0;
        const node = state.byPath.get(e.path);
        // Elements holding others (a page, a row) get a coloured frame, so their insides stay visible.
        const container = (node.children || []).length > 0;
        const box = el("div", { class: container ? "heat container" : "heat", "data-path": e.path, title: e.count + " interactions" },
          el("span", {}, e.count));
        const colour = "rgba(" + Math.round(255 - 25 * share) + "," + Math.round(200 - 160 * share) + ",0," + (0.25 + 0.5 * share).toFixed(2) + ")";
        if (container) box.style.borderColor = colour; else box.style.background = colour;
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

    function fillKeyPaths(node, chosen) {
      const select = $("def-keypath");
      select.replaceChildren(el("option", { value: "" }, "nothing"));
      const keys = Object.keys((node && node.props) || {});
      if (chosen && !keys.includes(chosen)) keys.push(chosen);
      for (const k of keys) {
        const v = node && node.props && node.props[k];
        select.append(el("option", { value: k }, v === undefined ? k : k + " (now " + JSON.stringify(v) + ")"));
      }
      select.value = chosen || "";
    }

    function fillDefinition(node) {
      $("definition").hidden = false;
      const keyPath = state.editing ? state.editing.keyPath : "";
      fillKeyPaths(node, keyPath);
      if (!state.editing) {
        $("def-event").value = defaultEvent(node);
        const shown = node.title || "";
        $("content-exact").value = shown;
        $("content-rows").value = shown;
      }
      schedulePreview();
    }

    function resetDefinition() {
      state.editing = null;
      $("definition-title").textContent = "New definition";
      $("def-name").value = "";
      $("def-id").value = "";
      $("def-id").disabled = false;
      $("def-keyname").value = "";
      $("def-version").value = "*";
      $("delete").hidden = true;
      $("def-error").textContent = "";
      setCase("exact");
      fillKeyPaths(state.chosen, "");
      $("definition").hidden = !state.chosen;
      resetPreview();
      if (state.chosen) fillDefinition(state.chosen);
    }

    function resetPreview() {
      $("preview-total").textContent = "–";
      $("preview-selects").textContent = "";
      $("preview-days").replaceChildren();
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
      if (state.chosen && state.chosen.path && selectedCase().startsWith("exact") && !isExact(currentPattern())) {
        $("def-error").textContent = "";
      }
      clearTimeout(state.previewTimer);
      state.previewTimer = setTimeout(() => preview().catch(failed), 250);
    }

    function bars(container, days) {
      container.replaceChildren();
      const max = days.reduce((m, d) => Math.max(m, d.count), 0);
      for (const d of days) {
        const bar = el("span", { title: d.day + ": " + d.count });
        bar.style.height = (max > 0 ? Math.round(100 * d.count / max) : 0) + "%";
        container.append(bar);
      }
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

    async function preview() {
      if (!state.app || !currentPattern()) return;
      const seq = ++state.previewSeq;
      let answer;
      try {
        answer = await api("POST", "/api/preview?since=" + thirtyDaysSince(), currentRule());
      } catch (error) {
        if (seq !== state.previewSeq) return;
        resetPreview();
        $("def-error").textContent = error.message;
        return;
      }
      if (seq !== state.previewSeq) return;  // a newer preview is on its way
      $("def-error").textContent = "";
      $("preview-total").textContent = answer.total;
      bars($("preview-days"), lastThirtyDays(answer.days));
      const values = $("preview-values");
      values.replaceChildren();
      for (const v of answer.values.slice(0, 5)) values.append(el("li", {}, JSON.stringify(v.value) + ": " + v.count));
      const onPicture = answer.selects.filter((p) => state.byPath.has(p));
      $("preview-selects").textContent = answer.selects.length + " element" + (answer.selects.length === 1 ? "" : "s") + " on the newest picture of its page";
      const layer = $("selects");
      layer.replaceChildren();
      for (const p of onPicture) {
        const box = el("div", { class: "selected", "data-path": p });
        place(box, state.byPath.get(p));
        layer.append(box);
      }
    }

    async function save() {
      const rule = currentRule();
      if (!rule.viewPath) { $("def-error").textContent = "Choose an element on the picture first."; return; }
      if (!rule.id) { $("def-error").textContent = "Give the definition a name."; return; }
      try {
        if (state.editing) {
          await api("PUT", "/api/rules/" + encodeURIComponent(state.editing.id), rule);
        } else {
          await api("POST", "/api/rules", rule);
        }
      } catch (error) {
        $("def-error").textContent = error.message;
        return;
      }
      say("Saved \u201c" + (rule.name || rule.id) + "\u201d: running apps pick it up at their next CONFIG");
      await loadDefinitions();
      edit(state.rules.find((r) => r.id === rule.id) || rule, false);
    }

    async function remove() {
      if (!state.editing) return;
      const name = state.editing.name || state.editing.id;
      if (!window.confirm("Delete the definition \u201c" + name + "\u201d? Its events stay stored.")) return;
      await api("DELETE", "/api/rules/" + encodeURIComponent(state.editing.id) + "?app=" + encodeURIComponent(state.app.appKey));
      say("Deleted \u201c" + name + "\u201d");
      state.editing = null;
      await loadDefinitions();
      resetDefinition();
    }

    // Loads `rule` into the form; with `locate`, shows a picture of its page and its first element.
    async function edit(rule, locate) {
      state.editing = rule;
      $("definition").hidden = false;
      $("definition-title").textContent = "Definition \u201c" + (rule.name || rule.id) + "\u201d";
      $("def-name").value = rule.name || "";
      $("def-id").value = rule.id;
      $("def-id").disabled = true;
      $("def-event").value = rule.viewEvent;
      $("def-version").value = rule.appVersion || "*";
      $("def-keyname").value = rule.keyName || "";
      $("delete").hidden = false;
      $("def-error").textContent = "";
      const wild = !isExact(rule.viewPath);
      const hasContent = rule.content !== undefined && rule.content !== null;
      setCase((wild ? "rows" : "exact") + (hasContent ? "-content" : ""));
      const shown = hasContent ? rule.content : (state.chosen && state.chosen.title) || "";
      $("content-exact").value = shown;
      $("content-rows").value = shown;
      if (locate) {
        const page = rule.viewPath.split("&")[0].split("-")[0];
        const shown = state.snapshot && state.snapshot.page === page;
        const snapshot = state.snapshots.find((s) => s.page === page);
        state.chosen = null;
        if (!shown && snapshot) await showSnapshot(snapshot.id);
        const pattern = rule.viewPath;
        const node = state.nodes.find((n) => n.path && (n.path === pattern || wildcard(n.path) === pattern));
        if (node) {
          state.chosen = node;
          place($("chosen"), node);
          showFacts(node);
          state.chosenChain = [];
        } else {
          $("chosen").hidden = true;
        }
      }
      fillKeyPaths(state.chosen, rule.keyPath || "");
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
      return svg;
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
        const count = el("span", { class: "count" }, "…");
        item.append(el("div", { class: "row" },
          el("span", { class: "name" }, rule.name || rule.id),
          count,
          el("button", { type: "button", onclick: () => edit(rule, true).catch(failed) }, "Edit")),
          el("div", { class: "hint" }, rule.viewEvent + (rule.content !== undefined ? " showing \u201c" + rule.content + "\u201d" : "") + " · ", el("code", {}, rule.viewPath)));
        try {
          const p = await api("POST", "/api/preview?since=" + since, rule);
          count.textContent = p.total + " in 30 days";
          item.append(sparkline(lastThirtyDays(p.days)));
          const page = rule.viewPath.split("&")[0].split("-")[0];
          const pictured = state.snapshots.some((s) => s.page === page);
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

    function typing(event) {
      const t = event.target;
      return t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
    }

    function start() {
      const stage = $("stage");
      stage.addEventListener("mousemove", hover);
      stage.addEventListener("mouseleave", () => { $("hover").hidden = true; if (!state.chosen) showFacts(null); });
      stage.addEventListener("wheel", (event) => {
        if (!state.snapshot) return;
        event.preventDefault();
        step(event.deltaY < 0 ? -1 : 1);
      }, { passive: false });
      stage.addEventListener("click", (event) => {
        if (!state.snapshot) return;
        if (!state.chain.length) hover(event);
        choose(state.hovered, state.chain.slice(), state.level);
        stage.focus();
      });
      document.addEventListener("keydown", (event) => {
        if (typing(event) || !state.snapshot) return;
        if (event.key === "ArrowUp" || event.key === "p") { step(-1); event.preventDefault(); }
        else if (event.key === "ArrowDown" || event.key === "c") { step(1); event.preventDefault(); }
        else if (event.key === "Escape") { choose(null); }
      });
      window.addEventListener("resize", () => {
        place($("hover"), state.hovered);
        if (state.chosen) place($("chosen"), state.chosen);
        drawHeatmap().catch(failed);
        schedulePreview();
      });
      $("versions").addEventListener("change", () => { state.version = $("versions").value; loadSnapshots().catch(failed); });
      $("circle-on").addEventListener("click", () => setCircle(Number($("circle-minutes").value)).catch(failed));
      $("circle-off").addEventListener("click", () => setCircle(0).catch(failed));
      for (const id of ["heat-on", "heat-range", "heat-since", "heat-until"]) $(id).addEventListener("change", () => drawHeatmap().catch(failed));
      for (const id of ["def-event", "def-version", "def-keyname", "content-exact", "content-rows"]) $(id).addEventListener("input", schedulePreview);
      for (const radio of document.querySelectorAll("input[name=case]")) radio.addEventListener("change", schedulePreview);
      $("def-keypath").addEventListener("change", () => {
        const k = $("def-keypath").value;
        $("def-keyname").value = k ? k.split(".").pop() : "";
        const v = k && state.chosen && state.chosen.props ? state.chosen.props[k] : undefined;
        if (v !== undefined) { $("content-exact").value = String(v); $("content-rows").value = String(v); }
        schedulePreview();
      });
      $("def-name").addEventListener("input", () => { if (!state.editing) $("def-id").value = slug($("def-name").value); });
      $("save").addEventListener("click", () => save().catch(failed));
      $("delete").addEventListener("click", () => remove().catch(failed));
      $("new").addEventListener("click", resetDefinition);
      loadApps().then(() => {
        if (state.apps.length === 1) return chooseApp(state.apps[0].appKey);
      }).catch(failed);
    }

    document.addEventListener("DOMContentLoaded", start);
    """#
}
