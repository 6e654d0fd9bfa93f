"""The website: built in fast mode, every internal link and image resolves, and headless
Chromium opens the home page, a notebook page and the API page without console errors.

The build reuses the notebook executions of ``test_notebooks.py`` (the ``site`` marker runs
these tests last); screenshots go to ``.cache/docs-shots/``.
"""

from __future__ import annotations

import base64
import functools
import http.server
import importlib.util
import json
import posixpath
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / ".cache" / "docs-shots"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--remote-debugging-port=0", "--window-size=1280,1600")


def _build_site_module():
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "docs" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------- links

class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and tag in ("a", "img", "link", "script", "source"):
                self.refs.append((tag, attrs[key]))


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def broken_links(site: Path) -> list[str]:
    """``page: tag -> target (why)`` for every internal link or image that does not resolve."""
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    broken = []
    for page, parsed in pages.items():
        url = page.relative_to(site).as_posix()
        for tag, ref in parsed.refs:
            scheme = urlparse(ref).scheme
            if scheme in ("http", "https", "mailto", "data", "javascript") or ref.startswith("//"):
                continue
            ref_path, fragment = urldefrag(ref)
            ref_path = unquote(urlparse(ref_path).path)
            if not ref_path:
                path = page
            else:
                joined = ref_path.lstrip("/") if ref_path.startswith("/") else \
                    posixpath.join(posixpath.dirname(url), ref_path)
                path = site / posixpath.normpath(joined or ".")
                if path.is_dir():
                    path = path / "index.html"
            if not path.is_file():
                broken.append(f"{url}: <{tag}> {ref} (no such file)")
            elif fragment and path.suffix == ".html" and fragment not in pages[path].ids:
                broken.append(f"{url}: <{tag}> {ref} (no anchor #{fragment} in "
                              f"{path.relative_to(site).as_posix()})")
    return broken


# ----------------------------------------------------------------------------- Chromium

class _DevTools:
    """A minimal Chrome DevTools Protocol client for one page target."""

    def __init__(self, ws_url: str) -> None:
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, event: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        if any(e.get("method") == event for e in self.events):
            return
        self.ws.settimeout(5)
        while time.monotonic() < deadline:
            try:
                msg = json.loads(self.ws.recv())
            except Exception:  # websocket timeout: keep waiting until the deadline
                continue
            self.events.append(msg)
            if msg.get("method") == event:
                return
        raise TimeoutError(f"no {event} within {timeout} s")

    def console_errors(self) -> list[str]:
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                out.append(details.get("exception", {}).get("description") or details["text"])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                                "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", "")))
                                    for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                entry = params["entry"]
                out.append(f"{entry.get('text')} {entry.get('url', '')}".strip())
        return out

    def close(self) -> None:
        self.ws.close()


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("the browser test needs Chromium: apt-get install -y chromium "
                    "(.ci/run installs it)")
    return exe


