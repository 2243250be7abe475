"""tests/browser/browser.py: drives tests/browser/web_page.mjs (one headless
chromium for a whole test run) from Python, one step at a time.

    with Browser(shots_dir) as b:
        b.step("goto", url=...)        # -> the step's value; raises on failure
        b.eval("document.title")
        b.wait("document.body.dataset.at === '3'")

Needs node, /usr/bin/chromium and tests/browser/node_modules (scripts/deps.sh).
"""
import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "web_page.mjs")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# a loaded machine (CI under sanitizers) waits longer, as the other tests do
SLOW = float(os.environ.get("TABULA_TEST_SLOW") or 1)


class StepFailed(AssertionError):
    def __init__(self, result):
        super().__init__("%s: %s" % (result.get("do"), result.get("error")))
        self.result = result


def missing():
    """What the browser tests lack on this machine ("" when nothing)."""
    if not shutil.which("node"):
        return "node"
    if not os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    if not os.path.isdir(os.path.join(HERE, "node_modules", "puppeteer-core")):
        return "tests/browser/node_modules (scripts/deps.sh)"
    return ""


class Browser:
    def __init__(self, out):
        self.out = out
        self.proc = subprocess.Popen(
            ["node", DRIVER, "--out", out, "--chromium", CHROMIUM],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=HERE)
        self.summary = None

    def step(self, what, **kw):
        """Runs one step; its value, or StepFailed."""
        r = self.raw(what, **kw)
        if not r.get("ok"):
            raise StepFailed(r)
        return r.get("value")

    def raw(self, what, **kw):
        kw["do"] = what
        self.proc.stdin.write(json.dumps(kw) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("the browser driver ended (step %s)" % what)
        return json.loads(line)

    def eval(self, js):
        return self.step("eval", js=js)

    def wait(self, js, timeout=5000):
        return self.step("wait", js=js, timeout=int(timeout * SLOW))

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            for line in self.proc.stdout:
                r = json.loads(line)
                if r.get("done"):
                    self.summary = r
            self.proc.wait(timeout=30)
        return self.summary

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.close()
        except Exception:
            self.proc.kill()
