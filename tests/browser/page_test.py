#!/usr/bin/env python3
"""The game page (web/) in a real browser: Debian's chromium, headless,
driven by puppeteer-core (tests/browser/web_page.mjs, one launch for the
whole run), axe-core for accessibility.

check_page(browser, url, make_move, revoke, ...) is the test of one page;
it needs only the page's address and a way to make a move (and one to
revoke the link), so it runs against the mock here (tests/browser/
mock_server.py: the contract's URLs, state.json, events and headers) and
against the real bot the same way.  It checks: the board, the players and
the log shown; a move updates the page without a reload (a marker set in
the page survives); the replay back and forth with the keys, the buttons
and the slider, the highlighted log line following; a move while
replaying ("1 new move", back to live); screenshots at 1280 and 360 px
(no horizontal scroll at 360); axe-core with no serious or critical
violation at both widths; no console error or CSP violation; the page
without JS (title, status, text board); a revoked link: "no longer
available" on the open page, 404 for a new visit.

usage: page_test.py [--shots DIR] [--bot ./tabula] [test-name ...]
Screenshots go under DIR (default: build/browser-shots).  With --bot, also
test_page_bot: the same check_page against the real bot on the console
(its posted link, `play 1` as the move, `game web reset` as the revoke),
for every game; and test_page_discord: against the bot on the fake
Discord (the link under the first board, /play, `/game web reset`).
"""
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402
from browser import Browser, missing  # noqa: E402
from mock_server import MockServer, labels_from_readme  # noqa: E402

BIN = None
SHOTS = os.path.join(TOP, "build", "browser-shots")
WEB_BUDGET = 60 * 1024

# what the page shows, in one look
INFO_JS = """(() => {
  const b = document.body, q = (s) => document.querySelector(s);
  const box = q('#log'), cur = [...document.querySelectorAll('#log li.cur')];
  const vis = (el) => { if (!el) return false; const r = el.getBoundingClientRect(),
    o = box.getBoundingClientRect(); return r.top >= o.top - 1 && r.bottom <= o.bottom + 1; };
  const img = q('#pic');
  return {
    at: +b.dataset.at, positions: +b.dataset.positions, live: b.dataset.live,
    loading: !!b.dataset.loading, gone: !!b.dataset.gone,
    title: q('h1').textContent, status: q('#status').textContent,
    lang: document.documentElement.lang,
    players: [...document.querySelectorAll('#players li')].map((li) => ({
      name: li.querySelector('.name').textContent, turn: li.classList.contains('turn'),
      now: li.querySelector('.now') ? li.querySelector('.now').textContent : '',
      text: li.textContent })),
    img: { src: img.getAttribute('src'), ok: img.complete && img.naturalWidth > 0,
           alt: img.alt, width: img.getBoundingClientRect().width },
    text: q('#text').textContent,
    log: box.children.length,
    cur: cur.map((li) => +li.dataset.at),
    ats: [...box.children].map((li) => +li.dataset.at),
    curVisible: cur.length ? vis(cur[0]) : null,
    slider: { value: +q('#pos').value, max: +q('#pos').max,
              valuetext: q('#pos').getAttribute('aria-valuetext') },
    where: q('#where').textContent, news: q('#news').textContent,
    tolive: !q('#tolive').hidden, replay: !q('#replay').hidden,
    goneText: q('#gone').hidden ? '' : q('#gone').textContent,
    marker: window.__tabulaMarker || null,
    scrollWidth: document.documentElement.scrollWidth,
  };
})()"""


CUR_VISIBLE_JS = """(() => {
  const li = document.querySelector('#log li.cur');
  if (!li) return true;
  const r = li.getBoundingClientRect(), o = document.getElementById('log').getBoundingClientRect();
  return r.top >= o.top - 1 && r.bottom <= o.bottom + 1;
})()"""


