#!/usr/bin/python3
"""Drives the studio page in headless Chromium (Debian's chromium and chromium-driver, through
Selenium; nothing is downloaded) through the tasks of a product person, on the GTK-shaped shop of
StudioUsabilityTests: each task logs in afresh, does what a person would do, and notes what the
page showed. Prints one JSON object, {task: {what it saw}, "consoleErrors": [...]}; exits 0 when
every task ran to its end, 1 with {"failed": task, "step": step, "error": ...} otherwise.

Usage: studio_tasks.py --url http://127.0.0.1:PORT --token TOKEN --tasks delete,edit,...
                       [--other http://127.0.0.1:PORT2/] [--step-timeout SECONDS]
"""
import argparse
import json
import sys

from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from studio_browser import chromium, console_errors, failure  # noqa: E402

ROW = "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow&0-0-0-0-0:"
DETAIL_SHARE = "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-1"
DETAIL_ADD = "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-2"


def row_path(r, names="", indexes=""):
    head, tail = ROW.split("&")
    return head + names + "&" + tail + str(r) + indexes


class Failure(Exception):
    pass


class Studio:
    def __init__(self, driver, args):
        self.d = driver
        self.args = args
        self.wait = WebDriverWait(driver, args.step_timeout, poll_frequency=0.1)
        self.step = "start"

    def until(self, step, condition):
        self.step = step
        try:
            return self.wait.until(lambda d: condition())
        except TimeoutException:
            raise Failure("timed out at: " + step)

    def js(self, script, *arguments):
        return self.d.execute_script(script, *arguments)

    def text(self, element_id):
        return self.d.find_element(By.ID, element_id).text

    def value(self, element_id):
        return self.d.find_element(By.ID, element_id).get_attribute("value")

    def click(self, element_id):
        self.d.find_element(By.ID, element_id).click()

    def leave(self):
        """Leaves the studio's page (its timers with it), then its session."""
        self.d.get("about:blank")
        self.d.delete_all_cookies()

    def login(self, definitions=True):
        self.leave()
        self.d.get(self.args.url + "/login")
        self.until("the login page", lambda: self.d.find_elements(By.ID, "login-token"))
        self.d.find_element(By.ID, "login-token").send_keys(self.args.token)
        self.click("login-submit")
        self.until("the app listed", lambda: self.d.find_elements(By.CSS_SELECTOR, '#apps button[data-app="shop"]'))
        # One app: the studio opens it by itself.
        self.until("the pages listed", lambda: self.d.find_elements(By.CSS_SELECTOR, "#pages button"))
        if not definitions:
            return
        self.until("the definitions listed", lambda: self.d.find_elements(By.CSS_SELECTOR, "#definitions li .count")
                   and "in 30 days" in self.d.find_element(By.CSS_SELECTOR, "#definitions li .count").text)

    def open_page(self, page):
        thumb = '#pages button[data-page="%s"]' % page
        self.until("the thumbnail of " + page, lambda: self.d.find_elements(By.CSS_SELECTOR, thumb))
        self.d.find_element(By.CSS_SELECTOR, thumb).click()
        snapshot = self.d.find_element(By.CSS_SELECTOR, thumb).get_attribute("data-snapshot")
        self.until("the picture of " + page, lambda: self.js(
            "const i = document.getElementById('picture'); return i.complete && i.naturalWidth > 0 && i.dataset.shown === arguments[0]",
            snapshot))
        self.page = page
        self.tree = self.d.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/api/snapshots/' + arguments[0], {credentials: 'same-origin'}).then(r => r.json()).then(s => done(s.tree));",
            snapshot)

    def node(self, path):
        stack = [self.tree]
        while stack:
            n = stack.pop()
            if n.get("path") == path:
                return n
            stack.extend(n.get("children", []))
        raise Failure("no node %s on %s" % (path, self.page))

    def offset(self, x, y):
        picture = self.d.find_element(By.ID, "picture")
        natural = self.js("return arguments[0].naturalWidth", picture)
        scale = picture.size["width"] / natural
        # Selenium's offsets count from the element's centre.
        return picture, int(x * scale - picture.size["width"] / 2), int(y * scale - picture.size["height"] / 2)

    def point(self, x, y):
        # The point must be in the window (a task may have scrolled it away).
        self.js("const r = document.getElementById('picture').getBoundingClientRect();"
                "if (r.top < 0 || r.bottom > window.innerHeight) window.scrollTo(0, 0);")
        picture, dx, dy = self.offset(x, y)
        ActionChains(self.d).move_to_element_with_offset(picture, dx, dy).perform()

    def chosen(self):
        found = self.d.find_elements(By.CSS_SELECTOR, '#facts dd[data-fact="path"]')
        return found[0].text if found and self.d.find_element(By.ID, "chosen").is_displayed() else ""

    def ancestors(self, path):
        """The paths from the root down to `path`'s parent."""
        def walk(n, above):
            if n.get("path") == path:
                return above
            for c in n.get("children", []):
                found = walk(c, above + [n.get("path")])
                if found is not None:
                    return found
            return None
        return walk(self.tree, []) or []

    def choose(self, path, at=None):
        """Clicks inside the node's frame (or at `at`), then goes to it with ↑ or ↓ (bounded)."""
        x, y, w, h = self.node(path)["frame"]
        px, py = at if at else (x + min(w / 2, 8), y + min(h / 2, 8))
        self.point(px, py)
        self.until("pointing inside " + path, lambda: self.d.find_element(By.ID, "pointed").get_attribute("data-path") != "")
        ActionChains(self.d).click().perform()
        self.until("an element chosen", lambda: self.chosen() != "")
        above = self.ancestors(path)
        for _ in range(12):
            if self.chosen() == path:
                break
            before = self.chosen()
            # The element pointing chose may hold the one wanted (a row around its label): go down then.
            key = Keys.ARROW_DOWN if before in above else Keys.ARROW_UP
            self.d.find_element(By.ID, "stage").send_keys(key)
            self.until("going from " + before, lambda: self.chosen() != before)
        if self.chosen() != path:
            raise Failure("going up never reached %s (at %s)" % (path, self.chosen()))

    def preview_done(self):
        """The preview of the form as it is now (the page marks it done when no newer one is due)."""
        self.until("the preview", lambda: self.d.find_element(By.ID, "preview-total").get_attribute("data-state") == "done"
                   and self.text("preview-total").isdigit())
        return self.text("preview-total")

    def edit_listed(self, rule_id):
        button = '#definitions li[data-rule="%s"] button' % rule_id
        self.until("the listed " + rule_id, lambda: self.d.find_elements(By.CSS_SELECTOR, button))
        self.d.find_element(By.CSS_SELECTOR, button).click()
        self.until("editing " + rule_id, lambda: self.value("def-id") == rule_id and self.d.find_element(By.ID, "delete").is_displayed())

    def name(self, text):
        field = self.d.find_element(By.ID, "def-name")
        field.clear()
        field.send_keys(text)

    def stored(self, rule_id):
        """The rule's viewPath as the server holds it now (null when there is none)."""
        return self.d.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch('/api/rules?app=shop', {credentials: 'same-origin'})"
            ".then(r => r.json()).then(a => { const r = a.rules.find(x => x.id === arguments[0]); done(r ? r.viewPath : null); });",
            rule_id)

    def listed(self, rule_id):
        return bool(self.d.find_elements(By.CSS_SELECTOR, '#definitions li[data-rule="%s"]' % rule_id))

    def saved(self, name):
        self.until("saved " + name, lambda: self.text("status").startswith("Saved \u201c" + name))


