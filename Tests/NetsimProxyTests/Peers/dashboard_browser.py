"""What the dashboard's browser checks share: headless Chromium through Selenium, a check that
prints its line and stops the script at the first failure, and a request that crosses the
proxy to its echoing upstream."""

import socket

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def browser():
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1400"):
        options.add_argument(argument)
    # The console's errors (a resource that failed to load, a script error), for `console_errors`.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def open_live(driver, url):
    """Loads the dashboard at `url` and waits until its event stream is live; returns the
    wait to use after."""
    driver.set_page_load_timeout(20)
    driver.get(url)
    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: d.find_element(By.ID, "feed").text == "live")
    return wait


def console_errors(driver):
    """The console's errors since the last call: what a user would see in red in DevTools."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + (": " + detail if detail else ""), flush=True)
    if not condition:
        raise SystemExit(1)


def round_trip(port, text):
    """Sends `text` through the proxy's forward rule on `port` (its upstream echoes) on a
    connection left open; returns the connection and whether all of it came back."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    request = text.encode()
    connection.sendall(request)
    received = b""
    while len(received) < len(request):
        chunk = connection.recv(4096)
        if not chunk:
            break
        received += chunk
    return connection, received == request
