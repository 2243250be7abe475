#!/usr/bin/env python3
"""tests/browser/mock_server.py: a stand-in for the bot's game pages, for the
browser tests of web/ until (and beside) the real bot/web.c.

Serves, on 127.0.0.1, what the contract of issue 27 says the bot serves:
/g/<token> (web/page.html with its placeholders filled, labels from the
table in web/README.md), /g/<token>/state.json[?at=N], /g/<token>/board.png
[?at=N] (a painted board from docs/images), /g/<token>/events (SSE), and
/static/page.css, /static/page.js, with the contract's headers (the CSP
too, so a page that breaks it shows it).  A test makes a move with
MockServer.move(token) and revokes a link with MockServer.revoke(token).

Standalone: `python3 tests/browser/mock_server.py [PORT]` prints the pages'
addresses; each line typed on stdin makes a move ("gone" revokes)."""
import html
import json
import os
import queue
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WEB = os.path.join(TOP, "web")
PNG = os.path.join(TOP, "docs", "images", "gtr-board.png")

HEADERS = [
    ("Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
     "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Robots-Tag", "noindex, nofollow"),
]
NOT_FOUND = b"Not found\n"


def labels_from_readme(path=os.path.join(WEB, "README.md")):
    """{lang: {key: text}} from the label table of web/README.md."""
    en, es = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\| `([a-z_]+)` \| (.*?) \| (.*?) \|$", line.rstrip("\n"))
            if m:
                en[m.group(1)], es[m.group(1)] = m.group(2), m.group(3)
    return {"en": en, "es": es}


NAMES = ["Alice", "Ben", "Cy"]
ROLES = ["Laborer", "Craftsman", "Legionary", "Architect", "Merchant", "Patron"]