# ---- the tasks --------------------------------------------------------------------------------

def task_delete(s):
    s.login()
    s.edit_listed("home-open-product")
    s.click("delete")
    s.step = "the confirm box"
    s.wait.until(EC.alert_is_present())
    s.d.switch_to.alert.accept()
    s.until("deleted", lambda: not s.listed("home-open-product") or s.d.find_element(By.ID, "status").get_attribute("class") == "error")
    return {"status": s.text("status"), "listedAfter": s.listed("home-open-product")}


def task_edit(s):
    seen = {}
    s.login()
    s.edit_listed("home-open-product")
    s.open_page("GtkBox(detail)")
    s.choose(DETAIL_SHARE)
    seen["titleAfterChoosing"] = s.text("definition-title")
    seen["note"] = s.text("edit-note-text") if s.d.find_element(By.ID, "edit-note").is_displayed() else ""
    s.name("Share on product page")
    s.click("save")
    s.saved("Share on product page")
    s.until("listed", lambda: s.listed("share-on-product-page"))
    seen["firstSaved"] = s.stored("share-on-product-page")
    seen["editedAfterFirstSave"] = s.stored("home-open-product")
    # Rename: edit it, a new name, save.
    s.edit_listed("share-on-product-page")
    s.name("Share a product")
    s.click("save")
    s.step = "renamed"
    s.until("renamed", lambda: s.text("status").startswith("Saved \u201cShare a product") or s.d.find_element(By.ID, "confirm").is_displayed())
    seen["renameConfirm"] = s.d.find_element(By.ID, "confirm").is_displayed()
    s.until("the new name listed", lambda: s.d.find_elements(By.CSS_SELECTOR, '#definitions li[data-rule="share-on-product-page"] .name')
            and s.d.find_element(By.CSS_SELECTOR, '#definitions li[data-rule="share-on-product-page"] .name').text == "Share a product")
    seen["listedName"] = s.d.find_element(By.CSS_SELECTOR, '#definitions li[data-rule="share-on-product-page"] .name').text
    # Edit it, choose Add to cart, and say the edited one should count it instead.
    s.edit_listed("share-on-product-page")
    s.choose(DETAIL_ADD)
    s.until("the offer to change the edited one", lambda: s.d.find_element(By.ID, "edit-instead").is_displayed())
    s.click("edit-instead")
    s.until("editing it again", lambda: s.value("def-id") == "share-on-product-page")
    s.click("save")
    s.until("the counts before and after", lambda: s.d.find_elements(By.CSS_SELECTOR, '#confirm-list li[data-note="change"]'))
    note = s.d.find_element(By.CSS_SELECTOR, '#confirm-list li[data-note="change"]')
    seen["confirmBefore"] = note.get_attribute("data-before")
    seen["confirmAfter"] = note.get_attribute("data-after")
    seen["confirmText"] = note.text
    seen["storedAtConfirm"] = s.stored("share-on-product-page")
    s.click("confirm-save")
    s.saved("Share a product")
    return seen


