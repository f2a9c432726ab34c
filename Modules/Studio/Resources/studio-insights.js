"use strict";

// ---- insights: trend, funnel, retention, drawn here (SVG), numbers from /api/insights -------------

const SVG = "http://www.w3.org/2000/svg";
const insight = { seq: 0 };

function svg(tag, attributes, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes || {})) e.setAttribute(k, String(v));
  for (const c of children) e.append(typeof c === "string" ? document.createTextNode(c) : c);
  return e;
}

function insightKind() { return document.querySelector("input[name=insight]:checked").value; }

// The definitions of the app as choices (trend) and suggestions (funnel and retention steps).
function fillInsightChoices() {
  $("insights").hidden = false;
  const rule = $("trend-rule");
  const before = rule.value;
  rule.replaceChildren(...state.rules.map((r) => el("option", { value: r.id }, r.name || r.id)));
  if (state.rules.some((r) => r.id === before)) rule.value = before;
  fillBreakdown();
  const events = $("insight-events");
  events.replaceChildren(...state.rules.map((r) => el("option", { value: r.id, label: r.name || r.id })));
  for (const page of state.pageNames || []) events.append(el("option", { value: "page_enter:" + page, label: "entered " + page }));
  if (!$("funnel-steps").children.length) { addFunnelStep(); addFunnelStep(); }
}

// A definition that reads a value may be split by it.
function fillBreakdown() {
  const chosen = state.rules.find((r) => r.id === $("trend-rule").value);
  const select = $("trend-breakdown");
  const before = select.value;
  select.replaceChildren(el("option", { value: "" }, "nothing"), el("option", { value: "appVersion" }, "app version"));
  if (chosen && chosen.keyName) select.append(el("option", { value: chosen.keyName }, chosen.keyName));
  if ([...select.options].some((o) => o.value === before)) select.value = before;
}

function addFunnelStep() {
  const list = $("funnel-steps");
  const n = list.children.length + 1;
  const input = el("input", { list: "insight-events", class: "funnel-step", "aria-label": "step " + n, placeholder: "a definition, or TYPE:NAME" });
  const drop = el("button", { type: "button", class: "drop", "aria-label": "remove step " + n }, "\u00d7");
  const item = el("li", {}, input, drop);
  drop.addEventListener("click", () => { if (list.children.length > 2) item.remove(); });
  list.append(item);
  return input;
}

function showInsightForm() {
  const kind = insightKind();
  for (const k of ["trend", "funnel", "retention"]) $(k + "-form").hidden = k !== kind;
}

function insightRange() {
  const v = $("insight-range").value;
  if (v === "all") return { since: null };
  return { since: UTCMidnight(Date.now()) - (Number(v) - 1) * DAY };
}

function UTCMidnight(ms) { return Math.floor(ms / DAY) * DAY; }

function insightBody() {
  const kind = insightKind();
  const body = Object.assign({ app: state.app.appKey }, insightRange());
  if (kind === "trend") {
    body.rules = [$("trend-rule").value];
    body.interval = $("trend-interval").value;
    body.breakdown = $("trend-breakdown").value || null;
  } else if (kind === "funnel") {
    body.steps = [...document.querySelectorAll("#funnel-steps .funnel-step")].map((i) => i.value.trim()).filter((v) => v);
    body.within = $("funnel-within").value;
    body.by = $("funnel-by").value;
  } else {
    body.start = $("retention-start").value.trim();
    body.return = $("retention-return").value.trim();
    body.period = $("retention-period").value;
    body.by = $("retention-by").value;
  }
  return body;
}

async function runInsight() {
  const kind = insightKind();
  const seq = ++insight.seq;
  const started = performance.now();
  $("insight-state").textContent = "Counting\u2026";
  $("insight-state").dataset.state = "busy";
  let answer;
  try {
    answer = await api("POST", "/api/insights/" + kind, insightBody());
  } catch (error) {
    if (seq !== insight.seq) return;
    $("insight-state").textContent = error.message;
    $("insight-state").dataset.state = "error";
    return;
  }
  if (seq !== insight.seq) return;
  $("insight-chart").replaceChildren();
  $("insight-table").replaceChildren();
  if (kind === "trend") drawTrend(answer);
  else if (kind === "funnel") drawFunnel(answer);
  else drawRetention(answer);
  $("insight-state").textContent = "";
  $("insight-state").dataset.state = "done";
  $("insight-state").dataset.ms = String(Math.round(performance.now() - started));
  $("insight-chart").dataset.answer = JSON.stringify(answer);
}

function label(step) {
  const rule = state.rules.find((r) => "rule:" + r.id === step || r.id === step);
  return rule ? (rule.name || rule.id) : step;
}

