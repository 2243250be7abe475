"""The players' devices as matrix-sdk-crypto (the Rust crypto of Element
Web and matrix-js-sdk, @matrix-org/matrix-sdk-crypto-wasm) for the
integration tests: tests/interop/sdkclient.mjs runs their OlmMachines in one
Node process that talks to the fake homeserver over HTTP as a client does;
this drives it with JSON lines and collects what the devices decrypted.

    sdk = Sdk(fake)                     # starts node (scripts/deps.sh installs it)
    ana = sdk.login(ana_id, "pw")       # a device of Ana's: logs in, uploads keys
    ana.send(room, "!game new fortuna") # shared, encrypted and sent by the sdk
    ana.messages(room)                  # what her device decrypted there
    sdk.stop()

Each device's events are kept in order of arrival: "timeline" (an event it
synced: decrypted or not), "late" (one decrypted after its key came),
"invite", "room_key", "error" (a gap in a timeline, a failed sync)."""
import json
import os
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INTEROP = os.path.normpath(os.path.join(HERE, "..", "interop"))
SCRIPT = os.path.join(INTEROP, "sdkclient.mjs")
SLOW = float(os.environ.get("TABULA_TEST_SLOW") or 1)


def missing():
    """Why the sdk cannot run here (None when it can)."""
    if not os.path.isdir(os.path.join(INTEROP, "node_modules", "@matrix-org",
                                      "matrix-sdk-crypto-wasm")):
        return "tests/interop/node_modules is missing: run scripts/deps.sh (npm ci)"
    try:
        subprocess.run(["node", "--version"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return "node is missing: run scripts/deps.sh"
    return None


class SdkError(AssertionError):
    pass


class Sdk:
    def __init__(self, fake):
        why = missing()
        if why:
            raise SdkError(why)
        self.fake = fake
        self.dir = tempfile.mkdtemp(prefix="tabula-sdk-")
        self.errpath = os.path.join(self.dir, "stderr")
        self._err = open(self.errpath, "wb")
        self.proc = subprocess.Popen(["node", SCRIPT, fake.url, self.dir], cwd=INTEROP,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._err)
        self._cond = threading.Condition()
        self._answers = {}
        self.events = []
        # (device, room) -> {event id: what the device made of it}, the
        # decrypted record winning over an earlier failure
        self._got = {}
        self._pos = {}          # event id -> stream position (cached)
        self._n = 0
        self.devices = {}
        threading.Thread(target=self._read, daemon=True).start()
        self._wait(lambda: any(e.get("event") == "ready" for e in self.events), 30,
                   "the sdk client did not start")

    def _read(self):
        for line in self.proc.stdout:
            try:
                m = json.loads(line)
            except ValueError:
                m = {"event": "error", "error": "not JSON: %r" % line[:200]}
            with self._cond:
                if "id" in m:
                    self._answers[m["id"]] = m
                else:
                    self.events.append(m)
                    if m.get("event") in ("timeline", "late") and m.get("encrypted"):
                        got = self._got.setdefault((m["dev"], m["room"]), {})
                        if m["event_id"] not in got or m.get("decrypted"):
                            got[m["event_id"]] = m
                self._cond.notify_all()
        with self._cond:
            self.events.append({"event": "exit"})
            self._cond.notify_all()

    def log(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def _wait(self, pred, timeout, msg):
        end = time.monotonic() + timeout * SLOW
        with self._cond:
            while not pred():
                left = end - time.monotonic()
                if left <= 0:
                    raise SdkError("sdk: timeout after %.1fs: %s\nsdk stderr: %s" %
                                   (timeout * SLOW, msg() if callable(msg) else msg,
                                    self.log()[-2000:]))
                if self.proc.poll() is not None:
                    raise SdkError("sdk: the client exited (%s) while waiting: %s\n"
                                   "sdk stderr: %s" % (self.proc.returncode,
                                                       msg() if callable(msg) else msg,
                                                       self.log()[-2000:]))
                self._cond.wait(min(left, 0.2))

    def call(self, cmd, timeout=20, **kw):
        """Runs a command; its answer (raises when it failed)."""
        with self._cond:
            self._n += 1
            n = self._n
        self.proc.stdin.write((json.dumps(dict(kw, id=n, cmd=cmd)) + "\n").encode())
        self.proc.stdin.flush()
        self._wait(lambda: n in self._answers, timeout,
                   lambda: "no answer to %s %r" % (cmd, kw))
        with self._cond:
            a = self._answers.pop(n)
        if not a.get("ok"):
            raise SdkError("sdk %s failed: %s" % (cmd, a.get("error")))
        return a

    def login(self, user, password, name=None, device_id=None):
        """A new device of user (a second one with another name)."""
        name = name or user
        kw = {"device_id": device_id} if device_id else {}
        a = self.call("login", dev=name, user=user, password=password, **kw)
        d = Device(self, name, user, a["device_id"], a["curve25519"], a["ed25519"])
        self.devices[name] = d
        return d

    def errors(self):
        with self._cond:
            return [e for e in self.events if e.get("event") == "error"]

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._err.close()


class Device:
    """One OlmMachine of a player's, in the sdk process."""

    def __init__(self, sdk, name, user, device_id, curve, ed):
        self.sdk = sdk
        self.fake = sdk.fake
        self.name = name
        self.user = user
        self.id = device_id
        self.curve = curve
        self.ed = ed

    def call(self, cmd, **kw):
        return self.sdk.call(cmd, dev=self.name, **kw)

    def caught_up(self, timeout=10):
        """This device has read everything the homeserver holds for it."""
        self.fake.wait_client_caught_up(self.user, self.id, timeout=timeout)

    def send(self, room, body, share=True, msgtype="m.text"):
        """An encrypted message; its event id.  The device first reads
        what the homeserver has (the room's members), as a client shows
        its room before one types."""
        self.caught_up()
        return self.call("send", room=room, content={"msgtype": msgtype, "body": body},
                         share=share)["event_id"]

    def release(self, room):
        """The room key shares a send(share=False) kept back go now."""
        return self.call("release", room=room)["sent"]

    def join(self, room):
        self.call("join", room=room)

    def leave(self, room):
        self.call("leave", room=room)

    def device(self, user, device_id):
        """What this device's machine makes of a device (once it has read
        what the homeserver has: a device list change first)."""
        self.caught_up()
        return self.call("device", user=user, device_id=device_id)

    def claim(self, user):
        """Olm sessions with user's devices that have none: the claim's
        answer, and whether any is still missing after it."""
        self.caught_up()
        return self.call("claim", user=user)

    def decrypt(self, room, event):
        return self.call("decrypt", room=room, event=event)

    def events(self, kind=None, room=None):
        with self.sdk._cond:
            return [e for e in self.sdk.events if e.get("dev") == self.name and
                    (kind is None or e.get("event") == kind) and
                    (room is None or e.get("room") == room)]

    def received(self, room, sender=None):
        """Every encrypted event this device synced in room (from sender),
        once, with what it made of it: decrypted (later, if its key came
        late) or not."""
        with self.sdk._cond:
            return [e for e in self.sdk._got.get((self.name, room), {}).values()
                    if sender is None or e["sender"] == sender]

    def messages(self, room, sender=None):
        """The contents this device decrypted in room (of sender's events;
        default the bot's), in the room's order."""
        sender = sender or self.fake.bot_user
        got = [e for e in self.received(room, sender) if e.get("decrypted")]
        pos = self.sdk._pos
        for e in got:
            if e["event_id"] not in pos:
                pos[e["event_id"]] = self.fake.event_pos(e["event_id"])
        got.sort(key=lambda e: pos[e["event_id"]])
        return got

    def texts(self, room):
        return [e["content"].get("body", "") for e in self.messages(room)]

    def wait_message(self, room, pred, timeout=10, after=0):
        """The first message of the bot's this device decrypted in room at
        index after or later for which pred(content) holds."""
        box = []

        def ok():
            for e in self.messages(room)[after:]:
                if pred(e["content"]):
                    box.append(e)
                    return True
            return False
        self.sdk._wait(ok, timeout, lambda: "%s: no message in %s matching; has %r" % (
            self.name, room, [t[:80] for t in self.texts(room)[-5:]]))
        return box[0]