def heat_boxes(s):
    s.until("the heat boxes", lambda: s.d.find_element(By.ID, "heat-legend").is_displayed()
            and s.js("return document.querySelectorAll('#heat .heat').length") > 0)
    return s.js("const out = {}; for (const b of document.querySelectorAll('#heat .heat')) out[b.dataset.path] = Number(b.querySelector('span').textContent); return out;")


def task_heatmap(s):
    seen = {}
    s.login()
    s.open_page("GtkBox(detail)")
    s.click("heat-on")
    seen["detail"] = heat_boxes(s)
    seen["detailMax"] = s.text("heat-max")
    seen["detailUnit"] = s.text("heat-unit")
    colours = s.js("return [...document.querySelectorAll('#heat .heat')].map(b => getComputedStyle(b)."
                   "getPropertyValue(b.classList.contains('container') ? 'border-top-color' : 'background-color'))")
    seen["heatColours"] = colours

    def blue(colour):
        parts = colour[colour.index("(") + 1:colour.index(")")].split(",")
        return int(float(parts[2]))
    seen["heatBlues"] = [blue(c) for c in colours if "120, 120, 120" not in c]
    s.choose(DETAIL_SHARE)
    seen["chosenBlue"] = blue(s.js("return getComputedStyle(document.getElementById('chosen')).borderTopColor"))
    s.open_page("GtkBox(cart)")
    s.until("the cart's heat", lambda: s.js("return document.querySelector('#heat .heat[data-path=\"GtkBox(cart)&0\"]') !== null"))
    seen["cart"] = heat_boxes(s)
    seen["cartOutlined"] = s.js("return document.querySelector('#heat .heat').classList.contains('container')")
    seen["cartFilled"] = s.js("const c = getComputedStyle(document.querySelector('#heat .heat')).backgroundColor;"
                              "return c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent'")
    # The home page's scroll depth beside its heatmap (issue 42's scrollmap).
    s.open_page("GtkBox(home)")
    s.until("the home page's scroll depth", lambda: s.d.find_element(By.ID, "scroll-depth").is_displayed()
            and "5 visits" in s.text("scroll-depth"))
    seen["homeScrollDepth"] = s.text("scroll-depth")
    return seen