// Lines, one per series, over the periods; the table below holds every number.
function drawTrend(answer) {
  const series = answer.rules[0] ? answer.rules[0].series : [];
  const periods = series.length ? series[0].points.map((p) => p.start) : [];
  const max = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.count)));
  const w = 640, h = 180, left = 36, bottom = 20;
  const x = (i) => left + (periods.length > 1 ? i * (w - left - 8) / (periods.length - 1) : (w - left) / 2);
  const y = (v) => 8 + (h - bottom - 8) * (1 - v / max);
  const chart = svg("svg", { viewBox: "0 0 " + w + " " + h, class: "chart trend", role: "img", "aria-label": "trend" });
  chart.append(svg("line", { x1: left, y1: y(0), x2: w - 8, y2: y(0), class: "axis" }));
  chart.append(svg("text", { x: left - 4, y: y(max) + 4, class: "tick", "text-anchor": "end" }, String(max)));
  chart.append(svg("text", { x: left - 4, y: y(0) + 4, class: "tick", "text-anchor": "end" }, "0"));
  if (periods.length) {
    chart.append(svg("text", { x: left, y: h - 4, class: "tick" }, periods[0]));
    chart.append(svg("text", { x: w - 8, y: h - 4, class: "tick", "text-anchor": "end" }, periods[periods.length - 1]));
  }
  series.forEach((s, k) => {
    const points = s.points.map((p, i) => x(i).toFixed(1) + "," + y(p.count).toFixed(1)).join(" ");
    chart.append(svg("polyline", { points, class: "series s" + (k % 6), "data-key": s.key === null ? "" : s.key }));
  });
  $("insight-chart").append(chart);
  const table = $("insight-table");
  table.append(el("thead", {}, el("tr", {}, el("th", {}, answer.interval === "week" ? "week of" : "day"),
    ...series.map((s, k) => el("th", { class: "s" + (k % 6) }, s.key === null ? (series.length > 1 ? "(none)" : "count") : s.key)))));
  const body = el("tbody");
  periods.forEach((p, i) => body.append(el("tr", { "data-period": p }, el("td", {}, p),
    ...series.map((s) => el("td", { class: "num" }, String(s.points[i].count))))));
  body.append(el("tr", { class: "total" }, el("td", {}, "total"), ...series.map((s) => el("td", { class: "num", "data-total": s.key === null ? "" : s.key }, String(s.total)))));
  table.append(body);
}

// Bars, one per step, its width the share of the first step's actors.
function drawFunnel(answer) {
  const first = answer.steps.length ? Math.max(1, answer.steps[0].actors) : 1;
  const w = 640, row = 34;
  const chart = svg("svg", { viewBox: "0 0 " + w + " " + (row * answer.steps.length + 4), class: "chart funnel", role: "img", "aria-label": "funnel" });
  answer.steps.forEach((s, i) => {
    const width = Math.max(1, (w - 220) * s.actors / first);
    chart.append(svg("rect", { x: 0, y: i * row + 4, width: width.toFixed(1), height: row - 10, class: "bar", "data-step": s.step }));
    chart.append(svg("text", { x: width + 6, y: i * row + row / 2 + 4, class: "tick" },
      (i + 1) + ". " + label(s.step) + ": " + s.actors + " (" + Math.round(s.conversion * 100) + "%)"));
  });
  $("insight-chart").append(chart);
  const table = $("insight-table");
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "step"), el("th", {}, answer.by + "s"), el("th", {}, "of the first"))));
  const body = el("tbody");
  answer.steps.forEach((s, i) => body.append(el("tr", { "data-step": s.step }, el("td", {}, String(i + 1)), el("td", {}, label(s.step)),
    el("td", { class: "num actors" }, String(s.actors)), el("td", { class: "num" }, (Math.round(s.conversion * 1000) / 10) + "%"))));
  table.append(body);
}

// A cohort table, each cell shaded by the share that came back.
function drawRetention(answer) {
  const periods = answer.cohorts.length ? answer.cohorts[0].returned.length : 0;
  const table = $("insight-table");
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "cohort"), el("th", {}, "actors"),
    ...Array.from({ length: periods }, (_, i) => el("th", {}, answer.period + " " + i)))));
  const body = el("tbody");
  for (const c of answer.cohorts) {
    const cells = c.returned.map((n) => {
      const share = c.actors ? n / c.actors : 0;
      const td = el("td", { class: "num heat-cell", title: Math.round(share * 100) + "%" }, String(n));
      td.style.backgroundColor = "rgba(21, 101, 192, " + (share * 0.8).toFixed(2) + ")";
      if (share > 0.5) td.classList.add("light");
      return td;
    });
    body.append(el("tr", { "data-cohort": c.cohort }, el("td", {}, c.cohort), el("td", { class: "num actors" }, String(c.actors)), ...cells));
  }
  table.append(body);
  if (!answer.cohorts.length) $("insight-chart").append(el("p", { class: "hint" }, "Nobody did the first event in this range."));
}

function wireInsights() {
  for (const radio of document.querySelectorAll("input[name=insight]")) radio.addEventListener("change", showInsightForm);
  $("trend-rule").addEventListener("change", fillBreakdown);
  $("funnel-add").addEventListener("click", () => { if ($("funnel-steps").children.length < 64) addFunnelStep().focus(); });
  $("insight-run").addEventListener("click", () => runInsight().catch(failed));
}
