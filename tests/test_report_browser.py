"""report.html in a real browser: headless Chromium renders it, every embedded plot decodes, and
the screenshot is a real page (not blank, the heatmap in colour, the requested size).

Skips only when no Chromium binary is installed (CI installs the Debian package `chromium`)."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from battlesim.ecs.cli import app

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
WIDTH, HEIGHT = 1280, 2400

# appended to a copy of the page (the report itself has no script): what the browser made of it
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const r = imgs.length ? imgs[0].getBoundingClientRect() : null;
  const out = {images: imgs.length,
               decoded: imgs.filter(i => i.complete && i.naturalWidth > 0 && i.naturalHeight > 0).length,
               first: r && {x: r.x, y: r.y, w: r.width, h: r.height},
               tables: document.querySelectorAll("table").length,
               width: document.documentElement.clientWidth};
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium binary on PATH (apt-get install chromium) to render report.html")


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    browser = _browser()
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("report")
    r = CliRunner().invoke(app, ["balance", "--decks", "red_vanguard,blue_tide,green_grove", "--games-per-pairing",
                                 "20", "--min-games", "5", "--seed", "1", "--out", str(out / "run"), "--quiet"])
    assert r.exit_code == 0, r.output
    return browser, out, out / "run" / "report.html"


@pytest.fixture(scope="module")
def dom(report):
    """What the browser made of the page: images and whether they decoded, the first image's box."""
    browser, out, page = report
    probe = out / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    r = _run(browser, out / "profile-dom", "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    assert '<pre id="probe">' in r.stdout, r.stdout[-2000:]
    start = r.stdout.index('<pre id="probe">') + len('<pre id="probe">')
    return json.loads(r.stdout[start:r.stdout.index("</pre>", start)].replace("&quot;", '"'))


def test_every_embedded_plot_decodes_in_the_browser(report, dom):
    _, _, page = report
    n_img = page.read_text(encoding="utf-8").count("<img ")
    assert n_img >= 4  # heatmap, first-player advantage, card forest, rounds histogram
    assert dom["images"] == n_img and dom["decoded"] == n_img
    assert dom["tables"] >= 3 and dom["width"] <= WIDTH


def test_screenshot_is_a_real_rendering(report, dom):
    browser, out, page = report
    shot = out / "report.png"
    _run(browser, out / "profile-shot", "--virtual-time-budget=10000", f"--screenshot={shot}", page.as_uri())
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)[..., :3]  # floats in [0, 1]
    assert img.shape[:2] == (HEIGHT, WIDTH)
    ink = (img < 0.9).any(axis=2)
    assert 0.03 < ink.mean() < 0.9  # text, tables and plots; neither blank nor a solid fill
    q = (img * 31).round().astype(np.int32)
    code = q[..., 0] * 1024 + q[..., 1] * 32 + q[..., 2]
    assert np.unique(code).size > 200  # antialiased text and plots, not a flat page
    # the heatmap: the page's first image, where the browser laid it out
    box = dom["first"]
    y0, x0 = int(box["y"]), int(box["x"])
    y1, x1 = min(HEIGHT, int(box["y"] + box["h"])), min(WIDTH, int(box["x"] + box["w"]))
    assert y1 - y0 > 150 and x1 - x0 > 150
    region = img[y0:y1, x0:x1]
    vivid = (region.max(axis=2) - region.min(axis=2)) > 0.25
    assert vivid.mean() > 0.05  # red and blue cells, not greys
    assert np.unique(code[y0:y1, x0:x1][vivid]).size >= 6  # several win rates, several shades