def task_content(s):
    seen = {}
    s.login()
    s.open_page("GtkBox(home)")
    row = s.node(row_path(0))
    x, y, w, h = row["frame"]
    s.choose(row_path(0), at=(x + 2, y + h / 2))  # the row's edge, outside its frame
    s.click("case-rows-content")
    s.until("the row's content", lambda: s.value("content-rows") != "")
    seen["rowContent"] = s.value("content-rows")
    seen["rowKeyPath"] = s.value("def-keypath")
    seen["rowKeyName"] = s.value("def-keyname")
    seen["rowNote"] = s.text("content-note")
    s.until("the row's preview", lambda: "*" in s.text("def-pattern"))
    seen["rowPreview"] = s.preview_done()
    s.name("Kettle anywhere")
    s.click("save")
    s.until("saved or asked", lambda: s.text("status").startswith("Saved") or s.d.find_element(By.ID, "confirm").is_displayed())
    if s.d.find_element(By.ID, "confirm").is_displayed():
        s.click("confirm-save")
        s.saved("Kettle anywhere")
    # The ♥ button of the Kettle's row.
    fav = row_path(0, "-GtkFrame-GtkBox-GtkButton", "-0-0-0")
    s.choose(fav)
    s.click("case-exact-content")
    seen["favContent"] = s.value("content-exact")
    seen["favNote"] = s.text("content-note")
    seen["favPreview"] = s.preview_done()
    s.until("why 0", lambda: s.text("preview-why") != "")
    seen["favWhy"] = s.text("preview-why")
    # Content typed for one definition, then a new one from another element.
    field = s.d.find_element(By.ID, "content-exact")
    field.clear()
    field.send_keys("Teapot only")
    seen["typedBefore"] = s.value("content-exact")
    s.choose(row_path(1, "-GtkFrame-GtkBox-GtkLabel", "-0-0-0"))
    seen["contentAfterNew"] = s.value("content-exact")
    seen["keyPathAfterNew"] = s.value("def-keypath")
    return seen


def options(s):
    return s.js("return [...document.querySelectorAll('#def-keypath optgroup:first-of-type option')].map(o => o.textContent)")


def task_record(s):
    seen = {}
    s.login()
    s.open_page("GtkBox(home)")
    s.choose(row_path(0, "-GtkFrame-GtkBox-GtkButton", "-0-0-1"))
    seen["homeOptions"] = options(s)
    s.open_page("GtkBox(detail)")
    s.choose(DETAIL_SHARE)
    seen["detailOptions"] = options(s)
    seen["ownPropertiesFolded"] = not s.js("return document.getElementById('props-panel').open") and s.js(
        "return document.querySelectorAll('#def-keypath optgroup').length") == 2
    Select(s.d.find_element(By.ID, "def-keypath")).select_by_value("parent.parent.parent.label")
    seen["keyName"] = s.value("def-keyname")
    s.name("Share with product")
    s.click("save")
    s.saved("Share with product")
    return seen


