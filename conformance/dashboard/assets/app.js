// The rdmaconf dashboard page. Every text that comes from the server (case
// ids, reasons, frame fields, targets, script text) enters the page through
// textContent or an attribute set as a property: no markup is ever built
// from data, so a capture or case full of <script> stays text.
'use strict';

const VERDICTS = ['fail', 'error', 'non-strict', 'unimplemented', 'informational', 'pass'];
const RANK = Object.fromEntries(VERDICTS.map((v, i) => [v, i]));
const LEVELS = ['MUST', 'SHOULD', 'MAY'];

const state = {
  token: sessionStorage.getItem('rdmaconf-token') || '',
  runs: new Map(),        // id -> run summary
  run: null,              // the run on screen: summary + cases
  filter: {text: '', verdict: '', level: '', protocol: ''},
  pending: [],            // events not yet drawn
  stats: {events: 0, batches: 0, draws: 0, lastDrawMs: 0},
};
window.rdmaconfStats = state.stats;

// ------------------------------------------------------------ DOM helpers

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e[k] = v;
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}
const svgNs = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, text) {
  const e = document.createElementNS(svgNs, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}
// Replaces a node's children; arrays are flattened and absent parts
// (null, undefined, false) skipped, as el() does.
function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}
function show(...nodes) { fill(document.getElementById('main'), ...nodes); }
function verdictSpan(v) { return el('span', {className: v}, v); }

// ------------------------------------------------------------ API

async function api(path) {
  const r = await fetch(path, {headers: {Accept: 'application/json'}});
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.error && j.error.message) || ('HTTP ' + r.status));
  return j;
}
async function post(path, body) {
  const r = await fetch(path, {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Authorization: 'Bearer ' + state.token},
    body: JSON.stringify(body || {}),
  });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.error && j.error.message) || ('HTTP ' + r.status));
  return j;
}

// ------------------------------------------------------------ token

