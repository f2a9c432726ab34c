/// The studio's static files, served from the binary (nothing is loaded from elsewhere): the
/// pages' HTML here, the style sheet in StudioCSS.swift, the script in StudioJavaScript.swift.
/// The pages hold no inline script or style, so the Content-Security-Policy can be `'self'` only.
enum StudioAssets {
    /// The studio itself (`GET /`): apps, pictures, definitions; studio.js does the rest.
    static let studioHTML = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Autotrack Studio</title>
    <link rel="stylesheet" href="/studio.css">
    <link rel="icon" href="/favicon.svg" type="image/svg+xml">
    <script src="/studio.js" defer></script>
    </head>
    <body>
    <header id="top">
      <h1>Autotrack Studio</h1>
      <span id="status" role="status" aria-live="polite"></span>
      <form id="logout" method="post" action="/logout"><button type="submit">Log out</button></form>
    </header>
    <main id="studio">
      <nav id="browser" aria-label="Apps, versions and pages">
        <section>
          <h2>Apps</h2>
          <ul id="apps" class="choices"></ul>
          <p id="no-apps" class="hint" hidden>No app has sent anything yet. Start an agent, then turn circle mode on for its app key.</p>
        </section>
        <section id="app-panel" hidden>
          <h2 id="app-title"></h2>
          <div id="circle" class="circle">
            <span id="circle-state"></span>
            <label>for <select id="circle-minutes">
              <option value="15">15 minutes</option><option value="30" selected>30 minutes</option>
              <option value="60">1 hour</option><option value="240">4 hours</option>
            </select></label>
            <button type="button" id="circle-on">Turn circle mode on</button>
            <button type="button" id="circle-off">Turn it off</button>
          </div>
          <div id="circle-life" class="hint life" role="status" aria-live="polite" hidden></div>
          <label>Version <select id="versions"></select></label>
          <h3>Pages</h3>
          <ul id="pages" class="pages"></ul>
          <p id="no-pages" class="hint" hidden>No pictures yet: with circle mode on, open the app; each page it shows appears here.</p>
        </section>
      </nav>

      <section id="canvas" aria-label="The page's picture">
        <div id="canvas-bar">
          <span id="picture-title" class="hint">Choose a page on the left.</span>
          <label><input type="checkbox" id="heat-on"> Heatmap</label>
          <label>over <select id="heat-range">
            <option value="1">the last day</option><option value="7">the last 7 days</option>
            <option value="30" selected>the last 30 days</option><option value="90">the last 90 days</option>
            <option value="custom">from … to …</option>
          </select></label>
          <span id="heat-custom" hidden>
            <input type="date" id="heat-since" aria-label="from"> – <input type="date" id="heat-until" aria-label="to">
          </span>
          <span id="heat-legend" hidden><span class="ramp"></span> <span id="heat-min">0</span>–<span id="heat-max">0</span> <span id="heat-unit">interactions</span></span>
          <span id="scroll-depth" hidden></span>
        </div>
        <div id="stage" tabindex="0" aria-label="Picture: point at an element; wheel or arrow keys go to its parent or child; click to choose it">
          <img id="picture" alt="">
          <div id="heat"></div>
          <div id="selects"></div>
          <div id="hover" class="outline" hidden></div>
          <div id="chosen" class="outline chosen" hidden></div>
        </div>
        <p id="pointed" class="pointed" aria-live="polite"></p>
        <p class="hint">Point at an element. Wheel up or ↑ (or P): its parent; wheel down or ↓ (or C): back to the child. Click: choose it. Esc: let go.</p>
      </section>

      <aside id="side" aria-label="The element and its definition">
        <section id="facts-panel">
          <h2>Element</h2>
          <p id="no-element" class="hint">Click an element on the picture to choose it.</p>
          <dl id="facts"></dl>
        </section>