def task_keys(s):
    seen = {}
    s.login()
    s.open_page("GtkBox(home)")
    # Pointing does not touch the side panel.
    s.js("window.__mutations = 0; new MutationObserver(m => { window.__mutations += m.length; })"
         ".observe(document.getElementById('side'), {subtree: true, childList: true, characterData: true, attributes: true});")
    for path in [row_path(0, "-GtkFrame-GtkLabel", "-0-0"), row_path(1), row_path(2, "-GtkFrame-GtkBox-GtkButton", "-0-0-1")]:
        x, y, w, h = s.node(path)["frame"]
        s.point(x + 3, y + 3)
        s.until("pointing at " + path, lambda: s.d.find_element(By.ID, "pointed").get_attribute("data-path") != "")
    seen["pointed"] = s.text("pointed")
    seen["sideMutationsWhilePointing"] = s.js("return window.__mutations")
    # A row, then the choice "every row like this" (focus on it), then ↑: the parent, the choice kept.
    row = s.node(row_path(0))
    s.choose(row_path(0, "-GtkFrame", "-0"))
    seen["formTop"] = s.js("const side = document.getElementById('side'); return Math.round(document.getElementById('definition')"
                           ".getBoundingClientRect().top - side.getBoundingClientRect().top + side.scrollTop)")
    seen["propsOpen"] = s.js("return document.getElementById('props-panel').open")
    s.click("case-rows")
    s.d.find_element(By.ID, "case-rows").send_keys(Keys.ARROW_UP)
    s.until("the parent chosen", lambda: s.chosen() == row_path(0))
    seen["radioAfterArrow"] = s.js("return document.querySelector('input[name=case]:checked').value")
    seen["chosenAfterArrow"] = s.chosen()
    # Another page: nothing of this one's element stays.
    s.open_page("GtkBox(detail)")
    seen["factsAfterPageSwitch"] = s.js("return document.querySelectorAll('#facts dd').length")
    # Share: one tap stored: "1 interaction", dates under the bars, values as a person reads them.
    s.choose(DETAIL_SHARE)
    seen["previewUnitOfOne"] = (s.preview_done(), s.text("preview-unit"))[1]
    seen["previewAxis"] = s.js("return [...document.querySelectorAll('#preview-axis span')].map(e => e.textContent)")
    s.until("the values", lambda: s.d.find_elements(By.CSS_SELECTOR, "#preview-values li"))
    seen["values"] = s.js("return [...document.querySelectorAll('#preview-values li')].map(e => e.textContent)")
    seen["trendAxis"] = s.js("return [...document.querySelectorAll('#definitions li .trend .axis span')].map(e => e.textContent).slice(0, 2)")
    # Saved, then an error: the status says the error alone, whole.
    s.name("Share here")
    s.click("save")
    s.saved("Share here")
    s.click("new")
    s.name("Share here")
    s.click("save")
    s.until("the error", lambda: "in use" in s.text("def-error") or "in use" in s.text("status")
            or s.d.find_element(By.ID, "confirm").is_displayed())
    if s.d.find_element(By.ID, "confirm").is_displayed():
        s.click("confirm-save")
        s.until("the error", lambda: "in use" in s.text("def-error") or "in use" in s.text("status"))
    seen["statusAfterError"] = s.text("status")
    seen["errorShown"] = s.text("def-error") or s.text("status")
    # Edit from the list brings the form into view.
    s.js("document.getElementById('side').scrollTop = 100000; window.scrollTo(0, 100000);")
    s.edit_listed("home-open-product")
    s.until("the form in view", lambda: s.js(
        "const f = document.getElementById('definition').getBoundingClientRect(); const side = document.getElementById('side').getBoundingClientRect();"
        "return f.top >= Math.max(0, side.top) - 1 && f.top < Math.min(window.innerHeight, side.bottom) - 40"))
    seen["formInViewAfterEdit"] = True
    # A definition selecting what "Open product from list" selects: said before saving.
    s.open_page("GtkBox(home)")
    x, y, w, h = row["frame"]
    s.choose(row_path(0), at=(x + 2, y + h / 2))
    s.click("case-rows")
    s.until("the rows pattern", lambda: "*" in s.text("def-pattern"))
    s.name("Rows again")
    s.click("save")
    s.until("the same-selection note", lambda: s.d.find_elements(By.CSS_SELECTOR, '#confirm-list li[data-note="same"]'))
    seen["sameNote"] = s.d.find_element(By.CSS_SELECTOR, '#confirm-list li[data-note="same"]').text
    # The login page's sentence keeps `serve --admin-token` on one line.
    s.leave()
    s.d.get(s.args.url + "/login")
    s.until("the login page", lambda: s.d.find_elements(By.CSS_SELECTOR, "form#login code"))
    seen["loginCodeLines"] = s.js("return document.querySelector('form#login code').getClientRects().length")
    return seen


