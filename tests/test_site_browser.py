"""The documentation site opened from the file system in a real browser (issue 47): headless Chromium, driven by
Selenium through Debian's chromedriver, on a site built by ``mkdocs build --strict`` into a temporary directory.

* The README and the checks page say "open site/index.html": from ``file://`` every navigation link must land on a
  page (``use_directory_urls: false``, set by Material's offline plugin; before, each link pointed to a folder and
  showed a directory listing), and search must work (its index inlined into a script, its worker run in an iframe
  by the vendored iframe-worker shim: a file:// page may not start a Web Worker).
* At 1280 px, wide tables and code blocks are readable: each one wider than the content column scrolls inside a box
  no taller than the window (so its horizontal scrollbar is on screen), and the page itself never scrolls sideways.

Chromium is a system package: ``.ci/run`` installs it on a fresh Debian machine (``apt-get install chromium
chromium-driver``).  Where it is missing, this file FAILS with the command that installs it (it never skips: a
skipped browser test would hide a broken site in CI).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ("the site's browser test needs Chromium and its driver: as root, `apt-get install -y chromium "
           "chromium-driver` (Debian; .ci/run does it), and Selenium (`pip install -e '.[test]'`)")


def _executable(name: str) -> str:
    path = shutil.which(name) or (f"/usr/bin/{name}" if os.access(f"/usr/bin/{name}", os.X_OK) else None)
    if path is None:
        pytest.fail(f"{name} not found: {INSTALL}", pytrace=False)
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `make docs` builds it (mkdocs.yml, strict), in a directory of its own."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ModuleNotFoundError:
        pytest.fail(f"selenium is not installed: {INSTALL}", pytrace=False)
    chromium, driver = _executable("chromium"), _executable("chromedriver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    # no network: without the background-networking flags Chromium keeps trying to reach Google's hosts
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,900",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        opts.add_argument(arg)
    d = webdriver.Chrome(options=opts, service=Service(driver))
    d.set_page_load_timeout(30)
    yield d
    d.quit()


def _h1(browser) -> str:
    from selenium.webdriver.common.by import By
    return browser.find_element(By.CSS_SELECTOR, ".md-content h1").text.strip()


#: navigation tab -> (the page it opens, that page's heading, its title: the nav entry's name, then the site's)
TABS = {"Getting started": ("getting-started.html", "Getting started", "Getting started - olk"),
        "Use olk on your data": ("guide/sklearn.html", "Use olk with scikit-learn", "With scikit-learn - olk"),
        "Speed": ("speed.html", "Speed", "Speed - olk")}


@pytest.mark.parametrize("tab", list(TABS))
def test_the_site_opened_from_disk_follows_navigation_links_to_their_pages(site, browser, tab):
    """From site/index.html opened as a file, a click on a navigation tab lands on that section's first page: the
    file:// URL of its .html file (not a folder), with its heading and title."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get((site / "index.html").as_uri())
    assert browser.title == "olk" and _h1(browser) == "olk — online kernel learning, reproduced"
    link = next(a for a in browser.find_elements(By.CSS_SELECTOR, "a.md-tabs__link") if a.text.strip() == tab)
    page, heading, title = TABS[tab]
    assert link.get_attribute("href") == (site / page).as_uri()
    link.click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url == (site / page).as_uri() and
                                     d.execute_script("return document.readyState") == "complete")
    assert (_h1(browser), browser.title) == (heading, title)
    assert "Index of" not in browser.page_source


