#!/usr/bin/python3
"""A product person's whole job on an app nobody here wrote (issue 40 point 5), in headless
Chromium (Debian's chromium and chromium-driver, through Selenium; nothing is downloaded), over
the real collector's studio: phase "define" finds the page by its name, points at each control's
label and gets the control, reads its real count, saves a definition of it, renames the page and
builds a funnel of the two in the browser; phase "release" (after a release moved the first
control) finds that definition broken in the new version with a suggestion and applies it.
Prints one JSON object with what the page showed; exits 0 when every step ran, 1 with
{"failed": step, ...} otherwise. With --shots DIR, a PNG of each step is written there.

Usage: studio_release.py --url URL --token TOKEN --plan JSON --phase define|release [--shots DIR]
  plan: {"app": K, "page": PAGE, "name": NAME, "controls": [{"id": RULE, "name": N, "label": [x, y]}, ...]}
"""
import argparse
import json
import os
import sys

from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from studio_browser import chromium, console_errors, failure  # noqa: E402
from studio_tasks import Failure, Studio  # noqa: E402


class Person(Studio):
    def __init__(self, driver, args, plan):
        super().__init__(driver, args)
        self.plan = plan
        self.shots = args.shots
        self.shot_names = []

    def shot(self, name):
        """The page as it is now, for docs/studio.md."""
        if not self.shots:
            return
        path = os.path.join(self.shots, "studio-task-%s.png" % name)
        self.d.save_screenshot(path)
        self.shot_names.append(os.path.basename(path))

    def login_app(self):
        self.leave()
        self.d.get(self.args.url + "/login")
        self.until("the login page", lambda: self.d.find_elements(By.ID, "login-token"))
        self.d.find_element(By.ID, "login-token").send_keys(self.args.token)
        self.click("login-submit")
        app = '#apps button[data-app="%s"]' % self.plan["app"]
        self.until("the app listed", lambda: self.d.find_elements(By.CSS_SELECTOR, app))
        if not self.d.find_elements(By.CSS_SELECTOR, "#pages button"):
            self.d.find_element(By.CSS_SELECTOR, app).click()
        self.until("the pages listed", lambda: self.d.find_elements(By.CSS_SELECTOR, "#pages button"))

    def page_named(self, name):
        """The root of the page listed under `name` (a person reads names, not roots), or None."""
        return self.js(
            "for (const e of document.querySelectorAll('#pages li[data-page-entry]')) {"
            "  const n = e.querySelector('.page-name .name'); if (n && n.textContent === arguments[0]) return e.dataset.pageEntry; }"
            "return null;", name)

    def listed_count(self, rule_id):
        found = self.d.find_elements(By.CSS_SELECTOR, '#definitions li[data-rule="%s"] .count' % rule_id)
        return found[0].text if found else ""