class MockGame:
    """A three-player game whose every position can be asked for."""

    def __init__(self, token, lang="en", positions=8, title="Glory to Rome", finished=False):
        self.token, self.lang, self.title = token, lang, title
        self.positions = positions
        self.finished = finished    # the last position ends the game: Cy wins
        self.revoked = False

    def _over(self, n):
        return self.finished and n == self.positions - 1

    def _turn(self, n):
        return n % len(NAMES)

    def status_text(self, n):
        if self._over(n):
            return "Fin: gana Cy" if self.lang == "es" else "Game over: Cy wins"
        who = NAMES[self._turn(n)]
        return f"Juega {who}" if self.lang == "es" else f"{who} to play"

    def board_text(self, n):
        rows = [f"== {self.title}: turn {n // 3 + 1} ==",
                f"Leader: {NAMES[(n // 3) % 3]}. Role led: {ROLES[n % 6]}.",
                f"Now: {NAMES[self._turn(n)]}: lead a role or think.",
                "Pool: Market (wood · Craftsman), Amphitheatre (concrete · Architect), "
                "Palace (marble · Patron).",
                f"Deck: {129 - n} cards. Senators in the pile: 3.",
                "Sites in town/out of town: Rubble 3/3, Wood 3/3, Brick 3/3, "
                "Concrete 3/3, Stone 3/3, Marble 3/3."]
        for i, name in enumerate(NAMES):
            mark = " <" if i == self._turn(n) else ""
            rows += [f"{name}{mark}",
                     f"  influence {2 + (n + i) // 4}, hand 5, vault 0/2, clients 0/2",
                     "  clientele: -", "  stockpile: -", "  buildings: -"]
        return "\n".join(rows)

    def log(self):
        lines = [{"at": 0, "text": f"{n} shows a card."} for n in NAMES]
        for n in range(1, self.positions):
            who = NAMES[(n - 1) % 3]
            if n % 5 == 3:
                continue    # a card chosen face down: no public line
            lines.append({"at": n, "text": f"{who} leads {ROLES[n % 6]}."})
            if n % 4 == 0:
                lines.append({"at": n, "text": f"{who} takes a card from the pool."})
        return lines

    def state(self, n, labels):
        return {
            "game": "gtr", "title": self.title, "lang": self.lang,
            "status": "finished" if self._over(n) else "playing",
            "status_text": self.status_text(n),
            "players": [{"name": name, "score": str(2 + (n + i) // 4),
                         "turn": i == self._turn(n) and not self._over(n),
                         "winner": self._over(n) and i == 2}
                        for i, name in enumerate(NAMES)],
            "positions": self.positions, "at": n,
            "board_text": self.board_text(n),
            "board_png": f"/g/{self.token}/board.png?at={n}" if self.positions else "",
            "log": self.log(),
            "labels": labels[self.lang],
        }


class MockServer:
    def __init__(self, port=0):
        self.labels = labels_from_readme()
        self.games = {}
        self.streams = {}          # token -> [queue]
        self.lock = threading.Lock()
        self.requests = []         # (path, status): what was asked
        self.fail_next = []        # statuses the next state.json requests get
        self.fail_png = []         # statuses the next board.png requests get
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def handle(self):
                # a page that moves on drops its pending fetches: not an error
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_HEAD(self):
                self.do_GET(head=True)

            def do_GET(self, head=False):
                server._serve(self, head)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        with self.lock:
            for qs in self.streams.values():
                for q in qs:
                    q.put(None)
        self.httpd.shutdown()
        self.httpd.server_close()

    def add_game(self, token, **kw):
        self.games[token] = MockGame(token, **kw)
        return f"{self.base}/g/{token}"

    def _publish(self, token, text):
        with self.lock:
            for q in self.streams.get(token, []):
                q.put(text)
            return len(self.streams.get(token, []))

    def move(self, token, n=1):
        """n more positions (a move and the AI's after it), announced to the
        page's streams in one event."""
        g = self.games[token]
        g.positions += n
        return self._publish(token, f'event: move\ndata: {{"positions":{g.positions}}}\n\n')

    def undo(self, token, n=1):
        """n positions taken back (an undo), announced as the bot does: a
        move event with fewer positions."""
        g = self.games[token]
        g.positions -= n
        return self._publish(token, f'event: move\ndata: {{"positions":{g.positions}}}\n\n')

    def finish(self, token):
        """The game ends without a new position (a timeout, an abandon):
        the bot announces it as a move with the same number of positions."""
        g = self.games[token]
        g.finished = True
        return self._publish(token, f'event: move\ndata: {{"positions":{g.positions}}}\n\n')

    def revoke(self, token):
        self.games[token].revoked = True
        self._publish(token, "event: gone\ndata: {}\n\n")
        self._publish(token, None)

    def viewers(self, token):
        with self.lock:
            return len(self.streams.get(token, []))

    # --- answers
    def _send(self, rq, status, ctype, body, head, cache=False):
        rq.send_response(status)
        for k, v in HEADERS:
            rq.send_header(k, v)
        rq.send_header("Content-Type", ctype)
        rq.send_header("Content-Length", str(len(body)))
        rq.send_header("Cache-Control", "public, max-age=3600" if cache else "no-store")
        rq.end_headers()
        if not head:
            rq.wfile.write(body)
        self.requests.append((rq.path, status))

    def _page(self, g):
        with open(os.path.join(WEB, "page.html"), encoding="utf-8") as f:
            t = f.read()
        lab = self.labels[g.lang]
        esc = lambda s: html.escape(s, quote=True)  # noqa: E731
        t = re.sub(r"\{\{t:([a-z_]+)\}\}", lambda m: esc(lab[m.group(1)]), t)
        last = g.positions - 1
        for k, v in (("lang", g.lang), ("title", g.title), ("base", f"/g/{g.token}"),
                     ("board_text", g.board_text(last)),
                     ("status_text", g.status_text(last))):
            t = t.replace("{{" + k + "}}", esc(v))
        if "{{" in t:
            raise ValueError("page.html: a placeholder the contract does not have: "
                             + t[t.index("{{"):t.index("{{") + 30])
        return t.encode()

    def _serve(self, rq, head):
        u = urlsplit(rq.path)
        q = parse_qs(u.query)
        parts = u.path.split("/")
        if u.path in ("/static/page.css", "/static/page.js"):
            name = u.path.rsplit("/", 1)[1]
            with open(os.path.join(WEB, name), "rb") as f:
                body = f.read()
            ctype = "text/css; charset=utf-8" if name.endswith(".css") else \
                "text/javascript; charset=utf-8"
            return self._send(rq, 200, ctype, body, head, cache=True)
        g = self.games.get(parts[2]) if len(parts) >= 3 and parts[1] == "g" else None
        if g is None or g.revoked or len(parts) > 4:
            return self._send(rq, 404, "text/plain; charset=utf-8", NOT_FOUND, head)
        what = parts[3] if len(parts) == 4 else ""
        try:
            at = int(q["at"][0]) if "at" in q else g.positions - 1
        except ValueError:
            at = -1
        if g.positions == 0 and "at" not in q:
            at = 0      # a lobby: no position yet, the answer says so
        elif not 0 <= at < g.positions:
            return self._send(rq, 400, "text/plain; charset=utf-8", b"Bad position\n", head)
        if what == "":
            return self._send(rq, 200, "text/html; charset=utf-8", self._page(g), head)
        if what == "state.json" and self.fail_next:
            return self._send(rq, self.fail_next.pop(0), "text/plain; charset=utf-8",
                              b"Busy\n", head)
        if what == "state.json":
            body = json.dumps(g.state(at, self.labels), ensure_ascii=False).encode()
            return self._send(rq, 200, "application/json; charset=utf-8", body, head)
        if what == "board.png" and self.fail_png:
            # the bot's paint budget: 503, "try again in a moment"
            return self._send(rq, self.fail_png.pop(0), "text/plain; charset=utf-8",
                              b"Busy painting other boards; try again in a moment.\n", head)
        if what == "board.png":
            with open(PNG, "rb") as f:
                return self._send(rq, 200, "image/png", f.read(), head)
        if what == "events":
            return self._events(rq, g, head)
        return self._send(rq, 404, "text/plain; charset=utf-8", NOT_FOUND, head)

    def _events(self, rq, g, head):
        rq.send_response(200)
        for k, v in HEADERS:
            rq.send_header(k, v)
        rq.send_header("Content-Type", "text/event-stream")
        rq.send_header("Cache-Control", "no-store")
        rq.end_headers()
        self.requests.append((rq.path, 200))
        if head:
            return
        q = queue.Queue()
        with self.lock:
            self.streams.setdefault(g.token, []).append(q)
        try:
            rq.wfile.write(b"retry: 5000\n\n")
            rq.wfile.flush()
            while True:
                try:
                    text = q.get(timeout=25)
                except queue.Empty:
                    text = ": keepalive\n\n"
                if text is None:
                    break
                rq.wfile.write(text.encode())
                rq.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with self.lock:
                self.streams[g.token].remove(q)
        rq.close_connection = True


def main():
    srv = MockServer(int(sys.argv[1]) if len(sys.argv) > 1 else 0).start()
    en = srv.add_game("mockTokenEnglish0123456789", positions=8)
    es = srv.add_game("mockTokenSpanish0123456789", lang="es", positions=5)
    print(en, es, sep="\n", flush=True)
    for line in sys.stdin:
        tok = en.rsplit("/", 1)[1]
        if line.strip() == "gone":
            srv.revoke(tok)
        else:
            print("viewers:", srv.move(tok), flush=True)
    srv.stop()


if __name__ == "__main__":
    main()