def settled(at=None, positions=None):
    """A JS condition: the page shows position `at` (and knows `positions`)."""
    c = ["document.body.dataset.at !== undefined", "!document.body.dataset.loading"]
    if at is not None:
        c.append("document.body.dataset.at === '%d'" % at)
    if positions is not None:
        c.append("document.body.dataset.positions === '%d'" % positions)
    c.append("document.getElementById('pic').complete")
    return " && ".join(c)


def check_log(i, what):
    """The log lines that led to the position shown (those of the last
    position at or before it that has lines), and only they, are
    highlighted, and in the log's view."""
    told = [a for a in i["ats"] if a <= i["at"]]
    mark = max(told) if told else None
    due = [a for a in i["ats"] if a == mark]
    assert i["cur"] == due, "%s: highlighted %s at %d (%s due)" % (what, i["cur"], i["at"], due)
    if due:
        assert i["curVisible"], "%s: the highlighted line is scrolled out of its box" % what


def axe_report(violations, where):
    """The driver fails on serious and critical ones; the others are told."""
    for v in violations:
        print("  axe (%s): %s %s: %s %s" % (where, v["impact"], v["id"], v["help"], v["nodes"]))


def step_to(b, at, what, keys=None, click=None):
    if keys:
        b.step("key", key=keys)
    if click:
        b.step("click", sel=click)
    b.wait(settled(at=at))
    i = b.eval(INFO_JS)
    assert i["at"] == at and i["slider"]["value"] == at, "%s: %s" % (what, i)
    assert i["img"]["src"].endswith("board.png?at=%d" % at), "%s: picture %s" % (what, i["img"])
    check_log(i, what)
    return i


def check_page(b, url, make_move, revoke=None, shots=None, name="page", check_axe=True,
               live_status=None):
    """The page at url in browser b (a game of 3 positions or more).
    make_move() makes a move in the game and returns once it is made (AI
    moves after it are fine: the page counts what it is told); revoke()
    takes the link away (None: not checked); live_status(), when given, is
    the game's status line now.  Screenshots go to shots/<name>-<width>.png.
    Returns (the timings in s of its parts, the screenshots' paths).
    Raises AssertionError."""
    t = {}
    for part, run in (
            ("open", lambda: _open(b, url)),
            ("live", lambda: _live(b, make_move)),
            ("replay", lambda: _replay(b)),
            ("replaying-move", lambda: _replaying_move(b, make_move, live_status)),
            ("layout", lambda: _layout(b, shots, name, check_axe)),
            ("nojs", lambda: _nojs(b, url)),
            ("revoke", lambda: revoke and _revoke(b, url, revoke, check_axe))):
        t0 = time.monotonic()
        out = run()
        t[part] = time.monotonic() - t0
        if part == "layout":
            shots_made = out
    return t, shots_made


def _open(b, url):
    b.step("media", features=[{"name": "prefers-reduced-motion", "value": "reduce"}])
    b.step("viewport", width=1280, height=900)
    b.step("errors")
    r = b.step("goto", url=url)
    assert r["status"] == 200, "the page: HTTP %s" % r["status"]
    b.wait(settled())
    i = b.eval(INFO_JS)
    last = i["positions"] - 1
    assert last >= 2, "the game needs 3 positions or more to step through: %s" % i
    assert i["at"] == last and i["live"] == "1", "opens at the latest position: %s" % i
    assert i["title"].strip() and i["status"].strip(), "title and status: %s" % i
    assert len(i["players"]) >= 2 and all(p["name"].strip() for p in i["players"]), i["players"]
    for p in i["players"]:
        # whose turn: marked by more than colour (a word beside the name)
        assert bool(p["now"].strip()) == p["turn"], p
    assert i["img"]["ok"] and i["img"]["alt"].strip(), "the picture: %s" % i["img"]
    assert i["text"].strip(), "the text board is empty"
    assert i["log"] > 0, "the log is empty"
    assert i["replay"] and not i["tolive"] and not i["news"], i
    check_log(i, "the latest position")