function takeTokenFromHash() {
  // The token travels in the fragment (never sent to the server in a URL)
  // and is kept for this tab only.
  const m = location.hash.match(/^#token=([A-Za-z0-9._~-]{1,256})$/);
  if (m) {
    state.token = m[1];
    sessionStorage.setItem('rdmaconf-token', state.token);
    history.replaceState(null, '', '#/');
  }
}
function drawAuth() {
  const box = document.getElementById('auth');
  if (state.token) {
    box.replaceChildren(el('span', {className: 'muted'}, 'token set '),
      el('button', {onclick: () => { state.token = ''; sessionStorage.removeItem('rdmaconf-token'); drawAuth(); }}, 'forget'));
  } else {
    const input = el('input', {type: 'password', placeholder: 'token (to start or cancel runs)', size: 28});
    box.replaceChildren(input, el('button', {onclick: () => {
      state.token = input.value.trim();
      sessionStorage.setItem('rdmaconf-token', state.token);
      drawAuth();
    }}, 'use'));
  }
}

// ------------------------------------------------------------ live events

let lastSeq = 0;
function connect() {
  const live = document.getElementById('live');
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/api/events?after=' + lastSeq);
  ws.onopen = () => { live.textContent = 'live'; live.className = 'live on'; };
  ws.onclose = () => {
    live.textContent = 'offline'; live.className = 'live off';
    setTimeout(connect, 1000);
  };
  ws.onmessage = (m) => {
    let batch;
    try { batch = JSON.parse(m.data); } catch (e) { return; }
    if (!Array.isArray(batch)) return;
    state.stats.batches++;
    const now = performance.now();
    for (const e of batch) {
      if (typeof e.seq === 'number') lastSeq = Math.max(lastSeq, e.seq);
      e.arrived = now;
      state.pending.push(e);
    }
    scheduleDraw();
  };
}

// Events are applied and drawn at most once per frame: a 10,000-case run
// costs a redraw per frame, not per case.
let drawScheduled = false;
function scheduleDraw() {
  if (drawScheduled) return;
  drawScheduled = true;
  requestAnimationFrame(() => {
    drawScheduled = false;
    const events = state.pending;
    state.pending = [];
    let runChanged = false, listChanged = false;
    for (const e of events) {
      state.stats.events++;
      if (e.type === 'run') {
        // An event that says what the page already shows (the fetch that
        // drew the view saw it too) draws nothing.
        const known = state.runs.get(e.run.id);
        if (!known || JSON.stringify(known) !== JSON.stringify(e.run)) {
          state.runs.set(e.run.id, e.run);
          listChanged = true;
        }
        if (state.run && state.run.id === e.run.id &&
            Object.keys(e.run).some((k) => k !== 'cases' && JSON.stringify(state.run[k]) !== JSON.stringify(e.run[k]))) {
          Object.assign(state.run, e.run, {cases: state.run.cases});
          runChanged = true;
        }
      } else if (e.type === 'case' && state.run && state.run.id === e.run_id) {
        if (!state.run.cases.some((c) => c.seq === e.case.seq)) {
          state.run.cases.push(e.case);
          state.run.summary[e.case.verdict] = (state.run.summary[e.case.verdict] || 0) + 1;
          state.run.total = state.run.cases.length;
          runChanged = true;
        }
      } else if (e.type === 'case') {
        const r = state.runs.get(e.run_id);
        if (r) { r.summary[e.case.verdict] = (r.summary[e.case.verdict] || 0) + 1; r.total++; listChanged = true; }
      }
    }
    const view = currentView();
    if (runChanged && view.name === 'run') drawRun();
    else if (listChanged && view.name === 'runs') drawRuns();
    if (events.length) {
      const now = performance.now();
      state.stats.draws++;
      state.stats.lastDrawMs = now - events[0].arrived;
      document.body.dataset.lastSeq = String(lastSeq);
    }
  });
}

// ------------------------------------------------------------ views

function currentView() {
  const h = location.hash.replace(/^#/, '') || '/';
  let m;
  if ((m = h.match(/^\/run\/(\d+)\/case\/(\d+)$/))) return {name: 'case', run: +m[1], seq: +m[2]};
  if ((m = h.match(/^\/run\/(\d+)$/))) return {name: 'run', run: +m[1]};
  if ((m = h.match(/^\/diff\/(\d+)\/(\d+)$/))) return {name: 'diff', a: +m[1], b: +m[2]};
  if (h === '/diff') return {name: 'diff'};
  if (h === '/new') return {name: 'new'};
  if (h === '/captures') return {name: 'captures'};
  if (h === '/coverage') return {name: 'coverage'};
  if ((m = h.match(/^\/capture\/(\d+)$/))) return {name: 'capture', id: +m[1]};
  return {name: 'runs'};
}

// Each navigation is a generation: the answer to a view the user has
// already left (two hash changes in quick succession, a slow fetch) is
// dropped instead of drawn over the view now on screen.
let routeGen = 0;
async function route() {
  const v = currentView();
  const gen = ++routeGen;
  const current = () => gen === routeGen;
  try {
    if (v.name === 'runs') {
      const j = await api('/api/runs?limit=200');
      if (!current()) return;
      state.runs = new Map(j.runs.map((r) => [r.id, r]));
      state.run = null;
      drawRuns();
    } else if (v.name === 'run') {
      const run = await api('/api/runs/' + v.run);
      if (!current()) return;
      state.run = run;
      drawRun();
    } else if (v.name === 'case') {
      await drawCase(v.run, v.seq, current);
    } else if (v.name === 'diff') {
      await drawDiff(v.a, v.b, current);
    } else if (v.name === 'new') {
      await drawNew(current);
    } else if (v.name === 'coverage') {
      const cov = await api('/api/coverage');
      if (!current()) return;
      state.coverage = cov;
      drawCoverage();
    } else if (v.name === 'captures') {
      await drawCaptures(current);
    } else if (v.name === 'capture') {
      await drawCapture(v.id, current);
    }
  } catch (err) {
    if (current()) show(el('p', {className: 'msg'}, String(err.message || err)));
  }
}

function countsCells(summary) {
  return VERDICTS.map((v) => el('td', {className: 'num ' + ((summary[v] || 0) ? v : 'muted')}, String(summary[v] || 0)));
}

function drawRuns() {
  const runs = [...state.runs.values()].sort((a, b) => b.id - a.id);
  const rows = runs.map((r, i) => {
    const prev = runs[i + 1];
    return el('tr', {dataset: {run: String(r.id)}},
      el('td', {}, el('a', {href: '#/run/' + r.id}, '#' + r.id)),
      el('td', {className: 'status-' + r.status}, r.status),
      el('td', {}, r.source),
      el('td', {}, r.target),
      el('td', {className: 'muted'}, r.created_at),
      el('td', {className: 'num'}, String(r.total)),
      ...countsCells(r.summary),
      el('td', {}, prev ? el('a', {href: '#/diff/' + prev.id + '/' + r.id}, 'diff with #' + prev.id) : ''));
  });
  show(el('h2', {}, 'Runs'),
    runs.length ? el('table', {id: 'runs'},
      el('tr', {}, ['run', 'status', 'source', 'target', 'created', 'cases', ...VERDICTS, ''].map((h) => el('th', {}, h))),
      rows) : el('p', {className: 'muted'}, 'No runs yet. Start one, or publish one with rdmaconf run --publish.'));
}

function matches(c, f) {
  if (f.verdict && c.verdict !== f.verdict) return false;
  if (f.level && c.level !== f.level) return false;
  if (f.protocol && c.protocol !== f.protocol) return false;
  if (f.text) {
    const t = f.text.toLowerCase();
    const hay = [c.id, c.title, c.rfc, c.reason, c.configuration, ...(c.requirements || [])].join('\n').toLowerCase();
    if (!hay.includes(t)) return false;
  }
  return true;
}

function drawMatrix(cases, onPick) {
  const protocols = [...new Set(cases.map((c) => c.protocol))].sort();
  const levels = LEVELS.filter((l) => cases.some((c) => c.level === l));
  const cell = (p, l) => {
    const counts = {};
    for (const c of cases) if (c.protocol === p && c.level === l) counts[c.verdict] = (counts[c.verdict] || 0) + 1;
    const bad = (counts.fail || 0) + (counts.error || 0);
    const parts = VERDICTS.filter((v) => counts[v]).map((v) => el('div', {className: v}, counts[v] + ' ' + v));
    return el('td', {
      className: parts.length ? (bad ? 'cell-fail' : 'cell-ok') : 'muted',
      title: 'show these cases',
      onclick: () => onPick(p, l),
    }, parts.length ? parts : '—');
  };
  return el('table', {className: 'matrix', id: 'matrix'},
    el('tr', {}, el('th', {}, 'protocol \\ level'), levels.map((l) => el('th', {}, l))),
    protocols.map((p) => el('tr', {}, el('th', {}, p), levels.map((l) => cell(p, l)))));
}

// The run view is built once per run on screen; live events and filters
// redraw only the parts that change. The search box keeps its focus and
// caret while cases arrive, and a case row, once drawn, stays the same
// element, so a click aimed at it never lands on a replaced node.
let runView = null;

function buildRunView(r) {
  const f = state.filter;
  const v = {id: r.id, rows: new Map(), protocols: ''};
  const redraw = () => updateRunView(state.run);
  v.search = el('input', {type: 'search', id: 'search', placeholder: 'id, requirement, RFC section, text', value: f.text, size: 36,
    oninput: (e) => { f.text = e.target.value; clearTimeout(v.typing); v.typing = setTimeout(redraw, 150); }});
  const pick = (key, values, label) => el('select', {id: 'filter-' + key, onchange: (e) => { f[key] = e.target.value; redraw(); }},
    el('option', {value: ''}, 'any ' + label), values.map((x) => el('option', {value: x, selected: f[key] === x}, x)));
  v.selects = {verdict: pick('verdict', VERDICTS, 'verdict'), level: pick('level', LEVELS, 'level'), protocol: pick('protocol', [], 'protocol')};
  v.head = el('div', {id: 'run-head'});
  v.cancel = el('button', {id: 'cancel', hidden: true, onclick: async () => {
    try { await post('/api/runs/' + state.run.id + '/cancel'); } catch (err) { alert(err.message); }
  }}, 'Cancel');
  v.counts = el('p', {id: 'counts'});
  v.skipped = el('details', {hidden: true}, el('summary', {}, 'not run'), el('ul'));
  v.config = el('pre');
  v.matrix = el('div');
  v.shown = el('span', {className: 'muted', id: 'shown'});
  v.table = el('table', {id: 'cases'});
  v.header = el('tr', {}, ['verdict', 'case', 'level', 'RFC', 'requirement', 'reason'].map((h) => el('th', {}, h)));
  v.more = el('p', {className: 'muted'});
  v.setFilter = (next) => {
    Object.assign(f, next);
    v.search.value = f.text;
    for (const [k, s] of Object.entries(v.selects)) s.value = f[k];
    redraw();
  };
  v.root = el('div', {id: 'run-view'},
    v.head, v.cancel, v.counts, v.skipped,
    el('details', {}, el('summary', {}, 'configuration'), v.config),
    el('h3', {}, 'Protocol × level'), v.matrix,
    el('h3', {}, 'Cases (failures first)'),
    el('div', {className: 'bar'}, v.search, v.selects.verdict, v.selects.level, v.selects.protocol,
      el('button', {onclick: () => v.setFilter({text: '', verdict: '', level: '', protocol: ''})}, 'clear'), v.shown),
    v.table, v.more);
  show(v.root);
  return v;
}

function caseRow(v, r, c) {
  const key = c.seq + ' ' + c.verdict;
  let row = v.rows.get(key);
  if (!row) {
    row = el('tr', {dataset: {verdict: c.verdict}},
      el('td', {}, verdictSpan(c.verdict)),
      el('td', {}, el('a', {href: '#/run/' + r.id + '/case/' + c.seq}, c.id), c.configuration ? ' [' + c.configuration + ']' : ''),
      el('td', {}, c.level), el('td', {}, c.rfc), el('td', {}, (c.requirements || []).join(', ')),
      el('td', {}, c.reason));
    v.rows.set(key, row);
  }
  return row;
}

function updateRunView(r) {
  const v = runView;
  const f = state.filter;
  const active = r.status === 'queued' || r.status === 'running';
  fill(v.head,
    el('h2', {}, 'Run #' + r.id + ' ', el('span', {className: 'status-' + r.status, id: 'run-status'}, r.status)),
    el('p', {}, 'Target: ', el('b', {}, r.target || '(not yet started)'), ' · source ', r.source, ' · created ', r.created_at,
      r.duration_ms ? ' · ' + r.duration_ms + ' ms' : ''),
    r.message ? el('p', {className: 'msg'}, r.message) : null);
  v.cancel.hidden = !(active && state.token);
  fill(v.counts, el('b', {}, String(r.cases.length)), ' cases: ',
    VERDICTS.filter((x) => r.summary[x]).map((x) => el('span', {className: x}, ' ' + r.summary[x] + ' ' + x + ' ')));
  v.skipped.hidden = !(r.skipped && r.skipped.length);
  if (!v.skipped.hidden) fill(v.skipped.lastChild, r.skipped.map((s) => el('li', {}, s)));
  v.config.textContent = JSON.stringify(r.config, null, 2);
  fill(v.matrix, drawMatrix(r.cases, (p, l) => v.setFilter({protocol: p, level: l})));

  const protocols = [...new Set(r.cases.map((c) => c.protocol))].sort();
  if (protocols.join() !== v.protocols) {
    v.protocols = protocols.join();
    fill(v.selects.protocol, el('option', {value: ''}, 'any protocol'),
      protocols.map((x) => el('option', {value: x, selected: f.protocol === x}, x)));
  }
  const cases = r.cases.filter((c) => matches(c, f))
    .sort((a, b) => (RANK[a.verdict] - RANK[b.verdict]) || a.id.localeCompare(b.id));
  const limit = 2000;
  v.shown.textContent = cases.length + ' shown';
  fill(v.table, v.header, cases.slice(0, limit).map((c) => caseRow(v, r, c)));
  v.more.textContent = cases.length > limit ? (cases.length - limit) + ' more: narrow the filter' : '';
}

function drawRun() {
  const r = state.run;
  if (!runView || runView.id !== r.id || !runView.root.isConnected) runView = buildRunView(r);
  updateRunView(r);
}

// The exchange as a sequence diagram: tester on the left, IUT on the
// right, one arrow per frame; a click shows the frame's decoded fields.
function sequenceDiagram(frames, agent, names = ['tester', 'IUT'], leftSide = 'tester') {
  const W = 760, left = 90, right = W - 90, rowH = 34, top = 40;
  const items = frames.map((f, i) => ({kind: 'frame', at: f.at_ms, f, i}))
    .concat((agent || []).map((a) => ({kind: 'agent', at: a.at_ms, a})))
    .sort((x, y) => x.at - y.at);
  const H = top + items.length * rowH + 30;
  const s = svg('svg', {class: 'seq', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img'});
  const defs = svg('defs');
  const marker = svg('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto'});
  marker.append(svg('path', {d: 'M0,0 L10,5 L0,10 z', fill: '#333'}));
  defs.append(marker);
  s.append(defs);
  s.append(svg('text', {x: left, y: 20, 'text-anchor': 'middle', 'font-weight': 'bold'}, names[0]));
  s.append(svg('text', {x: right, y: 20, 'text-anchor': 'middle', 'font-weight': 'bold'}, names[1]));
  s.append(svg('line', {x1: left, y1: 28, x2: left, y2: H - 10, stroke: '#999'}));
  s.append(svg('line', {x1: right, y1: 28, x2: right, y2: H - 10, stroke: '#999'}));
  const detail = el('pre', {id: 'frame-detail', className: 'muted'}, 'Click a frame for its decoded fields.');
  items.forEach((it, k) => {
    const y = top + k * rowH + 12;
    if (it.kind === 'frame') {
      const fromTester = it.f.from === leftSide;
      const g = svg('g', {class: 'frame', 'data-index': it.i});
      g.append(svg('line', {x1: fromTester ? left : right, y1: y, x2: fromTester ? right : left, y2: y, stroke: '#333', 'marker-end': 'url(#arrow)'}));
      const label = it.f.headline.replace(/^(-->|<--)\s*/, '');
      g.append(svg('text', {x: W / 2, y: y - 5, 'text-anchor': 'middle'}, label.length > 80 ? label.slice(0, 77) + '...' : label));
      g.append(svg('text', {x: 4, y: y + 4, fill: '#888'}, it.f.frame !== undefined ? 'frame ' + it.f.frame : it.at.toFixed(1) + ' ms'));
      g.addEventListener('click', () => { detail.className = ''; detail.textContent = it.f.headline + '\n\n' + it.f.detail; });
      s.append(g);
    } else {
      const a = it.a;
      // What the IUT reported itself (its agent), beside its lifeline.
      const note = svg('text', {x: right - 6, y: y + 4, fill: '#6a1b9a', 'text-anchor': 'end'},
        a.kind + ' ' + a.name + (a.status ? ' ' + a.status : '') + (a.detail ? ' (' + a.detail.slice(0, 60) + ')' : '') + ' •');
      s.append(note);
    }
  });
  return el('div', {}, s, detail);
}

async function drawCase(runId, seq, current) {
  const c = await api('/api/runs/' + runId + '/cases/' + seq);
  let script = null;
  try { script = (await api('/api/scripts/' + encodeURIComponent(c.id))).text; } catch (e) { script = null; }
  const scriptBox = el('pre', {id: 'script'});
  if (script !== null) {
    script.split('\n').forEach((line, i) => {
      const n = i + 1;
      scriptBox.append(el('span', {className: n === c.failed_line ? 'fail' : ''}, String(n).padStart(3, ' ') + '  ' + line + '\n'));
    });
  } else {
    scriptBox.textContent = 'The script is not in this dashboard\'s catalogue.';
  }
  if (!current()) return;
  show(
    el('p', {}, el('a', {href: '#/run/' + runId}, '← run #' + runId)),
    el('h2', {id: 'case-title'}, c.id, c.configuration ? ' [' + c.configuration + ']' : ''),
    el('p', {}, c.title),
    el('p', {}, 'Verdict: ', verdictSpan(c.verdict), ' · level ', c.level, ' · ', c.rfc, ' · IUT role ', c.role,
      ' · requirement ', (c.requirements || []).join(', ')),
    c.reason ? el('p', {id: 'reason'}, c.failed_line ? 'line ' + c.failed_line + ': ' : '', el('span', {className: c.verdict}, c.reason)) : null,
    el('h3', {}, 'Exchange'),
    c.tester_address ? el('p', {className: 'muted'}, 'tester ' + c.tester_address + ' ↔ IUT ' + c.iut_address) : null,
    sequenceDiagram(c.frames || [], c.agent || []),
    el('h3', {}, 'Script ', el('span', {className: 'muted'}, c.script || '')),
    scriptBox);
}

async function drawDiff(a, b, current) {
  const runs = (await api('/api/runs?limit=200')).runs;
  const pickA = el('select', {id: 'diff-a'}, runs.map((r) => el('option', {value: r.id, selected: r.id === a}, '#' + r.id + ' ' + r.target + ' (' + r.created_at + ')')));
  const pickB = el('select', {id: 'diff-b'}, runs.map((r) => el('option', {value: r.id, selected: r.id === b}, '#' + r.id + ' ' + r.target + ' (' + r.created_at + ')')));
  const bar = el('div', {className: 'bar'}, 'before ', pickA, ' after ', pickB,
    el('button', {id: 'diff-go', onclick: () => { location.hash = '#/diff/' + pickA.value + '/' + pickB.value; }}, 'Compare'));
  if (!a || !b) { if (current()) show(el('h2', {}, 'Run diff'), bar); return; }
  const d = await api('/api/diff?a=' + a + '&b=' + b);
  if (!current()) return;
  const section = (key, title) => el('section', {id: 'diff-' + key},
    el('h3', {}, title + ' (' + d[key].length + ')'),
    d[key].length ? el('table', {},
      el('tr', {}, ['case', 'level', 'before', 'after'].map((h) => el('th', {}, h))),
      d[key].map((e) => el('tr', {},
        el('td', {}, e.after ? el('a', {href: '#/run/' + b + '/case/' + e.after.seq}, e.id) : e.id, e.configuration ? ' [' + e.configuration + ']' : ''),
        el('td', {}, e.level),
        el('td', {}, e.before ? [verdictSpan(e.before.verdict), ' ', e.before.reason] : '—'),
        el('td', {}, e.after ? [verdictSpan(e.after.verdict), ' ', e.after.reason] : '—')))) : el('p', {className: 'muted'}, 'none'));
  show(el('h2', {}, 'Run diff: #' + a + ' → #' + b), bar,
    el('p', {}, d.unchanged + ' cases unchanged.'),
    section('new_failures', 'New failures'), section('fixed', 'Fixed'), section('changed', 'Changed (same verdict class, other verdict or reason)'),
    section('added', 'Only in #' + b), section('removed', 'Only in #' + a));
}

async function drawNew(current) {
  const cat = (await api('/api/catalogue')).cases;
  if (!current()) return;
  const kind = el('select', {id: 'kind'}, ['reference', 'target', 'agent'].map((k) => el('option', {value: k}, k)));
  const faults = el('input', {id: 'faults', placeholder: 'faults (comma-separated, reference only)', size: 40});
  const target = el('input', {id: 'target', placeholder: 'HOST:PORT', size: 24});
  const agentUrl = el('input', {id: 'agent-url', placeholder: 'http://HOST:PORT', size: 24});
  const agentToken = el('input', {id: 'agent-token', type: 'password', placeholder: 'agent token', size: 24});
  const suites = ['mpa', 'ddp', 'rdmap', 'clc'].map((s) => el('label', {style: 'display:inline'}, el('input', {type: 'checkbox', value: s, className: 'suite'}), ' ' + s + ' '));
  const cases = el('input', {id: 'cases', placeholder: 'case ids or prefixes* (comma-separated; empty: all ' + cat.length + ')', size: 60});
  const strict = el('input', {type: 'checkbox', id: 'strict'});
  const lacks = el('input', {id: 'lacks', placeholder: 'iut lacks (e.g. atomics, rev2)', size: 40});
  const scale = el('input', {id: 'time-scale', type: 'number', step: '0.05', min: '0.05', max: '20', value: '1'});
  const msg = el('p', {className: 'msg', id: 'start-msg'});
  const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const form = el('form', {className: 'start', onsubmit: async (e) => {
    e.preventDefault();
    const body = {strict: strict.checked, time_scale: Number(scale.value), iut_lacks: list(lacks.value), cases: list(cases.value),
      suites: [...document.querySelectorAll('.suite:checked')].map((x) => x.value)};
    if (kind.value === 'reference') body.reference = {faults: list(faults.value)};
    if (kind.value === 'target') body.target = target.value.trim();
    if (kind.value === 'agent') body.agent = {url: agentUrl.value.trim(), token: agentToken.value};
    try {
      const r = await post('/api/runs', body);
      location.hash = '#/run/' + r.id;
    } catch (err) { msg.textContent = err.message; }
  }},
  el('label', {}, 'Test ', kind), el('label', {}, faults), el('label', {}, 'target ', target),
  el('label', {}, 'agent ', agentUrl, ' ', agentToken), el('label', {}, 'suites ', suites), el('label', {}, cases),
  el('label', {}, strict, ' strict (a missed SHOULD fails)'), el('label', {}, lacks), el('label', {}, 'time scale ', scale),
  el('button', {type: 'submit', id: 'start'}, 'Start'), msg);
  show(el('h2', {}, 'Start a run'), state.token ? form : el('p', {className: 'msg'}, 'Give the token (top right) to start runs.'), state.token ? null : form);
}

// Requirement coverage: every registry row, the cases that check it, and
// the worst verdict of those cases in each target's latest run.
const coverageFilter = {text: '', only: ''};
function drawCoverage() {
  const cov = state.coverage;
  const f = coverageFilter;
  const rows = cov.requirements.filter((r) => {
    if (f.only === 'uncovered' && (r.cases.length || r.observable === 'not observable')) return false;
    if (f.only === 'failing' && !r.verdicts.some((v) => v === 'fail' || v === 'error')) return false;
    if (f.text) {
      const t = f.text.toLowerCase();
      if (![r.id, r.rfc + ' §' + r.section, r.summary, ...r.cases].join('\n').toLowerCase().includes(t)) return false;
    }
    return true;
  });
  const search = el('input', {type: 'search', id: 'coverage-search', placeholder: 'requirement, RFC section, case', value: f.text, size: 36,
    onchange: (e) => { f.text = e.target.value; drawCoverage(); }});
  const only = el('select', {id: 'coverage-only', onchange: (e) => { f.only = e.target.value; drawCoverage(); }},
    [['', 'every row'], ['uncovered', 'observable, no case'], ['failing', 'failing somewhere']].map(([v, t]) => el('option', {value: v, selected: f.only === v}, t)));
  const t = cov.totals;
  show(el('h2', {}, 'Requirement coverage'),
    el('p', {}, t.rows + ' registry rows, ' + t.with_cases + ' checked by cases, ' + t.observable_without_cases + ' observable rows without a case.'),
    el('div', {className: 'bar'}, search, only, el('span', {className: 'muted', id: 'coverage-shown'}, rows.length + ' shown')),
    el('table', {id: 'coverage'},
      el('tr', {}, ['requirement', 'section', 'level', 'summary', 'cases'].map((h) => el('th', {}, h)),
        cov.targets.map((tg) => el('th', {}, el('a', {href: '#/run/' + tg.run}, tg.target)))),
      rows.slice(0, 3000).map((r) => el('tr', {},
        el('td', {}, r.id), el('td', {}, r.rfc + ' §' + r.section), el('td', {}, r.level),
        el('td', {}, r.summary, r.observable === 'not observable' ? el('div', {className: 'muted'}, 'not observable') : null),
        el('td', {className: 'num'}, String(r.cases.length)),
        r.verdicts.map((v) => el('td', {}, v ? verdictSpan(v) : el('span', {className: 'muted'}, '—')))))));
}

async function drawCaptures(current) {
  const list = (await api('/api/captures')).captures;
  if (!current()) return;
  const file = el('input', {type: 'file', id: 'capture-file', accept: '.pcap,.pcapng,.cap'});
  const msg = el('p', {className: 'msg', id: 'upload-msg'});
  const upload = el('button', {id: 'upload', onclick: async () => {
    const f = file.files[0];
    if (!f) { msg.textContent = 'Choose a pcap or pcapng file.'; return; }
    const r = await fetch('/api/captures?name=' + encodeURIComponent(f.name), {
      method: 'POST', headers: {'Content-Type': 'application/octet-stream', Authorization: 'Bearer ' + state.token},
      body: await f.arrayBuffer()});
    const j = await r.json().catch(() => ({}));
    if (!r.ok) { msg.textContent = (j.error && j.error.message) || ('HTTP ' + r.status); return; }
    location.hash = '#/capture/' + j.id;
  }}, 'Upload and analyze');
  show(el('h2', {}, 'Captures'),
    state.token ? el('div', {className: 'bar'}, file, upload) : el('p', {className: 'msg'}, 'Give the token (top right) to upload.'), msg,
    list.length ? el('table', {id: 'captures'},
      el('tr', {}, ['capture', 'uploaded', 'octets', 'violations', 'MUST'].map((h) => el('th', {}, h))),
      list.map((c) => el('tr', {},
        el('td', {}, el('a', {href: '#/capture/' + c.id}, c.name)), el('td', {className: 'muted'}, c.uploaded_at),
        el('td', {className: 'num'}, String(c.size)), el('td', {className: 'num'}, String(c.violations)),
        el('td', {className: 'num ' + (c.must_violations ? 'fail' : '')}, String(c.must_violations))))) :
      el('p', {className: 'muted'}, 'No captures yet.'));
}

async function drawCapture(id, current) {
  const c = await api('/api/captures/' + id);
  if (!current()) return;
  const s = c.summary;
  show(el('p', {}, el('a', {href: '#/captures'}, '← captures')),
    el('h2', {id: 'capture-name'}, c.name),
    el('p', {}, s.frames + ' frames, ' + s.streams + ' TCP connections (' + s.mpa_connections + ' MPA, ' + s.clc_connections + ' CLC), ',
      el('span', {className: s.must_violations ? 'fail' : 'pass', id: 'capture-violations'}, s.violations + ' violations (' + s.must_violations + ' MUST)'),
      c.clean_end ? '' : ' · the file did not end cleanly'),
    c.annotated ? el('p', {}, el('a', {href: '/api/captures/' + id + '/annotated.pcapng', id: 'annotated'}, 'annotated pcapng'),
      el('span', {className: 'muted'}, ' (every violating frame carries a comment; opens in Wireshark)')) : null,
    c.connections.map((k) => el('section', {className: 'connection'},
      el('h3', {}, 'Connection ' + k.id + ': ' + k.stream),
      k.violations.length ? el('table', {className: 'violations'},
        el('tr', {}, ['frame', 'rule', 'level', 'section', 'by', 'what'].map((h) => el('th', {}, h))),
        k.violations.map((v) => el('tr', {},
          el('td', {className: 'num'}, String(v.frame)), el('td', {}, v.rule), el('td', {className: v.level === 'MUST' ? 'fail' : 'non-strict'}, v.level),
          el('td', {}, v.section), el('td', {}, v.side), el('td', {}, v.text, v.hint ? el('div', {className: 'muted'}, 'hint: ' + v.hint) : null)))) :
        el('p', {className: 'pass'}, 'no violations'),
      k.messages.length ? sequenceDiagram(k.messages.map((m) => ({...m, at_ms: m.frame})), [], ['initiator', 'responder'], 'initiator') : null,
      k.more_messages ? el('p', {className: 'muted'}, k.more_messages + ' more messages not drawn') : null)));
}

window.addEventListener('hashchange', () => { takeTokenFromHash(); drawAuth(); route(); });
takeTokenFromHash();
drawAuth();
connect();
route();