@pytest.fixture(scope="module")
def site(mirror, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    return _build_site_module().build(full=False, site=out)


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser(server):
    profile = Path(tempfile.mkdtemp(prefix="stebkit-chromium-"))
    proc = subprocess.Popen([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while not port_file.is_file() or not port_file.read_text().strip():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            err = proc.stderr.read().decode(errors="replace")[-2000:]
            pytest.fail(f"Chromium did not start: {err}")
        time.sleep(0.2)
    port = int(port_file.read_text().split()[0])
    yield port
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(profile, ignore_errors=True)


def _open(port: int, url: str, shot: str) -> tuple[_DevTools, list[str]]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank",
                                     method="PUT")
    with urllib.request.urlopen(request, timeout=30) as resp:
        target = json.load(resp)
    tools = _DevTools(target["webSocketDebuggerUrl"])
    for domain in ("Page", "Runtime", "Log"):
        tools.call(f"{domain}.enable")
    tools.call("Emulation.setDeviceMetricsOverride", width=1280, height=1600,
               deviceScaleFactor=1, mobile=False)
    tools.call("Page.navigate", url=url)
    tools.wait_for("Page.loadEventFired")
    time.sleep(1.0)  # let the theme's scripts run (search index, code copy buttons)
    png = tools.call("Page.captureScreenshot", format="png")["data"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / shot).write_bytes(base64.b64decode(png))
    return tools, tools.console_errors()


def _js(tools: _DevTools, expression: str):
    return tools.call("Runtime.evaluate", expression=expression,
                      returnByValue=True)["result"].get("value")


# ----------------------------------------------------------------------------- tests

@pytest.mark.site
def test_site_has_every_page(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("index.html")}
    expected = {"index.html", "teaching/index.html", "api/index.html", "cli/index.html",
                "datasets/index.html", "leaderboard/index.html"}
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    expected |= {f"notebooks/{p.stem}/index.html" for p in notebooks}
    assert expected <= pages, f"missing pages: {sorted(expected - pages)}"
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    # Generated from docstrings: a function's signature and its docstring's example.
    assert "all_to_all_pairs" in api and "load_suite" in api
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    from stebkit.cli import COMMANDS

    for name in COMMANDS:
        assert f"stebkit {name}" in cli
    catalogue = (site / "datasets" / "index.html").read_text(encoding="utf-8")
    from stebkit.datasets import list_datasets

    missing = [n for n in list_datasets() if f"<code>{n}</code>" not in catalogue]
    assert not missing, f"datasets missing from the catalogue page: {missing[:5]}"


@pytest.mark.site
def test_every_internal_link_and_image_resolves(site):
    broken = broken_links(site)
    assert not broken, "broken internal links:\n" + "\n".join(broken[:40])


def test_link_checker_names_the_page(tmp_path):
    (tmp_path / "index.html").write_text('<a href="about/">ok</a><img src="fig.png">'
                                         '<a href="#top">t</a><h1 id="top">T</h1>')
    (tmp_path / "about").mkdir()
    (tmp_path / "about" / "index.html").write_text('<a href="../index.html#nowhere">x</a>'
                                                   '<a href="https://example.org/">e</a>')
    assert sorted(broken_links(tmp_path)) == [
        "about/index.html: <a> ../index.html#nowhere (no anchor #nowhere in index.html)",
        "index.html: <img> fig.png (no such file)"]


@pytest.mark.site
def test_pages_render_in_chromium_without_console_errors(site, server, browser):
    checks = {"home.png": "", "notebook.png": "notebooks/00_quickstart/", "api.png": "api/"}
    for shot, path in checks.items():
        tools, errors = _open(browser, server + path, shot)
        try:
            assert not errors, f"{path or 'home page'}: console errors {errors}"
            title = _js(tools, "document.title")
            assert "stebkit" in title, f"{path}: unexpected title {title!r}"
            if shot == "notebook.png":
                # Executed outputs are on the page: text outputs and figures that decoded.
                n_out = _js(tools, "document.querySelectorAll('.jp-OutputArea-output').length")
                figures = _js(tools, "Array.from(document.querySelectorAll("
                                     "'.jp-OutputArea-output img')).filter("
                                     "i => i.complete && i.naturalWidth > 100).length")
                assert n_out >= 10, f"{path}: only {n_out} output areas"
                assert figures >= 1, f"{path}: no rendered figure"
                # A second screenshot with the first figure in view, for a person to look at.
                _js(tools, "document.querySelector('.jp-OutputArea-output img')"
                           ".scrollIntoView({block: 'center'})")
                time.sleep(0.5)
                png = tools.call("Page.captureScreenshot", format="png")["data"]
                (SHOTS / "notebook-figure.png").write_bytes(base64.b64decode(png))
            if shot == "api.png":
                n_doc = _js(tools, "document.querySelectorAll('.doc-function').length")
                assert n_doc >= 20, f"{path}: only {n_doc} documented functions"
        finally:
            tools.close()
        assert (SHOTS / shot).stat().st_size > 10_000


def test_failing_notebook_names_notebook_and_cell(tmp_path, monkeypatch):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    build_site = _build_site_module()
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    nb = new_notebook(cells=[new_markdown_cell("# 99 · broken"), new_code_cell("x = 1"),
                             new_code_cell("1 / 0  # oops")])
    path = tmp_path / "notebooks" / "99_broken.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    with pytest.raises(build_site.BuildError,
                       match=r"notebooks/99_broken\.ipynb: cell 3 \('1 / 0  # oops'\) failed: "
                             r"ZeroDivisionError: division by zero"):
        build_site.execute_notebook(path, full=False, output=tmp_path / "out.ipynb")
    assert not (tmp_path / "out.ipynb").exists()


def test_missing_mirror_names_notebook_and_cell(tmp_path, monkeypatch):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    build_site = _build_site_module()
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    monkeypatch.setenv("STEBKIT_MIRROR", str(tmp_path / "no-mirror"))
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    nb = new_notebook(cells=[new_code_cell("import stebkit"), new_code_cell(
        'stebkit.load_dataset("federalist-authorship", smoke=True)')])
    path = tmp_path / "notebooks" / "98_data.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    with pytest.raises(build_site.BuildError,
                       match=r"notebooks/98_data\.ipynb: cell 2 .* failed: DataUnavailable"):
        build_site.execute_notebook(path, full=False, output=tmp_path / "out.ipynb")


def test_solutions_cover_every_exercise():
    build_site = _build_site_module()
    for prefix in build_site.TEACHING_NOTEBOOKS:
        (path,) = build_site.notebook_paths(f"{prefix}_*.ipynb")
        nb = json.loads(path.read_text(encoding="utf-8"))
        exercises = build_site.exercises_cell(nb)
        numbered = [line for line in exercises.splitlines() if line[:3] in
                    {f"{i}. " for i in range(1, 10)}]
        assert 2 <= len(numbered) <= 3, f"{path.name}: {len(numbered)} exercises"
        sections = build_site.solution_sections(build_site.SOLUTIONS / f"{path.stem}.py")
        assert [s[0].split(":")[0] for s in sections] == \
            [f"Exercise {i}" for i in range(1, len(numbered) + 1)], path.name


@pytest.mark.notebook
@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "solutions").glob("*.py")),
                         ids=lambda p: p.stem)
def test_solution_runs_in_fast_mode(path, monkeypatch, tmp_path):
    import runpy

    monkeypatch.setenv("STEBKIT_FAST", "1")
    monkeypatch.setenv("STEBKIT_FIGURES", str(tmp_path))
    monkeypatch.chdir(ROOT / "notebooks")
    import matplotlib.pyplot as plt

    try:
        runpy.run_path(str(path), run_name="__main__")  # the solutions assert their answers
    finally:
        plt.close("all")
