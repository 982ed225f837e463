"""The live dashboard of a run of two phones in a real browser (Chromium through Selenium).

Usage: dashboard_phones_check.py ADMIN_URL PHONE1_PORT PHONE2_PORT [SCREENSHOT.png]

PHONE1_PORT and PHONE2_PORT are forward rules given to phone 1 and phone 2 (`@phone-K`), whose
upstream echoes. Checks what a user would see: one strip per phone; traffic through phone 2
wakes phone 2's radio on its strip and not phone 1's; picking phone 2 on the page points the
controls at it, and an outage pressed then reaches phone 2 and appears on its radio strip;
its timeline pauses and resumes from the page.
Prints one line per check; exits non-zero on the first that fails.
"""

import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from dashboard_browser import browser, check, open_live, round_trip


def row_states(driver, phone):
    """The radio states phone `phone`'s overview strip shows now, read in one script (the
    strips are redrawn four times a second, so elements go stale)."""
    return set(driver.execute_script(
        f"return Array.from(document.querySelectorAll('#phone-strips g[data-phone=\"{phone}\"] rect[data-state]'))"
        ".map(e => e.getAttribute('data-state'));"))


def main():
    url, phone1_port, phone2_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    screenshot = sys.argv[4] if len(sys.argv) > 4 else None
    driver = browser()
    try:
        wait = open_live(driver, url)
        wait.until(lambda d: d.find_element(By.ID, "phone-strips").get_attribute("data-phones") == "2")
        check("the page shows one strip per phone", True)
        check("both phones start IDLE", row_states(driver, 1) == {"IDLE"} and row_states(driver, 2) == {"IDLE"},
              f"{row_states(driver, 1)} {row_states(driver, 2)}")

        connection, echoed = round_trip(phone2_port, "GET / HTTP/1.1\r\nHost: phone-two.test\r\n\r\n")
        check("a request crossed phone 2", echoed)
        wait.until(lambda d: len(row_states(d, 2) - {"IDLE"}) > 0)
        check("phone 2's strip shows its radio awake", True, str(sorted(row_states(driver, 2))))
        check("phone 1's strip stays IDLE", row_states(driver, 1) == {"IDLE"}, str(sorted(row_states(driver, 1))))

        driver.execute_script("document.querySelector('#phone-strips g[data-phone=\"2\"]').dispatchEvent(new MouseEvent('click'))")
        wait.until(lambda d: d.find_element(By.ID, "phone-name").text.startswith("Phone 2"))
        check("a strip picks its phone", Select(driver.find_element(By.ID, "phone-select")).first_selected_option.text == "phone 2")
        wait.until(lambda d: "phone-two.test" in d.find_element(By.CSS_SELECTOR, "#connections tbody").text)
        check("the watched phone's connection is listed", True)

        form = driver.find_element(By.ID, "outage-form")
        duration = form.find_element(By.NAME, "duration")
        duration.clear()
        duration.send_keys("5s")
        call = form.find_element(By.CSS_SELECTOR, ".call").text
        check("the control's call names the phone", "phone=2" in call, call)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda d: d.find_element(By.ID, "answer").text.startswith("200"))
        answer = driver.find_element(By.ID, "answer").text
        check("phone 2 took the outage", '"affectedConnections" : 1' in answer, answer)
        wait.until(lambda d: len(d.execute_script("return Array.from(document.querySelectorAll('#strip rect.gap'));")) > 0)
        check("the outage is on phone 2's radio strip", True)
        wait.until(lambda d: len(d.execute_script("return Array.from(document.querySelectorAll('#phone-strips g[data-phone=\"2\"] rect.gap'));")) > 0)
        overview_gaps = driver.execute_script("return document.querySelectorAll('#phone-strips g[data-phone=\"1\"] rect.gap').length;")
        check("and on phone 2's overview strip, not phone 1's", overview_gaps == 0, str(overview_gaps))

        wait.until(lambda d: d.find_element(By.ID, "timeline-state").text == "playing")
        check("the watched phone's timeline is playing", True)
        call = driver.find_element(By.ID, "timeline-call").text
        check("the pause control shows its call", "/timeline/pause?phone=2" in call, call)
        driver.find_element(By.ID, "timeline-pause").click()
        wait.until(lambda d: d.find_element(By.ID, "timeline-state").text == "paused")
        wait.until(lambda d: "timeline paused" in d.find_element(By.ID, "log").text)
        check("the timeline paused from the page, and the log says so", True)
        driver.find_element(By.ID, "timeline-resume").click()
        wait.until(lambda d: "timeline resumed" in d.find_element(By.ID, "log").text)
        wait.until(lambda d: d.find_element(By.ID, "timeline-state").text == "playing")
        check("it resumed from the page, and plays again", driver.find_element(By.ID, "timeline-pause").is_enabled())

        other, echoed = round_trip(phone1_port, "GET / HTTP/1.1\r\nHost: phone-one.test\r\n\r\n")
        check("a request crossed phone 1", echoed)
        wait.until(lambda d: len(row_states(d, 1) - {"IDLE"}) > 0)
        check("phone 1's strip shows its radio awake", True)
        if screenshot:
            driver.save_screenshot(screenshot)
        connection.close()
        other.close()
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