def _live(b, make_move):
    """A move: the page follows, without a reload."""
    last = b.eval(INFO_JS)["positions"] - 1
    b.eval("window.__tabulaMarker = 'kept'")
    make_move()
    b.wait(settled() + " && +document.body.dataset.positions > %d && "
           "document.body.dataset.at === String(+document.body.dataset.positions - 1)"
           % (last + 1), timeout=10000)
    i = b.eval(INFO_JS)
    assert i["marker"] == "kept", "the page was reloaded"
    assert i["slider"]["max"] == i["positions"] - 1 and i["live"] == "1", i
    check_log(i, "after a move")


def _replay(b):
    """Keys, buttons, slider; the log's highlight follows."""
    last = b.eval(INFO_JS)["positions"] - 1
    b.eval("document.activeElement && document.activeElement.blur()")
    i = step_to(b, last - 1, "ArrowLeft", keys="ArrowLeft")
    assert i["live"] == "0" and i["tolive"], "replaying, with a way back to live: %s" % i
    step_to(b, last - 2, "the previous button", click="#prev")
    step_to(b, last - 1, "the next button", click="#next")
    b.eval("document.activeElement && document.activeElement.blur()")
    step_to(b, last - 2, "ArrowLeft again", keys="ArrowLeft")
    i = step_to(b, 0, "Home", keys="Home")
    assert i["slider"]["valuetext"] == i["where"] and i["where"].strip(), i
    # a key held down: one position shown in the end, the last asked
    b.step("key", key="ArrowRight", times=min(5, last))
    step_to(b, min(5, last), "ArrowRight five times")
    i = step_to(b, last, "End", keys="End")
    assert i["live"] == "1" and not i["tolive"], "back at the latest: live again: %s" % i
    b.step("focus", sel="#pos")
    step_to(b, last - 1, "the slider's ArrowLeft", keys="ArrowLeft")
    step_to(b, 0, "the slider's Home", keys="Home")
    step_to(b, 1, "the slider's ArrowRight", keys="ArrowRight")
    b.eval("(() => { const s = document.getElementById('pos'); s.value = 2;"
           " s.dispatchEvent(new Event('input', {bubbles: true})); })()")
    step_to(b, 2, "the slider dragged")
    assert b.eval("window.__tabulaMarker") == "kept", "the replay reloaded the page"


def _replaying_move(b, make_move, live_status):
    """A move while replaying: the slider grows, the position stays."""
    left = last = b.eval(INFO_JS)["positions"] - 1
    make_move()
    b.wait("+document.body.dataset.positions > %d" % (last + 1), timeout=10000)
    b.wait("document.getElementById('news').textContent !== ''")
    i = b.eval(INFO_JS)
    last = i["positions"] - 1
    assert i["at"] == 2 and i["slider"]["max"] == last and i["live"] == "0", i
    assert str(last - left) in i["news"], "the new moves told: %r" % i["news"]
    if live_status:
        # the status line tells the latest position's, the picture stays
        b.wait("document.getElementById('status').textContent === %s" % json.dumps(
            live_status()))
    i = step_to(b, last, "back to live", click="#tolive")
    assert i["live"] == "1" and not i["news"] and not i["tolive"], i


def _layout(b, shots, name, check_axe):
    """Both widths, accessibility at both, no console error."""
    made = []
    if shots:
        made.append(b.step("screenshot", name="%s-1280" % name))
    if check_axe:
        axe_report(b.step("axe"), "1280 px")
    b.step("viewport", width=360, height=740)
    b.wait(settled())
    # the page keeps the highlighted line in the log's new box on resize
    b.wait(CUR_VISIBLE_JS)
    i = b.eval(INFO_JS)
    assert i["scrollWidth"] <= 360, "horizontal scroll at 360 px: %d" % i["scrollWidth"]
    assert i["img"]["width"] <= 360, "the picture is wider than the phone: %s" % i["img"]
    check_log(i, "at 360 px")
    if shots:
        made.append(b.step("screenshot", name="%s-360" % name))
    if check_axe:
        axe_report(b.step("axe"), "360 px")
    b.step("viewport", width=1280, height=900)
    errs = b.step("errors")
    assert not errs, "console errors or CSP violations: %s" % errs
    return made