        <section id="definition" hidden>
          <h2 id="definition-title">New definition</h2>
          <div id="edit-note" class="note" role="status" hidden>
            <span id="edit-note-text"></span>
            <button type="button" id="edit-instead"></button>
          </div>
          <label>Name <input type="text" id="def-name" placeholder="Add to cart"></label>
          <p id="rename-hint" class="hint" hidden>Change the name and save to rename it; its id stays.</p>
          <label>Id <input type="text" id="def-id" placeholder="add-to-cart"></label>
          <label>Counts <select id="def-event">
            <option>ButtonClick</option><option>ListItemClick</option><option>ViewTap</option><option>ValueChanged</option>
            <option>PageEnter</option><option>PageLeave</option><option>Scroll</option><option>Impression</option>
          </select></label>
          <fieldset id="cases">
            <legend>Which interactions count</legend>
            <label><input type="radio" name="case" value="exact" id="case-exact" checked> this element</label>
            <label><input type="radio" name="case" value="rows" id="case-rows"> every row like this</label>
            <label><input type="radio" name="case" value="exact-content" id="case-exact-content"> only when it shows
              <input type="text" id="content-exact" aria-label="what it shows"></label>
            <label><input type="radio" name="case" value="rows-content" id="case-rows-content"> wherever
              <input type="text" id="content-rows" aria-label="what is shown"> is shown</label>
            <p id="content-note" class="hint"></p>
          </fieldset>
          <label>Also record <select id="def-keypath"><option value="">nothing</option></select></label>
          <label>as <input type="text" id="def-keyname" placeholder="productId"></label>
          <label>App versions <input type="text" id="def-version" value="*"></label>
          <p>Pattern: <code id="def-pattern"></code></p>
          <div id="preview">
            <h3>Preview: the last 30 days</h3>
            <p><strong id="preview-total">–</strong> <span id="preview-unit">interactions</span>; <span id="preview-selects"></span></p>
            <p id="preview-why" class="hint" role="status"></p>
            <div id="preview-days" class="bars"></div>
            <div id="preview-axis" class="axis"></div>
            <ol id="preview-values"></ol>
          </div>
          <p id="def-error" class="error" role="alert"></p>
          <div id="confirm" class="note" role="alertdialog" aria-labelledby="confirm-title" hidden>
            <strong id="confirm-title">Before saving</strong>
            <ul id="confirm-list"></ul>
            <button type="button" id="confirm-save">Save anyway</button>
            <button type="button" id="confirm-cancel">Cancel</button>
          </div>
          <div class="buttons">
            <button type="button" id="save">Save</button>
            <button type="button" id="delete" hidden>Delete</button>
            <button type="button" id="new">New</button>
          </div>
        </section>

        <details id="props-panel">
          <summary>All its properties (<span id="props-count">0</span>)</summary>
          <table id="props"><thead><tr><th>key path</th><th>value</th></tr></thead><tbody></tbody></table>
        </details>

        <section id="definitions-panel" hidden>
          <h2>Definitions</h2>
          <ul id="definitions"></ul>
          <p id="no-definitions" class="hint" hidden>None yet: choose an element and save it.</p>
        </section>
      </aside>
    </main>
    </body>
    </html>
    """#

    /// The login form (`GET /login`); `<!--MESSAGE-->` is where a failed login's sentence goes.
    static let loginHTML = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Autotrack Studio: log in</title>
    <link rel="stylesheet" href="/studio.css">
    <link rel="icon" href="/favicon.svg" type="image/svg+xml">
    </head>
    <body class="login">
    <form id="login" method="post" action="/login">
      <h1>Autotrack Studio</h1>
      <p>Give the collector's admin token (<code class="nowrap">serve --admin-token</code>).</p>
      <label>Admin token <input type="password" id="login-token" name="token" autocomplete="current-password" required autofocus></label>
      <button type="submit" id="login-submit">Log in</button>
      <!--MESSAGE-->
    </form>
    </body>
    </html>
    """#

    /// `/favicon.svg`: a circled dot, the studio's mark.
    static let faviconSVG = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6.5" fill="none" stroke="#e65100" stroke-width="2"/><circle cx="8" cy="8" r="2" fill="#1565c0"/></svg>"##
}
