// The players' devices in tests/integration/matrix_interop_test.py: each is
// an OlmMachine of @matrix-org/matrix-sdk-crypto-wasm (the Rust crypto of
// Element Web and matrix-js-sdk) that talks to the loopback fake homeserver
// (tests/fakes/fake_matrix.py) over HTTP the way a client does: it logs in,
// uploads its keys, long-polls /sync (to-device messages, device lists,
// one-time key counts, timelines), answers the machine's outgoing requests
// (/keys/upload, /keys/query, /keys/claim, /sendToDevice,
// /keys/signatures/upload), shares its room key and encrypts before each
// message it sends, decrypts every encrypted event it syncs, and downloads
// and decrypts encrypted attachments.
//
// usage: node sdkclient.mjs <homeserver URL> <directory for pictures>
// stdin: one JSON command a line, {"id": N, "cmd": ..., ...};
// stdout: one JSON line per answer ({"id": N, "ok": true, ...} or
// {"id": N, "ok": false, "error": ...}) and per event ({"event": ...}).
// Commands (dev names a device of this process, chosen at login):
//   login {dev, user, password, device_id?}      log in, upload keys, first sync
//   send {dev, room, content, share}              encrypt and send; share false
//                                                 starts a new room key and keeps
//                                                 its to-device messages back
//                                                 (release sends them)
//   release {dev, room}
//   join / leave {dev, room}
//   device {dev, user, device_id}                 what the machine thinks of a device
//   claim {dev, user}                             Olm sessions with user's devices
//   decrypt {dev, room, event}                    try an event (not from the sync)
//   bootstrap_cross_signing {dev}
//   cross_sign_device {dev, device_id}            sign an own device with the
//                                                 self-signing key
//   room_keys {dev}                               the room keys received
//   stop {dev}
// Events: timeline (every message and encrypted event, decrypted or not, with
// the decrypted picture's file), late (an event decrypted after its key came),
// invite, room_key, error.
// Diagnostics go to stderr.

import {
    Attachment, DecryptionSettings, DeviceId, DeviceLists, EncryptedAttachment,
    EncryptionAlgorithm, EncryptionSettings, HistoryVisibility, initAsync, OlmMachine,
    RequestType, RoomId, TrustRequirement, UserId,
} from "@matrix-org/matrix-sdk-crypto-wasm";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const HS = process.argv[2];
const PICS = process.argv[3];
const V3 = "/_matrix/client/v3";
const ALGORITHMS = {
    [EncryptionAlgorithm.OlmV1Curve25519AesSha2]: "m.olm.v1.curve25519-aes-sha2",
    [EncryptionAlgorithm.MegolmV1AesSha2]: "m.megolm.v1.aes-sha2",
};
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function out(obj) {
    process.stdout.write(JSON.stringify(obj) + "\n");
}

// wasm errors are objects (a code and a description), not always Errors
function errText(e) {
    if (e instanceof Error) return e.message;
    if (e && typeof e === "object") return e.description || e.message || JSON.stringify(e);
    return String(e);
}

function log(...a) {
    process.stderr.write(a.map(String).join(" ") + "\n");
}

class HttpError extends Error {
    constructor(status, body) {
        super("HTTP " + status + ": " + body.slice(0, 300));
        this.status = status;
    }
}

// One async section at a time (the machine's outgoing requests; a device's
// sends).
class Mutex {
    constructor() {
        this.tail = Promise.resolve();
    }
    run(fn) {
        const r = this.tail.then(fn);
        this.tail = r.catch(() => {});
        return r;
    }
}

const devices = new Map(); // name -> Player
let nPics = 0;

class Player {
    constructor(name, user) {
        this.name = name;
        this.user = user;
        this.token = null;
        this.deviceId = null;
        this.machine = null;
        this.since = null;
        this.stopped = false;
        this.abort = new AbortController();
        this.rooms = new Map(); // room id -> {members: Map(uid -> membership), encryption}
        this.pending = []; // [{room, ev}] not decrypted yet
        this.withheld = new Map(); // room id -> [ToDeviceRequest]
        this.invites = new Set();
        this.requests = new Mutex();
        this.sends = new Mutex();
        this.txn = 0;
        this.firstSync = null;
    }