def _nojs(b, url):
    """Without JS: the server's own text."""
    b.step("js", enabled=False)
    try:
        r = b.step("goto", url=url)
        assert r["status"] == 200
        nojs = b.eval("({t: document.querySelector('h1').textContent,"
                      " s: document.getElementById('status').textContent,"
                      " x: document.getElementById('text').textContent,"
                      " r: document.getElementById('replay').hidden})")
        assert nojs["t"].strip() and nojs["s"].strip() and nojs["x"].strip() and nojs["r"], nojs
    finally:
        b.step("js", enabled=True)


def _revoke(b, url, revoke, check_axe):
    """The link revoked: the open page says so, a new visit finds nothing."""
    b.step("goto", url=url)
    b.wait(settled())
    revoke()
    b.wait("document.body.dataset.gone === '1'", timeout=10000)
    i = b.eval(INFO_JS)
    assert i["goneText"].strip() and not i["replay"], i
    if check_axe:
        axe_report(b.step("axe"), "gone")
    r = b.step("goto", url=url)
    assert r["status"] == 404, "a revoked link: HTTP %s" % r["status"]
    b.step("errors")


# --- against the mock
_browser = None


def browser():
    """One chromium for every test of the run."""
    global _browser
    if _browser is None:
        _browser = Browser(SHOTS)
    return _browser


def test_web_files():
    """web/: small, no inline script or style, only the contract's
    placeholders, every label in web/README.md."""
    web = os.path.join(TOP, "web")
    size = sum(os.path.getsize(os.path.join(web, f)) for f in ("page.html", "page.css", "page.js"))
    assert size <= WEB_BUDGET, "web/ is %d bytes, over %d" % (size, WEB_BUDGET)
    with open(os.path.join(web, "page.html"), encoding="utf-8") as f:
        page = f.read()
    assert not re.search(r"<script(?![^>]*\bsrc=)", page), "an inline script"
    assert "<style" not in page and " style=" not in page, "inline style"
    assert not re.search(r"\son[a-z]+=", page), "an inline event handler"
    assert not re.search(r"(src|href)=\"(https?:)?//", page), "something from elsewhere"
    labels = labels_from_readme()
    keys = set(re.findall(r"\{\{t:([a-z_]+)\}\}", page))
    for k in set(re.findall(r"\{\{([^}]*)\}\}", page)):
        assert k in ("lang", "title", "base", "board_text", "status_text") or \
            k.startswith("t:"), "a placeholder not in the contract: %s" % k
    with open(os.path.join(web, "page.js"), encoding="utf-8") as f:
        js = f.read()
    fallbacks = js[js.index("var L = {"):js.index("};", js.index("var L = {"))]
    keys |= set(re.findall(r"\b([a-z_]+):", fallbacks))
    for k in keys:
        assert k in labels["en"] and labels["es"].get(k), "label %s not in web/README.md" % k
    for k, en in labels["en"].items():
        if ("%s:" % k) in fallbacks:
            assert "'%s'" % en in fallbacks, "page.js's fallback for %s is not %r" % (k, en)
        for ph in re.findall(r"\{[a-z]+\}", en):
            assert ph in labels["es"][k], "%s: the Spanish text lost %s" % (k, ph)


def test_page_mock():
    """The whole page test against the mock, in English."""
    srv = MockServer().start()
    try:
        tok = "mockTokenEnglish0123456789abc"
        url = srv.add_game(tok, positions=8)

        moves = []

        def make_move():
            assert srv.viewers(tok) >= 1, "the page is not listening to its events"
            # the second time, as if an AI moved right after: two positions
            moves.append(srv.move(tok, n=len(moves) + 1))

        g = srv.games[tok]
        t, shots = check_page(browser(), url, make_move, lambda: srv.revoke(tok),
                              shots=SHOTS, name="mock",
                              live_status=lambda: g.status_text(g.positions - 1))
        for s in shots:
            assert os.path.getsize(s) > 1000, s
        print("  parts (s): " + ", ".join("%s %.2f" % kv for kv in t.items()))
        # the browser asked only what the contract names
        ok = re.compile(r"^/(static/page\.(css|js)|favicon\.ico|g/%s(/state\.json(\?at=\d+)?"
                        r"|/board\.png(\?at=\d+)?|/events)?)$" % tok)
        for path, status in srv.requests:
            assert ok.match(path), "an address outside the contract: %s" % path
    finally:
        srv.stop()


