"""The HTML report in a real browser: headless Chromium (Debian's `chromium`, driven by Playwright
without a browser download of its own) opens a report of lint, evaluation and verify results, takes a
screenshot, and the test checks that every chart rendered with a real size, that nothing was fetched
and that the console stayed free of errors. Skips where no Chromium or no Playwright is installed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("matplotlib", reason="the report extra (matplotlib) is not installed")
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright is not installed (pip install -e '.[test-full]')")

from cudalint.cli import app  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CUDALINT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# what the brief of a closed network asks of a headless browser: no sandbox (root), no GPU, no calls home
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

pytestmark = [pytest.mark.slow,  # a browser started (`pytest -m slow`, with the test-full extra)
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium; "
                                                          "or set CUDALINT_CHROMIUM to its executable)")]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A report of the runs fixture (check json-files and eval --runs) and the recorded verify results."""
    out = tmp_path_factory.mktemp("report")
    runner = CliRunner()
    check = runner.invoke(app, ["check", str(REPO / "tests" / "fixtures" / "runs" / "kernels"), "--format",
                                "json-files"])
    assert check.exit_code == 1, check.output  # the fixture's kernels hold deliberate bugs
    (out / "check.json").write_text(check.stdout, encoding="utf-8")
    runs = runner.invoke(app, ["eval", "--runs", str(REPO / "tests" / "fixtures" / "runs"), "--format", "json"])
    assert runs.exit_code == 0, runs.output
    (out / "runs.json").write_text(runs.stdout, encoding="utf-8")
    page = out / "report.html"
    result = runner.invoke(app, ["report", str(out / "check.json"), str(out / "runs.json"),
                                 str(REPO / "benchmarks" / "results" / "verify_gpu.json"), "-o", str(page)])
    assert result.exit_code == 0, result.output
    return page


def test_the_report_renders_in_chromium(report: Path, tmp_path: Path) -> None:
    console, requests = [], []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1280, "height": 1000})
        try:
            page = browser.new_page()
            page.on("console", lambda message: console.append((message.type, message.text)))
            page.on("pageerror", lambda error: console.append(("pageerror", str(error))))
            page.on("request", lambda request: requests.append(request.url))
            page.goto(report.as_uri(), wait_until="load")
            charts = page.evaluate("""() => Array.from(document.querySelectorAll('figure.chart svg'), svg => {
                const box = svg.getBoundingClientRect();
                return {width: box.width, height: box.height, paths: svg.querySelectorAll('path').length};
            })""")
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert [entry for entry in console if entry[0] in ("error", "pageerror", "warning")] == []
    assert requests == [report.as_uri()]  # the page alone: no stylesheet, script, font or image fetched
    # the lint charts of two runs (directories, rules; and causes for the evaluation), a trend over
    # them, and verdicts for each verify step with speedups and fast_p where candidates were timed
    assert len(charts) >= 10
    for chart in charts:
        assert chart["width"] > 200 and chart["height"] > 100 and chart["paths"] > 10, chart
    assert shot.stat().st_size > 50_000  # a full page of charts and tables, not a blank one
    from PIL import Image  # matplotlib's dependency

    with Image.open(shot) as image:
        assert image.width == 1280 and image.height > 3000
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 24)) > 50
