"""The live dashboard in a real browser (Chromium through Selenium), during a run with traffic.

Usage: dashboard_check.py ADMIN_URL FORWARD_PORT [SCREENSHOT.png]

Opens the page, makes traffic through the proxy's forward rule (its upstream echoes), and
checks what a user would see: the feed goes live, the radio strip advances, the request that
woke the radio is marked with the destination its Host header names, the connection is listed,
and an outage pressed on the page reaches the proxy, appears on the strip, and ends when "End
it now" is pressed. Prints one line
per check; exits non-zero on the first that fails.
"""

import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from dashboard_browser import browser, check, console_errors, open_live, round_trip

DESTINATION = "api.dashboard.test"


def strip(driver, selector, attribute=None):
    """What the strip's elements matching `selector` hold now (their text, or `attribute`),
    read in one script: the strip is redrawn four times a second, so elements go stale."""
    read = f"e.getAttribute('{attribute}')" if attribute else "e.textContent"
    return driver.execute_script(f"return Array.from(document.querySelectorAll('#strip {selector}')).map(e => {read});")


def main():
    url, forward_port = sys.argv[1], int(sys.argv[2])
    screenshot = sys.argv[3] if len(sys.argv) > 3 else None
    driver = browser()
    try:
        wait = open_live(driver, url)
        check("the event stream is live", True)
        errors = console_errors(driver)
        check("the page loaded with no error in the console", not errors, "; ".join(errors))

        first = float(wait.until(lambda d: d.find_element(By.ID, "strip").get_attribute("data-now")))
        # A request that wakes the radio, on a connection kept open (the upstream echoes).
        connection, echoed = round_trip(forward_port, "GET / HTTP/1.1\r\nHost: " + DESTINATION + "\r\n\r\n")
        check("the request crossed the phone", echoed)

        wait.until(lambda d: float(d.find_element(By.ID, "strip").get_attribute("data-now")) > first + 1.5)
        check("the strip advances", True)
        wait.until(lambda d: len(strip(d, "path.wake")) > 0)
        labels = strip(driver, "text.wake-label")
        check("the wake-up names its destination", any(DESTINATION in label for label in labels), str(labels))
        states = set(strip(driver, "rect[data-state]", "data-state"))
        check("the strip shows the radio awake", len(states - {"IDLE"}) > 0, str(sorted(states)))

        wait.until(lambda d: DESTINATION in d.find_element(By.CSS_SELECTOR, "#connections tbody").text)
        check("the open connection is listed by its destination", True)

        form = driver.find_element(By.ID, "outage-form")
        duration = form.find_element(By.NAME, "duration")
        duration.clear()
        duration.send_keys("10m")
        Select(form.find_element(By.NAME, "mode")).select_by_visible_text("stall")
        call = form.find_element(By.CSS_SELECTOR, ".call").text
        check("the control shows the call it makes", "/outage?duration=10m&mode=stall" in call, call)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("200"))
        answer = driver.find_element(By.ID, "answer").text
        check("the proxy took the outage", '"affectedConnections" : 1' in answer, answer)
        wait.until(lambda d: len(strip(d, "line.mark[data-kind=outage]")) > 0)
        check("the outage is marked on the strip", len(strip(driver, "rect.gap")) > 0)
        # A 10-minute outage ended from the page: connectivity is back within the wait.
        driver.find_element(By.ID, "end-outage").click()
        wait.until(lambda d: '"endedAt"' in d.find_element(By.ID, "answer").text)
        wait.until(lambda d: "connectivity back" in d.find_element(By.ID, "log").text)
        check("the outage ended from the page, and the log says connectivity came back", True)
        if screenshot:
            driver.save_screenshot(screenshot)
        connection.close()
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