def test_page_spanish():
    """A Spanish room's page: lang, labels from the table, the position's words."""
    srv = MockServer().start()
    try:
        url = srv.add_game("mockTokenSpanish0123456789abc", lang="es", positions=5)
        b = browser()
        b.step("viewport", width=1280, height=900)
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=4))
        i = b.eval(INFO_JS)
        es = labels_from_readme()["es"]
        assert i["lang"] == "es" and i["status"].startswith("Juega"), i
        assert i["where"] == es["move_of"].replace("{n}", "4").replace("{last}", "4"), i["where"]
        assert b.eval("document.getElementById('h-players').textContent") == es["players"]
        assert any(es["turn"] in p["text"] for p in i["players"]), i["players"]
        b.step("key", key="Home")
        b.wait(settled(at=0))
        assert b.eval("document.getElementById('where').textContent") == es["start"]
        assert b.eval("document.getElementById('mode-text').textContent") == es["replaying"]
        b.step("axe")
        assert not b.step("errors")
    finally:
        srv.stop()


def test_finished_game():
    """A finished game: the winner in words, nobody to play, no live badge;
    still replayable."""
    srv = MockServer().start()
    try:
        url = srv.add_game("mockTokenFinished0123456789ab", positions=6, finished=True)
        b = browser()
        b.step("viewport", width=1280, height=900)
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=5))
        i = b.eval(INFO_JS)
        assert not any(p["turn"] or p["now"] for p in i["players"]), i["players"]
        won = b.eval("[...document.querySelectorAll('#players .win')].map((e) => e.textContent)")
        assert len(won) == 1 and "Winner" in won[0], won
        assert b.eval("getComputedStyle(document.getElementById('mode')).display") == "none"
        b.step("screenshot", name="finished-1280", full=False)
        i = step_to(b, 4, "replaying a finished game", keys="ArrowLeft")
        assert sum(p["turn"] for p in i["players"]) == 1, i["players"]
        assert not b.step("errors")
    finally:
        srv.stop()


def test_busy_server():
    """A 429 (the bot's rate limit) or a 500: the page says so, tries again,
    and shows the position asked once the server answers."""
    srv = MockServer().start()
    try:
        url = srv.add_game("mockTokenBusy0123456789abcdef", positions=6)
        b = browser()
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=5))
        srv.fail_next = [429]
        b.eval("document.activeElement && document.activeElement.blur()")
        b.step("key", key="ArrowLeft")
        b.wait("!document.getElementById('conn').hidden")
        step_to(b, 4, "after a 429")
        assert b.eval("document.getElementById('conn').hidden"), "the notice stays"
        errs = b.step("errors")
        assert len(errs) == 1 and "429" in errs[0], errs
    finally:
        srv.stop()


PIC_OK = "document.getElementById('pic').complete && document.getElementById('pic').naturalWidth > 0"


def png_asks(srv, tok):
    """The board.png requests so far: [(query, status)]."""
    pre = "/g/%s/board.png" % tok
    return [(p[len(pre):], st) for p, st in list(srv.requests) if p.startswith(pre)]


