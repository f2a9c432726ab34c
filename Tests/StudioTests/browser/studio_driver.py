#!/usr/bin/python3
"""Drives the studio page in headless Chromium (Debian's chromium and chromium-driver, through
Selenium; nothing is downloaded): logs in with the admin token, opens a page's picture, hovers an
element, circles a list row, chooses "every row like this", waits for the preview, saves the
definition and checks that it is listed. Prints one JSON object with what it saw; exits 0 when
every step passed, 1 with {"failed": step, "error": ...} otherwise.

Usage: studio_driver.py --url http://127.0.0.1:PORT --token TOKEN --app KEY --page PAGE
                        --name NAME [--screenshot FILE] [--step-timeout SECONDS]
"""
import argparse
import json
import sys
import time

from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from studio_browser import chromium, console_errors, failure  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--app", required=True)
    parser.add_argument("--page", required=True, help="the page name whose picture has list rows")
    parser.add_argument("--name", required=True, help="the definition's display name")
    parser.add_argument("--screenshot")
    parser.add_argument("--step-timeout", type=float, default=20)
    args = parser.parse_args()

    driver = chromium(args.step_timeout)
    seen = {}
    step = "start"
    try:
        wait = WebDriverWait(driver, args.step_timeout, poll_frequency=0.1)

        step = "login"
        driver.get(args.url + "/")
        wait.until(lambda d: d.find_elements(By.ID, "login-token"))
        driver.find_element(By.ID, "login-token").send_keys(args.token)
        driver.find_element(By.ID, "login-submit").click()
        app_button = '#apps button[data-app="%s"]' % args.app
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, app_button))
        seen["cookieHttpOnly"] = all(c.get("httpOnly") for c in driver.get_cookies())
        seen["scriptSeesCookie"] = driver.execute_script("return document.cookie") != ""

        step = "choose the app"
        driver.find_element(By.CSS_SELECTOR, app_button).click()
        thumb = '#pages button[data-page="%s"]' % args.page
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, thumb))

        step = "open the picture"
        driver.find_element(By.CSS_SELECTOR, thumb).click()
        wait.until(lambda d: d.execute_script(
            "const i = document.getElementById('picture'); return i.complete && i.naturalWidth > 0 && "
            "document.getElementById('picture-title').textContent.startsWith(arguments[0])", args.page))
        snapshot_id = driver.find_element(By.CSS_SELECTOR, thumb).get_attribute("data-snapshot")
        tree = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/api/snapshots/' + arguments[0], {credentials: 'same-origin'}).then(r => r.json()).then(s => done(s.tree));",
            snapshot_id)

        # The first list row of the picture: a node whose path ends in a cell index `s:r`.
        def rows(node, out):
            path = node.get("path", "")
            if ":" in path.rsplit("&", 1)[-1].split("-")[-1] and node.get("frame"):
                out.append(node)
            for child in node.get("children", []):
                rows(child, out)
            return out
        candidates = rows(tree, [])
        if not candidates:
            raise RuntimeError("the picture of %s has no list row (no path ending in s:r)" % args.page)
        row = candidates[0]
        seen["row"] = row["path"]

        step = "hover"
        picture = driver.find_element(By.ID, "picture")
        shown = picture.size["width"]
        natural = driver.execute_script("return arguments[0].naturalWidth", picture)
        scale = shown / natural
        x, y, w, h = row["frame"]
        # Selenium's offsets count from the element's centre.
        dx = (x + w / 2) * scale - picture.size["width"] / 2
        dy = (y + min(h / 2, 12)) * scale - picture.size["height"] / 2
        ActionChains(driver).move_to_element_with_offset(picture, int(dx), int(dy)).perform()
        # What the pointer is on is said on the picture's own line (the side panel shows the chosen one).
        wait.until(lambda d: d.find_element(By.ID, "hover").is_displayed()
                   and d.find_element(By.ID, "pointed").get_attribute("data-path"))
        seen["hovered"] = driver.find_element(By.ID, "pointed").get_attribute("data-path")

        step = "circle the row"
        ActionChains(driver).click().perform()
        wait.until(lambda d: d.find_element(By.ID, "chosen").is_displayed())
        # The pointer rests on the deepest element; go up to the row itself (bounded).
        for _ in range(12):
            chosen = driver.find_element(By.CSS_SELECTOR, '#facts dd[data-fact="path"]').text
            if chosen == row["path"]:
                break
            driver.find_element(By.ID, "stage").send_keys(Keys.ARROW_UP)
        seen["chosen"] = driver.find_element(By.CSS_SELECTOR, '#facts dd[data-fact="path"]').text
        if seen["chosen"] != row["path"]:
            raise RuntimeError("going up from %s never reached the row %s" % (seen["hovered"], row["path"]))

        step = "every row like this"
        driver.find_element(By.ID, "case-rows").click()
        wait.until(lambda d: "*" in d.find_element(By.ID, "def-pattern").text)
        seen["pattern"] = driver.find_element(By.ID, "def-pattern").text

        step = "preview"
        wait.until(lambda d: d.find_element(By.ID, "preview-total").text.isdigit()
                   and len(d.find_elements(By.CSS_SELECTOR, "#selects .selected")) > 1)
        seen["previewTotal"] = int(driver.find_element(By.ID, "preview-total").text)
        seen["highlighted"] = len(driver.find_elements(By.CSS_SELECTOR, "#selects .selected"))
        seen["previewDays"] = len(driver.find_elements(By.CSS_SELECTOR, "#preview-days span"))

        step = "save"
        name = driver.find_element(By.ID, "def-name")
        name.clear()
        name.send_keys(args.name)
        rule_id = driver.find_element(By.ID, "def-id").get_attribute("value")
        seen["id"] = rule_id
        driver.find_element(By.ID, "save").click()

        step = "listed"
        listed = '#definitions li[data-rule="%s"]' % rule_id
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, listed)
                   and "in 30 days" in d.find_element(By.CSS_SELECTOR, listed + " .count").text)
        seen["listedName"] = driver.find_element(By.CSS_SELECTOR, listed + " .name").text
        seen["listedCount"] = driver.find_element(By.CSS_SELECTOR, listed + " .count").text
        seen["warning"] = bool(driver.find_elements(By.CSS_SELECTOR, listed + " .warning"))

        step = "heatmap"
        driver.find_element(By.ID, "heat-on").click()
        wait.until(lambda d: d.find_element(By.ID, "heat-legend").is_displayed())
        time.sleep(0.3)
        seen["heatBoxes"] = len(driver.find_elements(By.CSS_SELECTOR, "#heat .heat"))

        step = "screenshot"
        if args.screenshot:
            # The page from its top, the side panel on the definition and its preview, for the docs.
            driver.execute_script("window.scrollTo(0, 0); document.getElementById('side').scrollTop = "
                                  "document.getElementById('definition').offsetTop - 12;")
            time.sleep(0.2)
            driver.save_screenshot(args.screenshot)
            seen["screenshot"] = args.screenshot
        seen["consoleErrors"] = console_errors(driver)
        print(json.dumps(seen))
        return 0
    except (TimeoutException, WebDriverException, RuntimeError, KeyError) as error:
        seen["failed"] = step
        print(json.dumps(failure(driver, seen, error)))
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
