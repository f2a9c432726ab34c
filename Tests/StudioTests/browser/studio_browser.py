"""What the studio's browser drivers share: headless Chromium (Debian's chromium and
chromium-driver, through Selenium; nothing is downloaded), and what a failed step reports."""
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


CSP_LISTENER = (
    "document.addEventListener('securitypolicyviolation', (e) => console.error("
    "'CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));")


def console_errors(driver, expected=()):
    """The page's console errors since the last call (uncaught exceptions, rejected promises, failed
    requests, CSP violations), less those containing one of `expected` (refusals a task provokes)."""
    return [e["message"] for e in driver.get_log("browser")
            if e.get("level") == "SEVERE" and not any(x in e["message"] for x in expected)]


def chromium(step_timeout, height=1100):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,%d" % height,
                 "--no-first-run", "--disable-extensions", "--disable-background-networking"]:
        options.add_argument(flag)
    # Every console message is kept, so a test sees each error the page logged.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    # A Content-Security-Policy violation becomes a console error of its own, whatever the browser
    # itself logs of it (the listener is injected by DevTools, so the policy does not block it).
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_LISTENER})
    driver.set_page_load_timeout(step_timeout)
    driver.set_script_timeout(step_timeout)
    return driver


def failure(driver, seen, error):
    """Adds the error and what the page showed to `seen`."""
    seen["error"] = (str(error).strip().splitlines() or [type(error).__name__])[0]
    try:
        seen["url"] = driver.current_url
        seen["page"] = driver.find_element(By.TAG_NAME, "body").text[:300]
        seen["status"] = driver.find_element(By.ID, "status").text
        seen["defError"] = driver.find_element(By.ID, "def-error").text
    except WebDriverException:
        pass
    return seen
