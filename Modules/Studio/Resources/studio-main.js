"use strict";

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
  wireInsights();
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