    async http(method, path, body, opts = {}) {
        let url = HS + (path.startsWith("/_matrix") ? path : V3 + path);
        if (opts.query) url += "?" + new URLSearchParams(opts.query).toString();
        const headers = {};
        if (this.token) headers.Authorization = "Bearer " + this.token;
        let data;
        if (body !== undefined) {
            data = typeof body === "string" ? body : JSON.stringify(body);
            headers["Content-Type"] = "application/json";
        }
        const r = await fetch(url, { method, headers, body: data, signal: this.abort.signal });
        const buf = Buffer.from(await r.arrayBuffer());
        if (!r.ok) throw new HttpError(r.status, buf.toString());
        return opts.bytes ? buf : JSON.parse(buf.toString() || "{}");
    }

    room(id) {
        let r = this.rooms.get(id);
        if (!r) {
            r = { members: new Map(), encryption: null };
            this.rooms.set(id, r);
        }
        return r;
    }

    // joined and invited members, as a client shares its room key with
    members(id) {
        const r = this.room(id);
        return [...r.members].filter(([, m]) => m === "join" || m === "invite").map(([u]) => u);
    }

    // Every request the machine has queued, answered and marked sent.
    async flush() {
        return this.requests.run(async () => {
            for (let i = 0; i < 16; i++) {
                const reqs = await this.machine.outgoingRequests();
                if (!reqs.length) return;
                for (const q of reqs) await this.sendRequest(q);
            }
        });
    }

    async sendRequest(q) {
        let resp;
        const enc = encodeURIComponent;
        switch (q.type) {
            case RequestType.KeysUpload:
                resp = await this.http("POST", "/keys/upload", q.body);
                break;
            case RequestType.KeysQuery:
                resp = await this.http("POST", "/keys/query", q.body);
                break;
            case RequestType.KeysClaim:
                resp = await this.http("POST", "/keys/claim", q.body);
                break;
            case RequestType.ToDevice:
                resp = await this.http("PUT", `/sendToDevice/${enc(q.event_type)}/${enc(q.txn_id)}`,
                    q.body);
                break;
            case RequestType.SignatureUpload:
                resp = await this.http("POST", "/keys/signatures/upload", q.body);
                break;
            case RequestType.RoomMessage:
                resp = await this.http("PUT",
                    `/rooms/${enc(q.room_id)}/send/${enc(q.event_type)}/${enc(q.txn_id)}`, q.body);
                break;
            default:
                // key backups: none is enabled
                resp = {};
        }
        if (q.id) await this.machine.markRequestAsSent(q.id, q.type, JSON.stringify(resp));
        return resp;
    }

    async syncLoop() {
        while (!this.stopped) {
            let resp;
            try {
                const query = this.since ? { since: this.since, timeout: "30000" } : { timeout: "0" };
                // every event of a busy game room in one response (the
                // fake's default is 10; gaps are reported, not read back)
                query.filter = JSON.stringify({ room: { timeline: { limit: 100 } } });
                resp = await this.http("GET", "/sync", undefined, { query });
            } catch (e) {
                if (this.stopped) return;
                log(this.name, "sync failed:", e.message);
                await new Promise((ok) => setTimeout(ok, 200));
                continue;
            }
            try {
                await this.handleSync(resp);
            } catch (e) {
                out({ event: "error", dev: this.name, error: "sync handling: " + e.stack });
            }
            this.since = resp.next_batch;
            if (this.firstSync) {
                this.firstSync();
                this.firstSync = null;
            }
        }
    }

    applyState(id, ev) {
        const r = this.room(id);
        if (ev.type === "m.room.member") r.members.set(ev.state_key, ev.content.membership);
        else if (ev.type === "m.room.encryption" && ev.state_key === "") r.encryption = ev.content;
    }