def task_circle(s):
    seen = {}
    s.login()
    s.click("circle-on")
    s.until("circle mode on", lambda: s.d.find_element(By.ID, "circle-life").is_displayed())
    seen["before"] = s.text("circle-life")
    s.until("a picture since", lambda: s.d.find_element(By.ID, "circle-life").get_attribute("data-pictures") not in (None, "", "0"))
    seen["afterPictures"] = s.d.find_element(By.ID, "circle-life").get_attribute("data-pictures")
    seen["after"] = s.text("circle-life")
    seen["devices"] = [li.get_attribute("data-device") for li in s.d.find_elements(By.CSS_SELECTOR, "#circle-life li")]
    return seen


def task_devices(s):
    """Circle mode turned on in the page; a real agent picks it up: the devices that sent a picture since."""
    seen = {}
    s.login(definitions=False)
    s.click("circle-on")
    s.until("circle mode on", lambda: s.d.find_element(By.ID, "circle-life").is_displayed())
    seen["before"] = s.text("circle-life")
    s.until("a device listed", lambda: s.d.find_element(By.ID, "circle-life").get_attribute("data-devices") not in (None, "", "0"))
    seen["after"] = s.text("circle-life")
    seen["devices"] = [li.get_attribute("data-device") for li in s.d.find_elements(By.CSS_SELECTOR, "#circle-life li")]
    return seen


def task_pages(s):
    """Pages by name, once each, with their newest picture per version as a strip."""
    seen = {}
    s.login()
    # Each definition with a crop of its element on the newest picture of its page.
    crop = '#definitions li[data-rule="home-open-product"] .crop'
    s.until("the definition's crop", lambda: s.d.find_elements(By.CSS_SELECTOR, crop))
    seen["crop"] = s.js("const c = document.querySelector(arguments[0]); const i = c.querySelector('img');"
                        "return {snapshot: c.dataset.snapshot, path: c.dataset.crop, size: [c.offsetWidth, c.offsetHeight],"
                        "top: i.style.top, width: i.style.width, loaded: i.complete && i.naturalWidth > 0,"
                        "name: c.parentElement.querySelector('.name').textContent}", crop)
    entries = s.d.find_elements(By.CSS_SELECTOR, "#pages li[data-page-entry]")
    seen["entries"] = [e.get_attribute("data-page-entry") for e in entries]
    home = '#pages li[data-page-entry="GtkBox(home)"] .strip button'
    seen["homeStrip"] = [b.get_attribute("data-version") for b in s.d.find_elements(By.CSS_SELECTOR, home)]
    seen["homeCounts"] = [b.find_element(By.CSS_SELECTOR, ".hint").text for b in s.d.find_elements(By.CSS_SELECTOR, home)]
    seen["homeSnapshots"] = [b.get_attribute("data-snapshot") for b in s.d.find_elements(By.CSS_SELECTOR, home)]
    s.open_page("GtkBox(home)")
    seen["openedTitle"] = s.text("picture-title")
    Select(s.d.find_element(By.ID, "versions")).select_by_value("1.2.0")
    # Read in the page in one go: the list is drawn anew when the version changes.
    strip = lambda: s.js("return [...document.querySelectorAll(arguments[0])].map((b) => b.dataset.version)", home)
    s.until("the strip of 1.2.0 only", lambda: strip() == ["1.2.0"])
    seen["filteredStrip"] = strip()
    # A person names the home page; the list shows the name, also after logging in again.
    entry = '#pages li[data-page-entry="GtkBox(home)"]'
    s.d.find_element(By.CSS_SELECTOR, entry + " .rename-page").click()
    field = s.d.find_element(By.CSS_SELECTOR, entry + " .page-name-input")
    seen["renameStartsWith"] = field.get_attribute("value")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("Home page", Keys.ENTER)
    name = lambda: s.js("const n = document.querySelector(arguments[0]); return n ? n.textContent : null", entry + " .page-name .name")
    s.until("the page's new name", lambda: name() == "Home page")
    seen["status"] = s.text("status")
    s.login()
    s.until("the name after logging in again", lambda: name() is not None)
    seen["nameAfterLogin"] = name()
    seen["rootHint"] = s.js("return document.querySelector(arguments[0]).textContent", entry + " .page-name .hint")
    return seen


