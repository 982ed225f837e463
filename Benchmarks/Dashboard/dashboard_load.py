"""The load of Benchmarks/Dashboard/dashboard-cost.sh.

dashboard_load.py requests PORT SECONDS: an HTTP/1.0 request through the proxy every 0.5 s.
dashboard_load.py page URL SECONDS: the dashboard open in headless Chromium (Selenium).
"""

import socket
import sys
import time


def requests(port, seconds):
    end = time.time() + seconds
    while time.time() < end:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(b"GET /index.html HTTP/1.0\r\nHost: api.example.com\r\n\r\n")
            while connection.recv(65536):
                pass
        time.sleep(0.5)


def page(url, seconds):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1300"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url)
        time.sleep(seconds)
    finally:
        driver.quit()


if __name__ == "__main__":
    if sys.argv[1] == "requests":
        requests(int(sys.argv[2]), float(sys.argv[3]))
    else:
        page(sys.argv[2], float(sys.argv[3]))