    async handleSync(resp) {
        const rooms = resp.rooms || {};
        const timelines = [];
        for (const [id, inv] of Object.entries(rooms.invite || {})) {
            if (this.invites.has(id)) continue;
            this.invites.add(id);
            const me = (inv.invite_state?.events || []).find(
                (e) => e.type === "m.room.member" && e.state_key === this.user);
            out({ event: "invite", dev: this.name, room: id, inviter: me?.sender,
                  is_direct: !!me?.content?.is_direct });
        }
        for (const [id, j] of Object.entries(rooms.join || {})) {
            if (j.timeline?.limited && this.since) {
                out({ event: "error", dev: this.name, error: "a gap in the timeline of " + id });
            }
            for (const ev of j.state?.events || []) this.applyState(id, ev);
            for (const ev of j.timeline?.events || []) {
                if (ev.state_key !== undefined) this.applyState(id, ev);
                timelines.push([id, ev]);
            }
        }
        for (const [id, l] of Object.entries(rooms.leave || {})) {
            for (const ev of l.timeline?.events || []) {
                if (ev.state_key !== undefined) this.applyState(id, ev);
                timelines.push([id, ev]);
            }
        }
        // as matrix-js-sdk does: the members of encrypted rooms are tracked
        const tracked = new Set();
        for (const [id, r] of this.rooms) {
            if (r.encryption) for (const u of this.members(id)) tracked.add(u);
        }
        if (tracked.size) await this.machine.updateTrackedUsers([...tracked].map((u) => new UserId(u)));
        const dl = resp.device_lists || {};
        const counts = new Map(Object.entries(resp.device_one_time_keys_count || {}));
        const unused = resp.device_unused_fallback_key_types;
        await this.machine.receiveSyncChanges(
            JSON.stringify(resp.to_device?.events || []),
            new DeviceLists((dl.changed || []).map((u) => new UserId(u)),
                (dl.left || []).map((u) => new UserId(u))),
            counts, unused ? new Set(unused) : undefined);
        await this.flush();
        // events whose key came now, then this batch's
        const waiting = this.pending;
        this.pending = [];
        for (const { room, ev } of waiting) await this.timeline(room, ev, true);
        for (const [room, ev] of timelines) await this.timeline(room, ev, false);
    }

    async decrypt(room, ev) {
        const d = await this.machine.decryptRoomEvent(JSON.stringify(Object.assign({ room_id: room }, ev)),
            new RoomId(room), new DecryptionSettings(TrustRequirement.Untrusted));
        const shield = d.shieldState(false);
        const strict = d.shieldState(true);
        return {
            payload: JSON.parse(d.event),
            sender_device: d.senderDevice?.toString(),
            sender_curve25519: d.senderCurve25519Key,
            sender_ed25519: d.senderClaimedEd25519Key,
            forwarded: d.forwarder !== undefined,
            shield: { color: shield.color, code: shield.code ?? null },
            shield_strict: { color: strict.color, code: strict.code ?? null },
        };
    }

    async timeline(room, ev, late) {
        const base = { dev: this.name, room, event_id: ev.event_id, sender: ev.sender, type: ev.type };
        if (ev.type === "m.room.message") {
            out(Object.assign({ event: "timeline", encrypted: false, content: ev.content }, base));
            return;
        }
        if (ev.type !== "m.room.encrypted") return;
        const sid = ev.content?.session_id;
        let d;
        try {
            d = await this.decrypt(room, ev);
        } catch (e) {
            if (!late) {
                out(Object.assign({ event: "timeline", encrypted: true, decrypted: false,
                                    session_id: sid, error: errText(e) }, base));
            }
            this.pending.push({ room, ev });
            return;
        }
        const content = d.payload.content || {};
        const rec = Object.assign({ event: late ? "late" : "timeline", encrypted: true, decrypted: true,
                                    session_id: sid, payload_type: d.payload.type,
                                    payload_room: d.payload.room_id, content,
                                    sender_device: d.sender_device,
                                    sender_curve25519: d.sender_curve25519,
                                    sender_ed25519: d.sender_ed25519, forwarded: d.forwarded,
                                    shield: d.shield, shield_strict: d.shield_strict }, base);
        if (content.msgtype === "m.image" && content.file) rec.picture = await this.picture(content.file);
        out(rec);
    }

    // An encrypted attachment: downloaded (the authenticated media API) and
    // decrypted by matrix-sdk-crypto, which checks its hash; written to a
    // file for the test to read.
    async picture(file) {
        try {
            const m = /^mxc:\/\/([^/]+)\/(.+)$/.exec(file.url || "");
            if (!m) return { error: "no mxc URI: " + file.url };
            const enc = encodeURIComponent;
            const data = await this.http("GET", `/_matrix/client/v1/media/download/${enc(m[1])}/${enc(m[2])}`,
                undefined, { bytes: true });
            const plain = Buffer.from(Attachment.decrypt(
                new EncryptedAttachment(new Uint8Array(data), JSON.stringify(file))));
            const path = join(PICS, `pic${++nPics}.png`);
            writeFileSync(path, plain);
            return { path, size: plain.length, png: plain.subarray(0, 8).equals(PNG),
                     cipher_is_png: data.subarray(0, 8).equals(PNG),
                     sha256: createHash("sha256").update(plain).digest("hex") };
        } catch (e) {
            return { error: errText(e) };
        }
    }