def task_logout(s):
    seen = {}
    s.login()
    # A page on another port of this host posts a form to /logout as it loads.
    s.d.get(s.args.other)
    s.until("the other page's form sent", lambda: s.d.current_url.endswith("/logout"))
    seen["otherPageSubmitted"] = True
    s.d.get(s.args.url + "/")
    s.until("a page", lambda: s.d.find_elements(By.ID, "studio") or s.d.find_elements(By.ID, "login-token"))
    seen["stillLoggedIn"] = bool(s.d.find_elements(By.ID, "studio"))
    if seen["stillLoggedIn"]:
        s.until("the studio's logout", lambda: s.d.find_elements(By.CSS_SELECTOR, "#logout button"))
        s.d.find_element(By.CSS_SELECTOR, "#logout button").click()
        s.until("the login page", lambda: s.d.find_elements(By.ID, "login-token"))
        seen["afterLogout"] = "login"
        seen["apiAfterLogout"] = s.d.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch('/api/apps', {credentials: 'same-origin'}).then(r => done(r.status));")
    return seen


# What a task provokes on purpose: the id in use (keys), the other page's refused logout and the
# API's 401 after logging out (logout).
EXPECTED_REFUSALS = {"keys": ["status of 409"], "logout": ["status of 403", "status of 415", "status of 401"]}

def task_pick(s):
    """Issue 40 point 1: the page chooses the element the API's pick names, and says its interactions."""
    seen = {"points": []}
    s.login()
    share_label = DETAIL_SHARE.replace("&", "-GtkLabel&") + "-0"
    for page, path, dx, dy in [("GtkBox(detail)", share_label, None, None),  # Share's own label
                               ("GtkBox(home)", row_path(0, "-GtkFrame-GtkLabel", "-0-0"), None, None),  # the row's name
                               ("GtkBox(home)", row_path(1, "-GtkFrame-GtkBox-GtkLabel", "-0-0-0"), None, None),  # a price
                               ("GtkBox(detail)", "GtkBox(detail)&0", 470, 290)]:  # the page's empty corner
        if getattr(s, "page", None) != page:
            s.open_page(page)
        x, y, w, h = s.node(path)["frame"]
        px, py = (dx, dy) if dx is not None else (x + 3, y + 3)
        s.point(px, py)
        s.until("pointing", lambda: s.d.find_element(By.ID, "pointed").get_attribute("data-path") != "")
        ActionChains(s.d).click().perform()
        s.until("chosen", lambda: s.chosen() != "")
        snapshot = s.d.find_element(By.CSS_SELECTOR, '#pages button[data-page="%s"]' % page).get_attribute("data-snapshot")
        api = s.d.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch('/api/snapshots/' + arguments[0] + '/pick?x=' + arguments[1] + '&y=' + arguments[2],"
            " {credentials: 'same-origin'}).then(r => r.json()).then(done);", snapshot, px, py)
        facts = s.js("const d = document.querySelector('#facts dd[data-fact=interactions]'); return d ? d.textContent : ''")
        seen["points"].append({"under": path, "page": s.chosen(), "api": api, "facts": facts, "event": s.value("def-event")})
    # A preview of 0 on an element nobody tapped says so.
    s.open_page("GtkBox(detail)")
    s.choose("GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-0")
    seen["zero"] = s.preview_done()
    s.until("why 0", lambda: s.text("preview-why") != "")
    seen["zeroWhy"] = s.text("preview-why")
    return seen