def test_picture_once_on_open():
    """Opening at the latest position: the page's own <img> (the no-JS
    picture) is kept, not fetched again as board.png?at=N; the next move
    brings board.png?at=N+1."""
    srv = MockServer().start()
    try:
        tok = "mockTokenPicOnce0123456789abcd"
        url = srv.add_game(tok, positions=6)
        b = browser()
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=5) + " && " + PIC_OK)
        assert png_asks(srv, tok) == [("", 200)], png_asks(srv, tok)
        assert b.eval("document.getElementById('pic').getAttribute('src')") == \
            "/g/%s/board.png" % tok
        assert b.eval("document.getElementById('pic').alt").strip()
        srv.move(tok)
        b.wait(settled(at=6) + " && " + PIC_OK)
        assert png_asks(srv, tok) == [("", 200), ("?at=6", 200)], png_asks(srv, tok)
        assert not b.step("errors")
    finally:
        srv.stop()


def test_picture_busy_503():
    """board.png answers 503 (the bot's paint budget): the page asks again
    after about half a second, then longer, and shows the picture once it
    comes, never a broken one; the same when the page's own <img> got the
    503 at open."""
    srv = MockServer().start()
    try:
        tok = "mockTokenPicBusy0123456789abcd"
        url = srv.add_game(tok, positions=6)
        b = browser()
        b.step("errors")
        srv.fail_png = [503]
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=5) + " && " + PIC_OK, timeout=10000)
        assert png_asks(srv, tok) == [("", 503), ("?at=5", 200)], png_asks(srv, tok)
        # stepping back: two 503s, then the picture
        srv.fail_png = [503, 503]
        b.eval("document.activeElement && document.activeElement.blur()")
        t0 = time.monotonic()
        b.step("key", key="ArrowLeft")
        b.wait("document.body.dataset.at === '4' && !document.body.dataset.loading && "
               + PIC_OK + " && document.getElementById('pic').src.endsWith('?at=4')",
               timeout=10000)
        took = time.monotonic() - t0
        asks = png_asks(srv, tok)[2:]
        assert asks == [("?at=4", 503), ("?at=4", 503), ("?at=4", 200)], asks
        # 0.5 s, then 1 s: the page waited, it did not hammer the bot
        assert took >= 1.4, "asked again too soon: %.2f s" % took
        errs = b.step("errors")
        assert errs and all("503" in e for e in errs), errs
    finally:
        srv.stop()


def test_status_without_a_move():
    """An event with no new position (the game ended by a timeout, a pause):
    a viewer at the latest position sees the new status; a viewer
    replaying stays where they are."""
    srv = MockServer().start()
    try:
        tok = "mockTokenStatusOnly0123456789"
        url = srv.add_game(tok, positions=6)
        b = browser()
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=5))
        assert b.eval("document.body.dataset.status") == "playing"
        srv.finish(tok)
        b.wait("document.body.dataset.status === 'finished' && " + settled(at=5))
        assert "Cy wins" in b.eval("document.getElementById('status').textContent")
        assert not b.step("errors")
    finally:
        srv.stop()


def test_undo_takes_positions_back():
    """An undo (fewer positions than the page knew): a live viewer goes to
    the new latest, the slider's end comes back; a viewer replaying an
    earlier position stays there."""
    srv = MockServer().start()
    try:
        tok = "mockTokenUndoBack0123456789ab"
        url = srv.add_game(tok, positions=7)
        b = browser()
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait(settled(at=6))
        srv.undo(tok)
        b.wait("document.body.dataset.positions === '6' && " + settled(at=5))
        assert b.eval("document.getElementById('pos').max") == "5"
        assert b.eval("document.body.dataset.live") == "1"
        # replaying position 2, an undo leaves the viewer there
        b.step("focus", sel="#pos")
        b.step("key", key="Home")
        b.step("key", key="ArrowRight", times=2)
        b.wait(settled(at=2))
        srv.undo(tok)
        b.wait("document.body.dataset.positions === '5'")
        assert b.eval("document.body.dataset.at") == "2"
        assert b.eval("document.getElementById('pos').max") == "4"
        assert not b.step("errors")
    finally:
        srv.stop()