def test_search_works_offline_from_disk(site, browser):
    """Material's search from file://: its worker reads the inlined index; a result opens its page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get((site / "guide" / "sklearn.html").as_uri())
    box = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    box.click()
    box.send_keys("perceptron")
    WebDriverWait(browser, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".md-search-result__item a"))
    first = browser.find_elements(By.CSS_SELECTOR, ".md-search-result__item a")[0]
    target = first.get_attribute("href")
    assert target.startswith(site.as_uri()) and ".html" in target, target
    first.click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.split("?")[0] == target.split("?")[0])
    assert "perceptron" in browser.page_source.lower() and _h1(browser) and browser.title.endswith(" - olk")


#: what the box of every table or code block wider than its column must do at 1280 px
_WIDE = """
const out = [];
for (const el of document.querySelectorAll('.md-content table, .md-content pre > code')) {
  const width = Math.max(el.scrollWidth, el.offsetWidth);
  let box = el;                     // the nearest box that clips it: the code itself, or a table's wrapper
  while (box && !(getComputedStyle(box).overflowX !== 'visible' && box.clientWidth + 1 < width)) {
    box = box.parentElement;
    if (box && box.classList.contains('md-content')) { box = null; }
  }
  const column = el.closest('.md-content__inner').clientWidth;
  // it fits the content column (a table's wrapper reaches .8rem into the column's padding on each side)
  if (!box && width <= column + 32) continue;
  const style = box ? getComputedStyle(box) : null;
  out.push({tag: el.tagName, width: width, column: column, box: box ? box.className || box.tagName : null,
            scrolls: !!style && ['auto', 'scroll'].includes(style.overflowX),
            height: box ? box.getBoundingClientRect().height : 1e9});
}
return [out, document.documentElement.scrollWidth, document.documentElement.clientWidth, window.innerHeight];
"""


@pytest.mark.parametrize("page", ["speed/latest.html", "reproduction/index.html", "reproduction/spa_tist2018.html",
                                  "getting-started.html"])
def test_wide_tables_and_code_are_readable_at_1280_px(site, browser, page):
    """Issue 47's pages: the Speed 'Latest numbers' tables, the Reproduction tables, getting-started's code.  Each
    table or code block wider than the content column scrolls inside its own box no taller than the window (its
    scrollbar on screen beside the rows; the header row and first column of a table stay put, docs/stylesheets/
    extra.css), the page never scrolls sideways, and getting-started's blocks fit the column."""
    browser.set_window_size(1280, 900)
    browser.get((site / page).as_uri())
    assert _h1(browser)                             # the page is there (no page of that name: no heading)
    wide, page_width, view_width, view_height = browser.execute_script(_WIDE)
    assert page_width <= view_width, (page, page_width, view_width)
    for w in wide:
        assert w["scrolls"] and w["height"] <= view_height, (page, w)
    if page == "getting-started.html":
        assert wide == []
    elif page == "speed/latest.html":
        assert wide                     # the raw CSV tables are wider than any screen: they scroll in their box


_FIRST_SCREEN = """
const content = document.querySelector('.md-content__inner');
const first = [...content.children].filter(el => !['H1', 'A'].includes(el.tagName))[0];
const img = content.querySelector('img');
const table = content.querySelector('table');
return {first: first.tagName + ': ' + first.textContent.slice(0, 40), firstBottom: first.getBoundingClientRect().bottom,
        imgTop: img ? img.getBoundingClientRect().top : 1e9, imgAfter: img ? first.compareDocumentPosition(img) : 0,
        tableHead: table.querySelector('th').textContent, tableWidth: Math.max(table.scrollWidth, table.offsetWidth),
        column: content.clientWidth, height: window.innerHeight};
"""


def test_the_reproduction_page_opens_on_how_close_we_came(site, browser):
    """Issue 48: at 1280 px the Reproduction page's first screen is the headline sentence (the literal count first)
    and the figure `olk report` draws of it, then the method; the Overview's verdict table fits the column (no cut,
    no sideways scroll)."""
    browser.set_window_size(1280, 900)
    browser.get((site / "reproduction" / "index.html").as_uri())
    s = browser.execute_script(_FIRST_SCREEN)
    assert s["first"].startswith("P: How close we came: "), s
    assert s["firstBottom"] < s["height"] and s["imgTop"] < s["height"], s      # both above the fold
    assert s["imgAfter"] & 4, s                                                 # the figure follows the sentence
    assert s["tableHead"] == "Table" and s["tableWidth"] <= s["column"] + 32, s
