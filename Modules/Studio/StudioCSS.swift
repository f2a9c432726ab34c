extension StudioAssets {
    /// `/studio.css`: the style sheet of both pages.
    static let css = #"""
    :root { --ink: #1d2430; --muted: #5b6575; --line: #d6dbe3; --accent: #1565c0; --chosen: #7b1fa2; --bad: #b3261e; --bg: #f6f7f9; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--ink); background: var(--bg); }
    h1 { font-size: 18px; margin: 0; }
    h2 { font-size: 15px; margin: 0 0 8px; }
    h3 { font-size: 13px; margin: 12px 0 6px; color: var(--muted); }
    button { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
    button:hover { border-color: var(--accent); }
    input, select { font: inherit; padding: 2px 4px; }
    code { font-size: 12px; word-break: break-all; }
    code.nowrap { white-space: nowrap; word-break: normal; }
    .hint { color: var(--muted); font-size: 12px; }
    .error { color: var(--bad); }
    header#top { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: #fff; border-bottom: 1px solid var(--line); }
    header#top #status { flex: 1; color: var(--muted); white-space: normal; overflow-wrap: anywhere; }
    header#top #status.error { color: var(--bad); }
    header#top form { margin: 0; }
    main#studio { display: grid; grid-template-columns: 260px 1fr 360px; gap: 12px; padding: 12px; align-items: start; }
    nav#browser, aside#side, section#canvas { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
    aside#side { position: sticky; top: 12px; max-height: calc(100vh - 80px); overflow: auto; }
    aside#side > section + section { border-top: 1px solid var(--line); margin-top: 12px; padding-top: 12px; }
    nav#browser > section + section { margin-top: 12px; }
    ul.choices { list-style: none; margin: 0; padding: 0; }
    ul.choices li button { width: 100%; text-align: left; margin-bottom: 4px; }
    ul.choices li button[aria-pressed="true"] { border-color: var(--accent); background: #e8f0fb; }
    .circle { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 8px; }
    .circle .on { color: var(--chosen); font-weight: 600; }
    .life { margin: 0 0 8px; }
    .life ul { margin: 2px 0 0; padding-left: 16px; }
    .pointed { margin: 6px 0 0; min-height: 1.4em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-size: 12px; }
    .note { border: 1px solid var(--chosen); border-radius: 4px; padding: 6px; margin: 6px 0; background: #f7eefa; }
    .note ul { margin: 4px 0; padding-left: 18px; }
    .axis { display: flex; justify-content: space-between; font-size: 11px; color: var(--muted); }
    details#props-panel { margin-top: 12px; border-top: 1px solid var(--line); padding-top: 8px; }
    details#props-panel summary { cursor: pointer; color: var(--muted); }
    ul.pages { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 8px; }
    ul.pages .page-name { font-size: 12px; font-weight: 600; word-break: break-all; margin-bottom: 2px; }
    ul.pages .page-name .hint { font-weight: normal; }
    ul.pages .rename-page { font-size: 11px; padding: 0 4px; font-weight: normal; }
    ul.pages .page-rename { display: flex; gap: 4px; margin-bottom: 2px; }
    ul.pages .page-rename input { flex: 1; min-width: 0; }
    ul.pages .strip { display: flex; gap: 4px; overflow-x: auto; }
    ul.pages .strip button { flex: 0 0 auto; width: 92px; padding: 4px; display: flex; flex-direction: column; align-items: center; gap: 2px; }
    ul.pages .strip button[aria-pressed="true"] { border-color: var(--accent); background: #e8f0fb; }
    ul.pages img { max-width: 100%; max-height: 70px; border: 1px solid var(--line); }
    ul.pages .strip span { font-size: 11px; }
    #canvas-bar { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 8px; }
    #canvas-bar #picture-title { flex: 1; }
    #heat-legend .ramp { display: inline-block; width: 80px; height: 10px; vertical-align: middle;
      background: linear-gradient(to right, rgba(255, 200, 0, 0.25), rgba(230, 40, 0, 0.75)); border: 1px solid var(--line); }
    #stage { position: relative; display: inline-block; max-width: 100%; outline: none; cursor: crosshair; line-height: 0; }
    #stage:focus-visible { box-shadow: 0 0 0 2px var(--accent); }
    #picture { max-width: 100%; display: block; border: 1px solid var(--line); user-select: none; }
    #heat, #selects { position: absolute; inset: 0; pointer-events: none; }
    .outline { position: absolute; pointer-events: none; border: 2px solid var(--accent); background: rgba(21, 101, 192, 0.08); }
    .outline.chosen { border-color: var(--chosen); background: rgba(123, 31, 162, 0.10); }
    .selected { position: absolute; border: 2px dashed var(--chosen); }
    .heat { position: absolute; border-radius: 2px; }
    .heat.container { border: 3px dotted; }
    .heat span { position: absolute; right: 1px; top: 1px; font: 10px/1 system-ui, sans-serif; background: #fff; padding: 1px 2px; border-radius: 2px; }
    dl#facts { display: grid; grid-template-columns: 70px 1fr; gap: 2px 8px; margin: 0 0 8px; font-size: 12px; }
    dl#facts dt { color: var(--muted); }
    dl#facts dd { margin: 0; word-break: break-all; }
    table#props { width: 100%; border-collapse: collapse; font-size: 12px; }
    table#props th, table#props td { text-align: left; border-bottom: 1px solid var(--line); padding: 2px 4px; word-break: break-all; }
    #definition label { display: block; margin: 4px 0; }
    #definition input[type="text"] { width: 100%; }
    #definition fieldset label input[type="text"] { width: 140px; }
    fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; }
    .bars { display: flex; align-items: flex-end; gap: 1px; height: 48px; border-bottom: 1px solid var(--line); }
    .bars span { flex: 1; background: var(--accent); min-height: 1px; }
    .buttons { display: flex; gap: 6px; margin-top: 8px; }
    #save { background: var(--accent); color: #fff; border-color: var(--accent); }
    ul#definitions { list-style: none; margin: 0; padding: 0; }
    ul#definitions li { border: 1px solid var(--line); border-radius: 4px; padding: 6px; margin-bottom: 6px; }
    ul#definitions li .row { display: flex; align-items: center; gap: 6px; }
    ul#definitions li .name { flex: 1; font-weight: 600; }
    ul#definitions li .count { font-variant-numeric: tabular-nums; }
    ul#definitions li svg { display: block; width: 100%; height: 24px; }
    ul#definitions li svg polyline { fill: none; stroke: var(--accent); stroke-width: 1.5; }
    ul#definitions li .warning { color: var(--bad); font-size: 12px; }
    ul#definitions li .crop { position: relative; overflow: hidden; flex: 0 0 auto; box-sizing: content-box; border: 1px solid var(--line); background: #fff; }
    ul#definitions li .crop img { position: absolute; max-width: none; max-height: none; }
    body.login { display: flex; justify-content: center; align-items: center; min-height: 100vh; }
    form#login { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 24px; width: 340px; }
    form#login label { display: block; margin: 12px 0; }
    form#login input { width: 100%; }
    @media (max-width: 1100px) { main#studio { grid-template-columns: 1fr; } }
    """#
}