def test_lobby_then_start():
    """A game with no position yet: no picture, no replay; its first position
    arrives by the event stream."""
    srv = MockServer().start()
    try:
        tok = "mockTokenLobby0123456789abcdef"
        url = srv.add_game(tok, positions=0)
        b = browser()
        b.step("errors")
        assert b.step("goto", url=url)["status"] == 200
        b.wait("document.body.dataset.positions === '0' && !document.body.dataset.loading")
        hidden = "({r: document.getElementById('replay').hidden," \
            " p: document.querySelector('.pic').hidden})"
        assert b.eval(hidden) == {"r": True, "p": True}
        b.wait("document.querySelector('#players li') !== null")
        srv.move(tok)
        b.wait(settled(at=0, positions=1))
        assert b.eval(hidden) == {"r": False, "p": False}
        i = b.eval(INFO_JS)
        assert i["img"]["ok"] and i["slider"]["max"] == 0, i
        errs = b.step("errors")
        # the picture without JS is asked for before the page knows better
        assert all("board.png" in e and "404" in e for e in errs), errs
    finally:
        srv.stop()


class ConsoleBot:
    """The real bot on the console, its page served on loopback: the link
    is the one it posts ("Watch and replay: <url>"), a move is `play 1` of
    the one human (then the AI's moves), a revoke is `game web reset`."""

    LINK_RE = re.compile(r"^\[room\] Watch and replay: (\S+)$")

    def __init__(self, binary, game="gtr", workdir=None):
        import socket
        import subprocess
        import threading
        with socket.socket() as so:
            so.bind(("127.0.0.1", 0))
            self.port = so.getsockname()[1]
        self.dir = workdir or tempfile.mkdtemp(prefix="tabula-page-")
        self.base = "http://127.0.0.1:%d" % self.port
        env = dict(os.environ, TABULA_HTTP="127.0.0.1:%d" % self.port,
                   TABULA_PUBLIC_URL=self.base, TABULA_SEED="4")
        self.proc = subprocess.Popen(
            [binary, "--console", "--db", os.path.join(self.dir, "t.db")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=open(os.path.join(self.dir, "bot.log"), "w"), text=True, env=env)
        self.lines = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        for cmd in ("game new " + game, "game addbot 2", "game start"):
            self.say(cmd)
        self.url = self.wait_line(self.LINK_RE).group(1)
        assert self.url.startswith(self.base + "/g/"), self.url
        # three positions or more to step through
        while self.positions() < 3:
            self.move()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def say(self, text):
        self.proc.stdin.write("ana: %s\n" % text)
        self.proc.stdin.flush()

    def wait_line(self, rx, start=0, timeout=20):
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines[start:]:
                    m = rx.match(line)
                    if m:
                        return m
                left = end - time.monotonic()
                assert left > 0, "the bot never said %s" % rx.pattern
                self.cond.wait(left)

    def positions(self, url=None):
        import urllib.request
        with urllib.request.urlopen((url or self.url) + "/state.json", timeout=10) as r:
            return json.load(r)["positions"]

    def move(self):
        """ana plays her first choice; returns once the AI's moves are over
        (no new position for a second)."""
        before = last = self.positions()
        self.say("play 1")
        since = time.monotonic()
        while last == before or time.monotonic() - since < 1.0:
            time.sleep(0.1)
            p = self.positions()
            if p != last:
                last, since = p, time.monotonic()
            assert time.monotonic() - since < 30, "no move in 30 s"

    def revoke(self):
        with self.cond:
            start = len(self.lines)
        self.say("game web reset")
        self.url_after = self.wait_line(self.LINK_RE, start).group(1)

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()
            self.proc.wait()


class DiscordBot:
    """The real bot on the fake Discord (tests/fakes/fake_discord.py), its
    page served on loopback: the link is the one it posted under the first
    board, a move is /play of the one human with the first choice
    autocompletion offers (then the AI's moves), a revoke is `/game web
    reset` (one human: a majority at once)."""

    def __init__(self, binary, game="gtr"):
        sys.path.insert(0, os.path.join(TOP, "tests", "fakes"))
        import discord_test as dt
        import webcheck
        dt.BIN = binary
        self.dt = dt
        self.port = webcheck.free_port()
        self.fake, self.bot = dt.start(extra_env=webcheck.env(self.port))
        self.fake.wait_ready(10)
        self.ana = dt.user(self.fake, 1, "ana")
        dt.cmd(self.fake, self.ana, "game", {"game": game}, sub="new")
        dt.cmd(self.fake, self.ana, "game", {"count": 2}, sub="addbot")
        dt.cmd(self.fake, self.ana, "game", sub="start")
        self.url = dt.discord_link(dt.wait_boards(self.fake, 1)[0], "the first board")
        while self.positions() < 3:
            self.move()

    def positions(self, url=None):
        import urllib.request
        with urllib.request.urlopen((url or self.url) + "/state.json", timeout=10) as r:
            return json.load(r)["positions"]

    def move(self):
        """ana plays her first choice; returns once the AI's moves are over
        (no new position for a second)."""
        before = last = self.positions()
        value = self.dt.complete(self.fake, self.ana)[0]["value"]
        self.dt.cmd(self.fake, self.ana, "play", {"move": value})
        since = time.monotonic()
        while last == before or time.monotonic() - since < 1.0:
            time.sleep(0.1)
            p = self.positions()
            if p != last:
                last, since = p, time.monotonic()
            assert time.monotonic() - since < 30, "no move in 30 s"

    def revoke(self):
        h = self.dt.cmd(self.fake, self.ana, "game", {"action": "reset"}, sub="web")
        pub = [m for m in self.dt.texts_msgs(h) if not m["ephemeral"]]
        self.url_after = self.dt.discord_link(pub[0], "the reset")
        assert self.url_after != self.url

    def stop(self):
        try:
            assert self.fake.violations == [], self.fake.violations
        finally:
            self.bot.stop()
            self.fake.stop()


def discord_test(binary):
    """check_page against the real bot on the fake Discord: the link a
    Discord room got, a move made by a slash command."""
    def run():
        bot = DiscordBot(binary)
        try:
            t, _ = check_page(browser(), bot.url, bot.move, bot.revoke,
                              shots=SHOTS, name="discord-gtr")
            print("  discord gtr (s): %s" % ", ".join("%s %.2f" % kv for kv in t.items()))
            assert bot.positions(bot.url_after) > 3
        finally:
            bot.stop()
    run.__name__ = "test_page_discord"
    return run


def bot_test(binary):
    """check_page against the real bot (after issue 27's merge): every game."""
    def run():
        for game in ("gtr", "fortuna", "sylla", "builders"):
            bot = ConsoleBot(binary, game)
            try:
                t, _ = check_page(browser(), bot.url, bot.move, bot.revoke,
                                  shots=SHOTS, name="bot-" + game)
                print("  %s (s): %s" % (game, ", ".join("%s %.2f" % kv for kv in t.items())))
            finally:
                bot.stop()
    run.__name__ = "test_page_bot"
    return run


def main(argv):
    global SHOTS
    if "--shots" in argv:
        k = argv.index("--shots")
        SHOTS = os.path.abspath(argv[k + 1])
        del argv[k:k + 2]
    if "--bot" in argv:
        k = argv.index("--bot")
        globals()["test_page_bot"] = bot_test(os.path.abspath(argv[k + 1]))
        globals()["test_page_discord"] = discord_test(os.path.abspath(argv[k + 1]))
        del argv[k:k + 2]
    lack = missing()
    if lack:
        # scripts/deps.sh installs them; `make test` runs it first
        print("page: missing %s" % lack)
        return 1
    os.makedirs(SHOTS, exist_ok=True)
    t0 = time.monotonic()
    try:
        rc = harness.run_tests("page", sys.modules[__name__], [argv[0], None] + argv[1:])
    finally:
        if _browser:
            s = _browser.close()
            print("page: one chromium, %.1f s in all (driver: %s)" % (
                time.monotonic() - t0, json.dumps(s)))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
