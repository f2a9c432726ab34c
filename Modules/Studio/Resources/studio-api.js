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