    // As matrix-js-sdk's room encryptor: the room's members' devices
    // queried, Olm sessions claimed where missing, the room key shared
    // (rotated per the room's m.room.encryption), then the event encrypted.
    async send(room, content, share) {
        return this.sends.run(async () => {
            // (each call takes its own UserIds: wasm-bindgen moves them)
            const users = this.members(room);
            await this.machine.updateTrackedUsers(uids(users));
            await this.flush();
            const claim = await this.machine.getMissingSessions(uids(users));
            if (claim) await this.requests.run(() => this.sendRequest(claim));
            const s = new EncryptionSettings();
            const e = this.room(room).encryption || {};
            if (e.rotation_period_ms) s.rotationPeriod = BigInt(e.rotation_period_ms) * 1000n;
            if (e.rotation_period_msgs) s.rotationPeriodMessages = BigInt(e.rotation_period_msgs);
            s.historyVisibility = HistoryVisibility.Shared;
            // a key to hold back is a new one (the current one may be out)
            if (!share) await this.machine.invalidateGroupSession(new RoomId(room));
            const reqs = await this.machine.shareRoomKey(new RoomId(room), uids(users), s);
            if (share) {
                for (const q of reqs) await this.requests.run(() => this.sendRequest(q));
            } else {
                const w = this.withheld.get(room) || [];
                this.withheld.set(room, w.concat(reqs));
            }
            const body = await this.machine.encryptRoomEvent(new RoomId(room), "m.room.message",
                JSON.stringify(content));
            const txn = `sdk.${Date.now()}.${++this.txn}`;
            const r = await this.http("PUT",
                `/rooms/${encodeURIComponent(room)}/send/m.room.encrypted/${encodeURIComponent(txn)}`, body);
            return { event_id: r.event_id, session_id: JSON.parse(body).session_id };
        });
    }

    async release(room) {
        const reqs = this.withheld.get(room) || [];
        this.withheld.delete(room);
        for (const q of reqs) await this.requests.run(() => this.sendRequest(q));
        return { sent: reqs.length };
    }
}

function uids(users) {
    return users.map((u) => new UserId(u));
}

function player(name) {
    const p = devices.get(name);
    if (!p) throw new Error("no device " + name);
    return p;
}

function keyOf(k) {
    return k ? k.toBase64() : null;
}

async function deviceInfo(p, user, deviceId) {
    const d = await p.machine.getDevice(new UserId(user), new DeviceId(deviceId), 5);
    if (!d) return { found: false };
    return {
        found: true,
        curve25519: keyOf(d.curve25519Key),
        ed25519: keyOf(d.ed25519Key),
        algorithms: d.algorithms.map((a) => ALGORITHMS[a] || "unknown"),
        verified: d.isVerified(),
        cross_signing_trusted: d.isCrossSigningTrusted(),
        cross_signed_by_owner: d.isCrossSignedByOwner(),
        locally_trusted: d.isLocallyTrusted(),
        blacklisted: d.isBlacklisted(),
        deleted: d.isDeleted(),
    };
}