def define(s):
    plan = s.plan
    seen = {"controls": []}
    s.login_app()
    s.shot("1-pages")
    s.step = "find the page by its name"
    s.until("the page named " + plan["name"], lambda: s.page_named(plan["name"]) is not None)
    page = s.page_named(plan["name"])
    seen["page"] = page
    s.open_page(page)
    for control in plan["controls"]:
        # Point at the control's label, click: the page chooses the control itself.
        x, y = control["label"]
        s.point(x, y)
        s.until("pointing at the label", lambda: s.d.find_element(By.ID, "pointed").get_attribute("data-path") != "")
        pointed = s.d.find_element(By.ID, "pointed").get_attribute("data-path")
        before = s.chosen()
        ActionChains(s.d).click().perform()
        s.until("an element chosen", lambda: s.chosen() not in ("", before) and s.d.find_element(By.ID, "def-id").is_enabled())
        got = {"pointed": pointed, "chosen": s.chosen(), "event": s.value("def-event")}
        got["facts"] = s.js("const d = document.querySelector('#facts dd[data-fact=interactions]'); return d ? d.textContent : ''")
        got["preview"] = s.preview_done()
        if control is plan["controls"][0]:
            s.shot("2-pointed")
        s.name(control["name"])
        s.d.find_element(By.ID, "def-id").clear()
        s.d.find_element(By.ID, "def-id").send_keys(control["id"])
        s.click("save")
        # Saving may ask first (another definition counts the same): the person confirms.
        s.until("saved or asked", lambda: s.text("status").startswith("Saved") or s.d.find_element(By.ID, "confirm").is_displayed())
        if s.d.find_element(By.ID, "confirm").is_displayed():
            s.click("confirm-save")
        s.saved(control["name"])
        s.until("listed with its count", lambda: "in 30 days" in s.listed_count(control["id"]))
        got["listed"] = s.listed_count(control["id"])
        seen["controls"].append(got)
    s.shot("3-saved")
    # Rename the page.
    s.step = "rename the page"
    s.d.find_element(By.CSS_SELECTOR, '#pages li[data-page-entry="%s"] .rename-page' % page).click()
    field = s.d.find_element(By.CSS_SELECTOR, '#pages li[data-page-entry="%s"] .page-name-input' % page)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(plan["rename"], Keys.ENTER)
    s.until("the page's new name", lambda: s.page_named(plan["rename"]) is not None)
    seen["renamed"] = plan["rename"]
    s.shot("4-renamed")
    # A two-step funnel of the two definitions, in the browser.
    s.step = "the funnel"
    s.d.find_element(By.ID, "insight-funnel").click()
    steps = s.d.find_elements(By.CSS_SELECTOR, "#funnel-steps .funnel-step")
    for field, control in zip(steps, plan["controls"]):
        field.clear()
        field.send_keys(control["id"])
    Select(s.d.find_element(By.ID, "funnel-within")).select_by_value("1d")
    Select(s.d.find_element(By.ID, "funnel-by")).select_by_value("device")
    Select(s.d.find_element(By.ID, "insight-range")).select_by_value("all")
    s.click("insight-run")
    s.until("the funnel drawn", lambda: s.d.find_element(By.ID, "insight-state").get_attribute("data-state") == "done")
    seen["funnel"] = [int(td.text) for td in s.d.find_elements(By.CSS_SELECTOR, "#insight-table td.actors")]
    seen["funnelBars"] = len(s.d.find_elements(By.CSS_SELECTOR, "#insight-chart svg rect.bar"))
    s.js("document.getElementById('insights').scrollIntoView()")
    s.shot("5-funnel")
    # The first definition's trend per day, and a retention table from the first to the second.
    s.step = "the trend"
    s.d.find_element(By.ID, "insight-trend").click()
    Select(s.d.find_element(By.ID, "trend-rule")).select_by_value(plan["controls"][0]["id"])
    Select(s.d.find_element(By.ID, "trend-interval")).select_by_value("day")
    s.click("insight-run")
    s.until("the trend drawn", lambda: s.d.find_element(By.ID, "insight-state").get_attribute("data-state") == "done"
            and s.d.find_elements(By.CSS_SELECTOR, "#insight-chart svg polyline"))
    seen["trendTotal"] = int(s.d.find_element(By.CSS_SELECTOR, "#insight-table tr.total td.num").text)
    seen["trendDays"] = {tr.get_attribute("data-period"): int(tr.find_element(By.CSS_SELECTOR, "td.num").text)
                         for tr in s.d.find_elements(By.CSS_SELECTOR, "#insight-table tr[data-period]")}
    s.step = "the retention"
    s.d.find_element(By.ID, "insight-retention").click()
    for field, control in [("retention-start", plan["controls"][0]), ("retention-return", plan["controls"][1])]:
        s.d.find_element(By.ID, field).clear()
        s.d.find_element(By.ID, field).send_keys(control["id"])
    Select(s.d.find_element(By.ID, "retention-by")).select_by_value("device")
    s.click("insight-run")
    s.until("the retention drawn", lambda: s.d.find_element(By.ID, "insight-state").get_attribute("data-state") == "done"
            and s.d.find_element(By.ID, "insight-chart").get_attribute("data-answer").startswith('{"period"'))
    seen["retention"] = json.loads(s.d.find_element(By.ID, "insight-chart").get_attribute("data-answer"))
    return seen


def release(s):
    plan = s.plan
    first = plan["controls"][0]["id"]
    seen = {}
    s.login_app()
    item = '#definitions li[data-rule="%s"]' % first
    s.until("the broken version flagged", lambda: s.d.find_elements(By.CSS_SELECTOR, item + " .warning.broken"))
    warning = s.d.find_element(By.CSS_SELECTOR, item + " .warning.broken")
    seen["brokenVersion"] = warning.get_attribute("data-version")
    seen["warning"] = warning.text
    seen["suggestion"] = warning.find_element(By.CSS_SELECTOR, "code.suggestion").text
    seen["healthBefore"] = s.js("return [...document.querySelectorAll(arguments[0] + ' .health .version')].map(v => v.dataset.version + ':' + v.dataset.status)", item)
    s.js("document.querySelector(arguments[0]).scrollIntoView()", item)
    s.shot("6-broken")
    warning.find_element(By.CSS_SELECTOR, "button.apply").click()
    s.until("both versions ok", lambda: s.js(
        "const v = [...document.querySelectorAll(arguments[0] + ' .health .version')]; return v.length > 1 && v.every(x => x.dataset.status === 'ok')", item))
    seen["healthAfter"] = s.js("return [...document.querySelectorAll(arguments[0] + ' .health .version')].map(v => v.dataset.version + ':' + v.dataset.status)", item)
    seen["status"] = s.text("status")
    seen["listed"] = s.listed_count(first)
    s.js("document.querySelector(arguments[0]).scrollIntoView()", item)
    s.shot("7-applied")
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--plan", required=True)
    parser.add_argument("--phase", required=True, choices=["define", "release"])
    parser.add_argument("--shots")
    parser.add_argument("--step-timeout", type=float, default=30)
    args = parser.parse_args()
    plan = json.loads(args.plan)
    driver = chromium(args.step_timeout, height=1000)
    s = Person(driver, args, plan)
    seen = {}
    try:
        seen[args.phase] = (define if args.phase == "define" else release)(s)
        seen["shots"] = s.shot_names
        seen["consoleErrors"] = console_errors(driver)
        print(json.dumps(seen))
        return 0
    except (Failure, TimeoutException, WebDriverException, KeyError, ValueError) as error:
        seen["failed"] = args.phase
        seen["step"] = s.step
        seen["consoleErrors"] = console_errors(driver)
        print(json.dumps(failure(driver, seen, error)))
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
