"use strict";

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
  state.pageNames = pages.map((p) => p.page);
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
