// The shared Discord REST proxy of docs/deploy.md ("Several processes, one
// rate limit"): every tabula process sends its REST requests here
// (DISCORD_API_URL + DISCORD_API_PROXY=1), and @discordjs/proxy sends them
// on to Discord through one @discordjs/rest queue, which keeps Discord's
// per-route buckets and the bot's global limit for all of them together.
//
//   cd scripts/discord-proxy && npm ci && node proxy.mjs
//
// The proxy holds no token: each request brings the bot's Authorization
// header, which @discordjs/proxy passes on.  Nothing here logs a header, a
// body or a whole path (interaction tokens sit in paths).
//
// Environment:
//   DISCORD_PROXY_LISTEN   host:port ([::1]:port for IPv6) or the path of a
//                          Unix socket (starts with /); default 127.0.0.1:8080
//   DISCORD_PROXY_GLOBAL   the bot's global limit, requests per second
//                          (Discord's is 50 unless it raised the bot's);
//                          @discordjs/rest cannot learn it from Discord
//   DISCORD_PROXY_API      Discord's API without the version (tests name
//                          their fake here); default https://discord.com/api
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { proxyRequests } from '@discordjs/proxy';
import { REST } from '@discordjs/rest';

const listen = process.env.DISCORD_PROXY_LISTEN || '127.0.0.1:8080';
const perSecond = Number(process.env.DISCORD_PROXY_GLOBAL || 50);
const api = process.env.DISCORD_PROXY_API || 'https://discord.com/api';

function fail(msg) {
	console.error(`discord-proxy: ${msg}`);
	process.exit(2);
}

if (!Number.isInteger(perSecond) || perSecond < 1 || perSecond > 100000)
	fail('DISCORD_PROXY_GLOBAL must be a whole number of requests per second');
if (!/^https:\/\//.test(api) && !/^http:\/\/(127\.|\[::1\]|localhost[:/])/.test(api))
	fail('DISCORD_PROXY_API must be https://, or http:// to a loopback address');

const rest = new REST({
	api,
	version: '10',			// the bot's API version (adapters/discord/rest.h)
	globalRequestsPerSecond: perSecond,
	// A request Discord does not answer in 10 s is tried once more, so the
	// proxy answers (504) before the bot's own 30-s timeout gives up on it
	// and sends it again; 5xx and network errors are retried by the bot,
	// with backoff.
	timeout: 10_000,
	retries: 1,
});
const handle = proxyRequests(rest);

// The route without ids' tokens or the query string, for the log.
function shown(req) {
	const path = (req.url || '').split('?')[0]
		.replace(/\/(webhooks|interactions)\/(\d+)\/[^/]+/, '/$1/$2/:token');
	return `${req.method} ${path.replace(/^\/api(\/v\d+)?/, '')}`;
}

const server = createServer((req, res) => {
	// @discordjs/proxy sets the status of every answer it has (Discord's,
	// a 429 of its own, 504 when Discord timed out); when Discord cannot be
	// reached at all it rethrows after ending the response, which would go
	// out as an empty 200: a message the bot would take as delivered.
	res.statusCode = 502;
	handle(req, res).catch((err) => {
		console.error(`discord-proxy: ${shown(req)}: no answer from Discord ` +
			`(${err.code || err.cause?.code || err.name}); answered 502`);
	});
});

if (listen.startsWith('/')) {
	// a socket left by a proxy that died would refuse the listen
	try {
		if (lstatSync(listen).isSocket())
			unlinkSync(listen);
	} catch {
		// no such file
	}
	server.listen(listen, () => {
		// who may use the proxy: the owner and the group (the shards' user)
		chmodSync(listen, 0o660);
		console.error(`discord-proxy: listening on ${listen}, global limit ${perSecond}/s`);
	});
} else {
	const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d+)$/.exec(listen);

	if (!m)
		fail('DISCORD_PROXY_LISTEN must be host:port or the path of a Unix socket');
	server.listen(Number(m[2]), m[1].replace(/^\[|\]$/g, ''), () => {
		const a = server.address();
		console.error(`discord-proxy: listening on ${a.address}:${a.port}, global limit ${perSecond}/s`);
	});
}
server.on('error', (err) => fail(`cannot listen on ${listen}: ${err.code || err.message}`));
for (const sig of ['SIGTERM', 'SIGINT'])
	process.on(sig, () => server.close(() => process.exit(0)).closeAllConnections?.());