def task_scale(s):
    """Issue 40's performance check: 500 definitions listed, a picture of 2,000 nodes pointed at."""
    import time
    seen = {}
    started = time.monotonic()
    s.login()
    counted = lambda: s.js("return [...document.querySelectorAll('#definitions li .count')].filter(c => c.textContent.includes('in 30 days')).length")
    s.until("every definition counted", lambda: counted() >= 500)
    s.until("every definition's health", lambda: s.js("return document.querySelectorAll('#definitions li .health').length") >= 500)
    seen["listSeconds"] = round(time.monotonic() - started, 2)
    seen["definitions"] = s.js("return document.querySelectorAll('#definitions li').length")
    seen["counted"] = counted()
    started = time.monotonic()
    s.open_page("GtkBox(big)")
    seen["openSeconds"] = round(time.monotonic() - started, 2)
    seen["nodes"] = s.js("return state.nodes.length")
    # The hover handler's own time per pointer move (in the page, without WebDriver's round trip).
    times = s.js(
        "const stage = document.getElementById('stage'); const r = document.getElementById('picture').getBoundingClientRect();"
        "const out = []; for (let i = 0; i < 60; i++) { const x = r.left + (i * 37 % 100) / 100 * r.width, y = r.top + (i * 53 % 100) / 100 * r.height;"
        "  const t = performance.now(); stage.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true})); out.push(performance.now() - t); }"
        "return out;")
    times.sort()
    seen["hoverMedianMs"] = round(times[len(times) // 2], 2)
    seen["hoverMaxMs"] = round(times[-1], 2)
    started = time.monotonic()
    s.choose("GtkBox(big)-GtkBox-GtkButton&0-3-7")
    s.preview_done()
    seen["chooseSeconds"] = round(time.monotonic() - started, 2)
    started = time.monotonic()
    s.click("heat-on")
    s.until("the heatmap", lambda: s.d.find_element(By.ID, "heat-legend").is_displayed() and s.d.find_elements(By.CSS_SELECTOR, "#heat .heat"))
    seen["heatmapSeconds"] = round(time.monotonic() - started, 2)
    seen["heatBoxes"] = len(s.d.find_elements(By.CSS_SELECTOR, "#heat .heat"))
    return seen


TASKS = {"pick": task_pick, "delete": task_delete, "edit": task_edit, "heatmap": task_heatmap, "content": task_content, "record": task_record,
         "keys": task_keys, "circle": task_circle, "devices": task_devices, "pages": task_pages, "logout": task_logout, "scale": task_scale}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--other", help="a page of another origin (logout task)")
    parser.add_argument("--step-timeout", type=float, default=20)
    args = parser.parse_args()

    driver = chromium(args.step_timeout, height=1000)
    seen = {}
    name = "start"
    s = Studio(driver, args)
    try:
        errors = []
        for name in args.tasks.split(","):
            seen[name] = TASKS[name](s)
            # The page's own errors; the refusals a task provokes on purpose are none.
            errors += console_errors(driver, EXPECTED_REFUSALS.get(name, []))
        seen["consoleErrors"] = errors
        print(json.dumps(seen))
        return 0
    except (Failure, TimeoutException, WebDriverException, KeyError, ValueError) as error:
        seen["failed"] = name
        seen["step"] = s.step
        print(json.dumps(failure(driver, seen, error)))
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
