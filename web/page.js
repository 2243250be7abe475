/* web/page.js: the game page in the browser (served as /static/page.js).
 * Owns the live view and the replay: fetches state.json (?at=N for a past
 * position), follows new moves from the event stream of {{base}}/events,
 * steps positions with the slider, the buttons and the arrow keys.
 * The page's state is mirrored on <body data-at data-positions data-live>
 * so tests (and styles) can see it.  No eval, no inline code: the CSP
 * allows scripts from the bot's own origin only. */
(function () {
	'use strict';
	var d = document, body = d.body;
	var base = body.getAttribute('data-base') || '';
	var $ = function (id) { return d.getElementById(id); };
	var el = {
		status: $('status'), conn: $('conn'), gone: $('gone'),
		playersSec: $('players-sec'), players: $('players'),
		replay: $('replay'), prev: $('prev'), next: $('next'), pos: $('pos'),
		where: $('where'), mode: $('mode'), modeText: $('mode-text'),
		news: $('news'), tolive: $('tolive'),
		pic: $('pic'), text: $('text'), logSec: $('log-sec'), log: $('log')
	};
	/* English fallbacks: the server's labels (state.json "labels") win */
	var L = {
		move_of: 'Move {n} of {last}', start: 'Start of the game',
		live: 'Live', replaying: 'Replay', back_live: 'Back to live',
		new_move: '1 new move', new_moves: '{n} new moves',
		turn: 'Now playing', winner: 'Winner', score: 'Score',
		board_alt: 'The board as a picture; the text board says the same',
		gone: 'This page is no longer available.',
		offline: 'Connection lost; trying again…',
		load_error: 'Could not load this position; trying again…'
	};
	var latest = -1;     /* the last position known (positions - 1) */
	var at = -1;         /* the position shown */
	var live = true;     /* following new moves (the viewer is at the latest) */
	var leftAt = -1;     /* latest when the viewer left live: counts new moves */
	var want = null;     /* asked for, not fetched yet: a position, -1 the latest */
	var busy = false;    /* a state.json request is on its way */
	var gen = 0;         /* counts the asks: a retry of an old one is dropped */
	var logLen = -1, isGone = false, retry = 0, es = null;
	var reduce = window.matchMedia &&
		window.matchMedia('(prefers-reduced-motion: reduce)').matches;

	function fmt(key, n, last) {
		return String(L[key] || key).replace('{n}', n).replace('{last}', last);
	}
	function whereText(n) {
		return n === 0 ? L.start : fmt('move_of', n, latest);
	}
	function mark() {
		body.setAttribute('data-at', String(at));
		body.setAttribute('data-positions', String(latest + 1));
		body.setAttribute('data-live', live ? '1' : '0');
	}

	/* the slider, the buttons, the live/replay badge and the new-moves notice */
	function controls(n) {
		el.pos.max = String(Math.max(latest, 0));
		el.pos.value = String(n);
		el.pos.setAttribute('aria-valuetext', whereText(n));
		el.where.textContent = whereText(n);
		el.prev.setAttribute('aria-disabled', n <= 0 ? 'true' : 'false');
		el.next.setAttribute('aria-disabled', n >= latest ? 'true' : 'false');
		el.modeText.textContent = live ? L.live : L.replaying;
		el.mode.className = live ? 'mode live' : 'mode';
		el.tolive.hidden = live;
		var fresh = live || leftAt < 0 ? 0 : latest - leftAt;
		el.news.textContent = fresh <= 0 ? '' :
			fresh === 1 ? L.new_move : fmt('new_moves', fresh, latest);
	}

	function renderPlayers(list) {
		var frag = d.createDocumentFragment();
		(list || []).forEach(function (p) {
			var li = d.createElement('li'), name = d.createElement('span');
			li.className = 'player' + (p.turn ? ' turn' : '') + (p.winner ? ' won' : '');
			name.className = 'name';
			name.textContent = p.name;
			li.appendChild(name);
			/* whose turn and who won: in words (and a sign), not only colour */
			if (p.turn) li.appendChild(badge('badge now', '\u25B8 ', L.turn));
			if (p.winner) li.appendChild(badge('badge win', '\u2605 ', L.winner));
			if (p.score !== undefined && p.score !== '') {
				var sc = d.createElement('span'), lab = d.createElement('span');
				sc.className = 'score';
				lab.className = 'sr';
				lab.textContent = L.score + ': ';
				sc.appendChild(lab);
				sc.appendChild(d.createTextNode(String(p.score)));
				li.appendChild(sc);
			}
			if (p.turn) li.setAttribute('aria-current', 'true');
			frag.appendChild(li);
		});
		el.players.textContent = '';
		el.players.appendChild(frag);
		el.playersSec.hidden = !(list && list.length);
	}
	function badge(cls, sign, text) {
		var b = d.createElement('span'), s = d.createElement('span');
		b.className = cls;
		s.setAttribute('aria-hidden', 'true');
		s.textContent = sign;
		b.appendChild(s);
		b.appendChild(d.createTextNode(text));
		return b;
	}

	function renderLog(log) {
		if (!log) return;
		if (log.length !== logLen) {
			var frag = d.createDocumentFragment(), prev = -1;
			log.forEach(function (line) {
				var li = d.createElement('li');
				li.setAttribute('data-at', String(line.at));
				if (line.at !== prev) {
					var n = d.createElement('span');
					n.className = 'n';
					n.textContent = String(line.at);
					n.setAttribute('aria-hidden', 'true');
					li.appendChild(n);
					prev = line.at;
				}
				li.appendChild(d.createTextNode(line.text));
				frag.appendChild(li);
			});
			el.log.textContent = '';
			el.log.appendChild(frag);
			logLen = log.length;
		}
		el.logSec.hidden = logLen <= 0;
	}
	/* The line(s) that led to position n stand out; a move that no public
	 * line tells (a card chosen face down) shows the last told before it.
	 * Later lines are dimmed. */
	function highlight(n) {
		var first = null, items = el.log.children, i, a, mark = -1;
		for (i = 0; i < items.length; i++) {
			a = +items[i].getAttribute('data-at');
			if (a <= n && a > mark) mark = a;
		}
		for (i = 0; i < items.length; i++) {
			a = +items[i].getAttribute('data-at');
			items[i].className = a === mark ? 'cur' : a > n ? 'later' : '';
			if (a === mark) {
				items[i].setAttribute('aria-current', 'step');
				if (!first) first = items[i];
			} else {
				items[i].removeAttribute('aria-current');
			}
		}
		if (!first) return;
		/* scroll the log's own box only: the page stays where the viewer is */
		var box = el.log, top = first.offsetTop - box.offsetTop -
			(box.clientHeight - first.offsetHeight) / 2;
		if (box.scrollTo) box.scrollTo({ top: Math.max(0, top), behavior: reduce ? 'auto' : 'smooth' });
		else box.scrollTop = Math.max(0, top);
	}

	/* board.png may answer 503 (the bot's paint budget): asked again after
	 * PIC_WAIT ms, doubling, PIC_TRIES times, before the browser's broken
	 * picture (with its alt text) is shown */
	var PIC_WAIT = 500, PIC_TRIES = 4, firstPic = true;
	function setPicture(url, alt) {
		var mine = at, tries = 0;
		/* settled: what was asked last is what is shown */
		function done() { if (want === null && !busy) body.removeAttribute('data-loading'); }
		function show() {
			el.pic.src = url;
			el.pic.alt = alt;
			done();
		}
		/* load it aside first, so stepping does not blink an empty frame */
		function attempt() {
			var im = new Image();
			im.onload = function () { if (mine === at) show(); };
			im.onerror = function () {
				if (mine !== at) return;
				if (tries++ < PIC_TRIES) {
					setTimeout(function () { if (mine === at) attempt(); },
						PIC_WAIT << (tries - 1));
					return;
				}
				show();
			};
			im.src = url;
		}
		var first = firstPic;
		firstPic = false;
		if (!url) return done();
		/* opening at the latest position: the page's own <img> (there for
		 * readers without JS) is that picture already; not asked twice */
		if (first && at === latest && el.pic.getAttribute('src') === base + '/board.png') {
			el.pic.alt = alt;
			if (!el.pic.complete) {
				el.pic.addEventListener('load', done, { once: true });
				el.pic.addEventListener('error', attempt, { once: true });
				return;
			}
			if (el.pic.naturalWidth > 0) return done();
		}
		attempt();
	}

	function apply(s) {
		if (s.labels) for (var k in s.labels) L[k] = s.labels[k];
		var last = (s.positions | 0) - 1;
		if (last > latest) latest = last;
		at = s.at | 0;
		if (at === latest) {
			el.status.textContent = s.status_text || '';
			if (s.title) d.getElementById('title').textContent = s.title;
		}
		if (s.status) body.setAttribute('data-status', s.status);
		renderPlayers(s.players);
		el.text.textContent = s.board_text || '';
		renderLog(s.log);
		highlight(at);
		/* a key held down has asked further already: the slider shows that */
		controls(want !== null && want >= 0 ? want : at);
		mark();
		/* a lobby has no position yet: nothing to picture or step through */
		el.pic.parentNode.hidden = !s.board_png;
		el.replay.hidden = latest < 0;
		setPicture(s.board_png, L.board_alt + ' (' + whereText(at) + ')');
	}

	function url(n) {
		return base + '/state.json' + (n === null ? '' : '?at=' + n);
	}
	/* Show position n (null: the latest).  One request at a time, the last
	 * ask next: a key held down or a slider dragged asks for what the
	 * round trips allow, not for every position passed (the bot limits
	 * requests per address). */
	function load(n) {
		want = n === null ? -1 : n;
		gen++;
		body.setAttribute('data-loading', '1');
		if (!busy) pump();
	}
	function pump() {
		if (want === null || isGone) return;
		var n = want < 0 ? null : want, mine = gen;
		want = null;
		busy = true;
		fetch(url(n), { cache: 'no-store', credentials: 'omit' }).then(function (r) {
			if (r.status === 404) { goneNow(); throw null; }
			if (!r.ok) {
				var e = new Error('HTTP ' + r.status);
				/* busy or broken now, maybe not later; another 4xx stays */
				e.again = r.status === 429 || r.status >= 500;
				throw e;
			}
			return r.json();
		}).then(function (s) {
			busy = false;
			retry = 0;
			el.conn.hidden = true;
			if (isGone) return;
			apply(s);
			pump();
		}).catch(function (e) {
			busy = false;
			if (e === null || isGone) return;
			if (want !== null) return pump();
			el.conn.textContent = L.load_error;
			el.conn.hidden = false;
			if (e.again === false) return body.removeAttribute('data-loading');
			retry = Math.min(retry ? retry * 2 : 1000, 16000);
			setTimeout(function () { if (mine === gen) load(n); }, retry);
		});
	}

	/* show position n: at the latest the page follows new moves again */
	function go(n) {
		if (isGone || latest < 0) return;
		n = Math.max(0, Math.min(latest, n | 0));
		var wasLive = live;
		live = n === latest;
		if (live) leftAt = -1;
		else if (wasLive) leftAt = latest;
		controls(n);
		body.setAttribute('data-live', live ? '1' : '0');
		load(n);
	}

	function onMove(ev) {
		var m;
		try { m = JSON.parse(ev.data); } catch (e) { return; }
		var last = (m.positions | 0) - 1;
		/* no new position: the game paused, resumed or ended (a timeout);
		 * a viewer at the latest sees its new status */
		if (last === latest && live) return load(null);
		if (last < latest) {
			/* an undo: the positions after it are no more */
			latest = last;
			if (leftAt > last) leftAt = last;
			if (live || +el.pos.value > last) return go(last);
			controls(+el.pos.value);
			return mark();
		}
		if (last === latest) return;
		if (live) {
			latest = last;
			go(last);
		} else {
			latest = last;
			controls(+el.pos.value);
			mark();
			peek();
		}
	}
	/* a viewer replaying still hears whose turn it is now: the status line
	 * follows the latest position, the position shown stays */
	function peek() {
		fetch(url(null), { cache: 'no-store', credentials: 'omit' }).then(function (r) {
			return r.ok ? r.json() : null;
		}).then(function (s) {
			if (s && !isGone && s.at >= latest) el.status.textContent = s.status_text || '';
		}).catch(function () {});
	}

	function goneNow() {
		if (isGone) return;
		isGone = true;
		if (es) es.close();
		el.gone.textContent = L.gone;
		el.gone.hidden = false;
		el.replay.hidden = true;
		el.conn.hidden = true;
		body.setAttribute('data-gone', '1');
		body.removeAttribute('data-loading');
	}

	function listen() {
		if (!window.EventSource) return;
		var opened = false;
		es = new EventSource(base + '/events');
		es.addEventListener('move', onMove);
		es.addEventListener('gone', function () {
			goneNow();
			/* the contract: the client fetches state.json after gone; a 404
			 * there confirms it (and nothing else is shown) */
			fetch(url(null), { cache: 'no-store', credentials: 'omit' }).catch(function () {});
		});
		es.onopen = function () {
			el.conn.hidden = true;
			/* moves made while the stream was down: catch up once */
			if (opened && live) load(null);
			opened = true;
		};
		es.onerror = function () {
			if (isGone) return;
			el.conn.textContent = L.offline;
			el.conn.hidden = false;
			/* closed for good (a 404 instead of a stream): is the page gone? */
			if (es.readyState === 2) load(null);
		};
	}

	function onKey(e) {
		if (isGone || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
		var t = e.target;
		/* the slider moves itself with these keys (and fires input) */
		if (t === el.pos || (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
		var n = +el.pos.value;
		switch (e.key) {
		case 'ArrowLeft': n -= 1; break;
		case 'ArrowRight': n += 1; break;
		case 'Home': n = 0; break;
		case 'End': n = latest; break;
		default: return;
		}
		e.preventDefault();
		go(n);
	}

	/* input: every value the slider takes, by pointer or by key */
	el.pos.addEventListener('input', function () { go(+el.pos.value); });
	el.prev.addEventListener('click', function () { go(+el.pos.value - 1); });
	el.next.addEventListener('click', function () { go(+el.pos.value + 1); });
	el.tolive.addEventListener('click', function () {
		go(latest);
		el.pos.focus();
	});
	d.addEventListener('keydown', onKey);
	/* another width, another log box: keep the highlighted line in it */
	window.addEventListener('resize', function () { if (at >= 0) highlight(at); });

	load(null);
	listen();
})();
