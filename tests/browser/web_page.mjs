// tests/browser/web_page.mjs: the browser driver of the game pages' tests.
// Launches Debian's chromium headless once (puppeteer-core), then runs
// steps read as JSON, one per line, on stdin (or from a file given with
// --script FILE, a JSON array), and answers each with one JSON line on
// stdout: {"i":N,"do":...,"ok":true|false,"value":...,"error":...}.
// At the end it prints {"done":true,"ok":...,"steps":N,"ms":...}.
// A test in another language (tests/browser/page_test.py) drives it line
// by line, so it can act between steps (make a move, revoke the link).
//
// usage: node web_page.mjs [--out DIR] [--script FILE] [--chromium PATH]
// steps ("do"):
//   goto {url}                    -> {status}; the page's console errors,
//                                    uncaught errors and CSP violations are
//                                    collected from here on
//   viewport {width, height}
//   eval {js}                     -> the value of the expression js
//   wait {js, timeout}            until the expression js is truthy
//   key {key, times}              a key pressed (ArrowLeft, Home, ...), times
//                                 times in a row (1)
//   click {sel}                   a click on the first match of sel
//   focus {sel}
//   screenshot {name, full}       -> the PNG's path, DIR/name.png
//   axe {}                        -> axe-core's violations; ok is false on
//                                    any serious or critical one
//   errors {}                     -> the errors collected since the last call
//   js {enabled}                  JavaScript on or off for the next goto
//   media {features}              emulated media features, e.g.
//                                 [{"name":"prefers-reduced-motion","value":"reduce"}]
// axe-core is injected with page.evaluate: DevTools' evaluation is not
// subject to the page's CSP, so the page keeps its real CSP throughout
// (page.setBypassCSP is not needed and not used).
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import puppeteer from 'puppeteer-core';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = args.indexOf(name);
	return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const out = opt('--out', '.');
const script = opt('--script', null);
const chromium = opt('--chromium', process.env.CHROMIUM || '/usr/bin/chromium');
const t0 = Date.now();
let axeSource = null;
let errors = [];

function say(obj) {
	process.stdout.write(JSON.stringify(obj) + '\n');
}

const browser = await puppeteer.launch({
	executablePath: chromium,
	headless: true,
	// root has no sandbox in a container; the pages are our own, on loopback
	args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
		'--no-first-run', '--no-default-browser-check', '--disable-extensions',
		'--hide-scrollbars', '--font-render-hinting=none'],
});
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 900 });
page.setDefaultTimeout(10000);
// a favicon is not in the contract: its 404 is no error of the page
const ignored = (url) => /\/favicon\.ico$/.test(url);
page.on('console', (m) => {
	// failed loads are told below, with their address
	if (m.type() === 'error' && !/^Failed to load resource/.test(m.text()))
		errors.push('console: ' + m.text());
});
page.on('response', (r) => {
	if (r.status() >= 400 && !ignored(r.url()) && r.request().resourceType() !== 'document')
		errors.push('http ' + r.status() + ' ' + r.url());
});
page.on('requestfailed', (r) => {
	// an event stream the page closes (gone) ends as aborted: not an error
	if (!ignored(r.url()) && r.resourceType() !== 'eventsource')
		errors.push('failed ' + r.url() + ' ' + (r.failure() || {}).errorText);
});
page.on('pageerror', (e) => errors.push('pageerror: ' + (e.message || e)));
// a CSP violation the console might word differently: the event itself
await page.evaluateOnNewDocument(() => {
	document.addEventListener('securitypolicyviolation', (e) => {
		console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI);
	});
});

async function step(s) {
	switch (s.do) {
	case 'goto': {
		const r = await page.goto(s.url, { waitUntil: s.until || 'load' });
		return { status: r ? r.status() : 0 };
	}
	case 'viewport':
		await page.setViewport({ width: s.width, height: s.height || 900 });
		return null;
	case 'eval':
		return await page.evaluate(s.js);
	case 'wait':
		await page.waitForFunction(s.js, { timeout: s.timeout || 5000, polling: 50 });
		return null;
	case 'key':
		for (let k = 0; k < (s.times || 1); k++) await page.keyboard.press(s.key);
		return null;
	case 'click':
		await page.click(s.sel);
		return null;
	case 'focus':
		await page.focus(s.sel);
		return null;
	case 'screenshot': {
		fs.mkdirSync(out, { recursive: true });
		const file = path.join(out, s.name + '.png');
		await page.screenshot({ path: file, fullPage: s.full !== false });
		return file;
	}
	case 'axe': {
		if (!axeSource)
			axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
		if (!(await page.evaluate('typeof window.axe')).startsWith('object'))
			await page.evaluate(axeSource);
		const res = await page.evaluate(() => window.axe.run(document, {
			resultTypes: ['violations'],
		}).then((r) => r.violations.map((v) => ({
			id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
		}))));
		const bad = res.filter((v) => v.impact === 'serious' || v.impact === 'critical');
		if (bad.length) {
			const e = new Error('axe: ' + bad.map((v) => v.id + ' (' + v.impact + ')').join(', '));
			e.value = res;
			throw e;
		}
		return res;
	}
	case 'errors': {
		const e = errors;
		errors = [];
		return e;
	}
	case 'media':
		await page.emulateMediaFeatures(s.features || []);
		return null;
	case 'js':
		await page.setJavaScriptEnabled(s.enabled !== false);
		return null;
	default:
		throw new Error('unknown step ' + JSON.stringify(s.do));
	}
}

let n = 0, allOk = true;
async function run(s) {
	const t = Date.now();
	try {
		const value = await step(s);
		say({ i: n, do: s.do, ok: true, value, ms: Date.now() - t });
	} catch (e) {
		allOk = false;
		say({ i: n, do: s.do, ok: false, error: String(e.message || e),
			value: e.value, ms: Date.now() - t });
	}
	n++;
}

try {
	if (script) {
		for (const s of JSON.parse(fs.readFileSync(script, 'utf8'))) await run(s);
	} else {
		const rl = readline.createInterface({ input: process.stdin });
		for await (const line of rl) {
			if (line.trim()) await run(JSON.parse(line));
		}
	}
} finally {
	await browser.close();
	say({ done: true, ok: allOk, steps: n, ms: Date.now() - t0 });
}
