"""A game's web page (issue 27, docs/web.md) seen from the platforms'
tests: the link the bot posts, the page and state.json over plain HTTP
with the contract's security headers, and the page's event stream read
line by line from a raw socket (no sleeping: every wait is for an event,
with a deadline).

The Discord and Matrix tests start the bot with env(port) and find the
link in what it posted with LINK_RE."""
import json
import re
import socket
import time

import harness

# "Watch and replay: <url>" (es: "Mira y repasa la partida: <url>"), a line
# of its own
LINK_RE = re.compile(r"^(?:Watch and replay|Mira y repasa la partida): (\S+)$", re.M)

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"content-security-policy": CSP, "referrer-policy": "no-referrer",
           "x-content-type-options": "nosniff", "x-robots-tag": "noindex, nofollow"}

# what Discord (and Element's linkify) take for a bare link: a scheme, then
# no space or '<', not ending in punctuation
AUTOLINK_RE = re.compile(r"https?://[^\s<]+[^<.,:;\"')\]\s]")


def free_port():
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def env(port):
    """The bot's environment for pages on 127.0.0.1:port."""
    return {"TABULA_PUBLIC_URL": "http://127.0.0.1:%d" % port,
            "TABULA_HTTP": "127.0.0.1:%d" % port}


def links(text):
    return LINK_RE.findall(text or "")


def path_of(url, port):
    base = "http://127.0.0.1:%d" % port
    assert url.startswith(base + "/g/"), "a link elsewhere: %r" % url
    tok = url[len(base) + 3:]
    assert re.fullmatch(r"[A-Za-z0-9]{22,}", tok), "a token of the wrong shape: %r" % tok
    return url[len(base):]


def _connect(port, timeout):
    so = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    so.settimeout(timeout)
    return so


def _read_head(so):
    data = b""
    while b"\r\n\r\n" not in data:
        got = so.recv(4096)
        assert got, "the connection closed before the headers: %r" % data
        data += got
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return status, hdrs, rest


def get(port, path, timeout=5):
    """GET path: (status, headers with lower-case names, body bytes)."""
    so = _connect(port, timeout * harness.SLOW)
    try:
        so.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
                    % (path, port)).encode())
        status, hdrs, body = _read_head(so)
        while True:
            got = so.recv(65536)
            if not got:
                break
            body += got
    finally:
        so.close()
    if hdrs.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunk(body)
    elif "content-length" in hdrs:
        body = body[:int(hdrs["content-length"])]
    return status, hdrs, body


def metric(port, name, **labels):
    """The sum of /metrics' samples of name whose labels include labels
    (AssertionError when there is none)."""
    status, _, body = get(port, "/metrics")
    assert status == 200, status
    total, found = 0.0, False
    for line in body.decode().splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        key, _, val = line.rpartition(" ")
        if key.split("{")[0] != name:
            continue
        if all('%s="%s"' % kv in key for kv in labels.items()):
            total += float(val)
            found = True
    assert found, "no sample %s%r" % (name, labels)
    return total


def _unchunk(data):
    out = b""
    while data:
        size, _, data = data.partition(b"\r\n")
        n = int(size.split(b";")[0], 16)
        if not n:
            break
        out += data[:n]
        data = data[n + 2:]
    return out


def check_headers(hdrs, what):
    for k, v in HEADERS.items():
        assert hdrs.get(k) == v, "%s: %s is %r, wanted %r" % (what, k, hdrs.get(k), v)
    assert "set-cookie" not in hdrs, "%s sets a cookie" % what


def page(port, url):
    """The page and its state.json at url: (state as a dict, the HTML)."""
    path = path_of(url, port)
    st, hdrs, body = get(port, path)
    assert st == 200, "the page %s: HTTP %d" % (path, st)
    assert hdrs.get("content-type", "").startswith("text/html"), hdrs
    check_headers(hdrs, "the page")
    html = body.decode("utf-8")
    assert "<html" in html.lower(), html[:200]
    st, hdrs, body = get(port, path + "/state.json")
    assert st == 200, "state.json: HTTP %d" % st
    check_headers(hdrs, "state.json")
    return json.loads(body), html


def gone(port, url):
    """The link finds nothing: the one 404, for the page and its parts."""
    path = path_of(url, port)
    for p in (path, path + "/state.json", path + "/events"):
        st, hdrs, _ = get(port, p)
        assert st == 404, "%s: HTTP %d, wanted 404" % (p, st)
        check_headers(hdrs, p)


class Events:
    """The page's event stream, read as it comes (text/event-stream)."""

    def __init__(self, port, url, timeout=10):
        self.so = _connect(port, 1.0)
        self.so.sendall(("GET %s/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
                         % (path_of(url, port), port)).encode())
        self.so.settimeout(timeout * harness.SLOW)
        status, self.headers, rest = _read_head(self.so)
        assert status == 200, "events: HTTP %d" % status
        assert self.headers.get("content-type", "").startswith("text/event-stream"), \
            self.headers
        check_headers(self.headers, "events")
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        self.raw = rest
        self.text = ""
        self.closed = False
        self.seen = []      # (event, data) in order

    def _more(self, deadline):
        left = deadline - time.monotonic()
        assert left > 0, "no such event in time; the stream so far: %r" % self.text
        self.so.settimeout(left)
        try:
            got = self.so.recv(4096)
        except socket.timeout:
            raise AssertionError("no such event in time; the stream so far: %r" % self.text)
        if not got:
            self.closed = True
        self.raw += got
        if self.chunked:
            # whole chunks only; the rest waits for more
            while b"\r\n" in self.raw:
                size, _, after = self.raw.partition(b"\r\n")
                n = int(size.split(b";")[0], 16)
                if len(after) < n + 2:
                    break
                self.text += after[:n].decode("utf-8")
                self.raw = after[n + 2:]
                if not n:
                    self.closed = True
        else:
            self.text += self.raw.decode("utf-8")
            self.raw = b""

    def _parse(self):
        while "\n\n" in self.text:
            block, self.text = self.text.split("\n\n", 1)
            ev, data = "message", ""
            for ln in block.split("\n"):
                if ln.startswith("event: "):
                    ev = ln[7:]
                elif ln.startswith("data: "):
                    data = ln[6:]
                elif ln.startswith(":") or ln.startswith("retry: "):
                    ev = None if ev == "message" else ev
            if ev:
                self.seen.append((ev, data))

    def wait(self, event, pred=None, timeout=10):
        """The first event named `event` not yet taken (whose data, as
        JSON, pred accepts): its data.  Events before it are dropped."""
        deadline = time.monotonic() + timeout * harness.SLOW
        while True:
            self._parse()
            while self.seen:
                ev, data = self.seen.pop(0)
                if ev == event:
                    d = json.loads(data)
                    if pred is None or pred(d):
                        return d
            assert not self.closed, "the stream ended without %s; last: %r" % (event,
                                                                               self.text)
            self._more(deadline)

    def wait_closed(self, timeout=10):
        deadline = time.monotonic() + timeout * harness.SLOW
        while not self.closed:
            self._more(deadline)

    def close(self):
        self.so.close()