const commands = {
    async login(c) {
        const p = new Player(c.dev, c.user);
        const body = { type: "m.login.password", identifier: { type: "m.id.user", user: c.user },
                       password: c.password, initial_device_display_name: "matrix-sdk-crypto " + c.dev };
        if (c.device_id) body.device_id = c.device_id;
        const r = await p.http("POST", "/login", body);
        p.token = r.access_token;
        p.deviceId = r.device_id;
        p.machine = await OlmMachine.initialize(new UserId(r.user_id), new DeviceId(r.device_id));
        p.machine.registerRoomKeyUpdatedCallback(async (infos) => {
            for (const i of infos) {
                out({ event: "room_key", dev: p.name, room: i.roomId.toString(), session_id: i.sessionId,
                      sender_key: keyOf(i.senderKey) });
            }
        });
        devices.set(c.dev, p);
        await p.flush(); // the device's keys
        const first = new Promise((ok) => { p.firstSync = ok; });
        p.syncLoop();
        await first;
        const ik = p.machine.identityKeys;
        return { user_id: r.user_id, device_id: r.device_id, curve25519: keyOf(ik.curve25519),
                 ed25519: keyOf(ik.ed25519) };
    },
    async send(c) {
        return player(c.dev).send(c.room, c.content, c.share !== false);
    },
    async release(c) {
        return player(c.dev).release(c.room);
    },
    async join(c) {
        return player(c.dev).http("POST", `/rooms/${encodeURIComponent(c.room)}/join`, {});
    },
    async leave(c) {
        return player(c.dev).http("POST", `/rooms/${encodeURIComponent(c.room)}/leave`, {});
    },
    async device(c) {
        const p = player(c.dev);
        await p.machine.updateTrackedUsers([new UserId(c.user)]);
        await p.flush();
        return deviceInfo(p, c.user, c.device_id);
    },
    async claim(c) {
        const p = player(c.dev);
        await p.machine.updateTrackedUsers(uids([c.user]));
        await p.flush();
        const q = await p.machine.getMissingSessions(uids([c.user]));
        let response = null;
        if (q) response = await p.requests.run(() => p.sendRequest(q));
        // (getMissingSessions says nothing of a device whose key failed:
        // it is left alone for a while) an Olm session is there when a
        // to-device message can be encrypted for it
        const sessions = {};
        const devs = await p.machine.getUserDevices(new UserId(c.user), 5);
        for (const d of devs.devices()) {
            try {
                await d.encryptToDeviceEvent("m.dummy", {});
                sessions[d.deviceId.toString()] = true;
            } catch (e) {
                sessions[d.deviceId.toString()] = false;
            }
        }
        return { claimed: response, sessions };
    },
    async decrypt(c) {
        try {
            const d = await player(c.dev).decrypt(c.room, c.event);
            return { decrypted: true, payload: d.payload };
        } catch (e) {
            return { decrypted: false, error: errText(e) };
        }
    },
    async bootstrap_cross_signing(c) {
        const p = player(c.dev);
        const b = await p.machine.bootstrapCrossSigning(true);
        await p.requests.run(async () => {
            if (b.uploadKeysRequest) await p.sendRequest(b.uploadKeysRequest);
            await p.http("POST", "/keys/device_signing/upload", b.uploadSigningKeysRequest.body);
            await p.sendRequest(b.uploadSignaturesRequest);
        });
        await p.flush();
        const s = await p.machine.crossSigningStatus();
        const id = await p.machine.getIdentity(new UserId(p.user));
        return { has_master: s.hasMaster, has_self_signing: s.hasSelfSigning,
                 has_user_signing: s.hasUserSigning, master_key: id?.masterKey,
                 self_signing_key: id?.selfSigningKey };
    },
    async cross_sign_device(c) {
        const p = player(c.dev);
        await p.machine.updateTrackedUsers([new UserId(p.user)]);
        await p.machine.markAllTrackedUsersAsDirty();
        await p.flush();
        const d = await p.machine.getDevice(new UserId(p.user), new DeviceId(c.device_id), 5);
        if (!d) throw new Error("no such device " + c.device_id);
        const q = await d.verify();
        await p.requests.run(() => p.sendRequest(q));
        await p.flush();
        return deviceInfo(p, p.user, c.device_id);
    },
    async room_keys(c) {
        const p = player(c.dev);
        const keys = JSON.parse(await p.machine.exportRoomKeys(() => true));
        return { keys: keys.map((k) => ({ room: k.room_id, session_id: k.session_id,
                                          sender_key: k.sender_key })) };
    },
    async stop(c) {
        const p = player(c.dev);
        p.stopped = true;
        p.abort.abort();
        devices.delete(c.dev);
        return {};
    },
};

async function main() {
    await initAsync();
    const rl = createInterface({ input: process.stdin });
    out({ event: "ready" });
    for await (const line of rl) {
        if (!line.trim()) continue;
        let c;
        try {
            c = JSON.parse(line);
        } catch (e) {
            out({ event: "error", error: "not JSON: " + line.slice(0, 200) });
            continue;
        }
        const fn = commands[c.cmd];
        if (!fn) {
            out({ id: c.id, ok: false, error: "unknown command " + c.cmd });
            continue;
        }
        // commands run side by side: a test may wait on one device while
        // another sends
        fn(c).then((r) => out(Object.assign({ id: c.id, ok: true }, r)),
            (e) => out({ id: c.id, ok: false, error: String(e.stack || e) }));
    }
    for (const p of devices.values()) {
        p.stopped = true;
        p.abort.abort();
    }
    process.exit(0);
}

main().catch((e) => {
    log("sdkclient:", e.stack || e);
    process.exit(1);
});
