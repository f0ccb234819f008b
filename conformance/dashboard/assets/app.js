// The rdmaconf dashboard page. Every text that comes from the server (case
// ids, reasons, frame fields, targets, script text) enters the page through
// textContent or an attribute set as a property: no markup is ever built
// from data, so a capture or case full of script tags stays text.
'use strict';

const VERDICTS = ['fail', 'error', 'non-strict', 'unimplemented', 'informational', 'pass'];
const RANK = Object.fromEntries(VERDICTS.map((v, i) => [v, i]));
const LEVELS = ['MUST', 'SHOULD', 'MAY'];

// A static report (`rdmaconf run --html`, conformance/dashboard/static_report.hpp)
// is this page over one run's data, embedded in the file as JSON in the
// shapes the API answers. The page then reads that data instead of the API:
// the same run and case views, with no live stream, no token and nothing
// that starts, cancels or uploads.
const REPORT = (() => {
  const data = document.getElementById('rdmaconf-report');
  return data ? JSON.parse(data.textContent) : null;
})();

const state = {
  token: REPORT ? '' : sessionStorage.getItem('rdmaconf-token') || '',
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

function reportApi(path) {
  const run = REPORT.run;
  let m;
  if (path === '/api/runs/' + run.id || path === '/api/runs/' + run.id + '/findings') return run;
  if ((m = path.match(/^\/api\/runs\/(\d+)\/cases\/(\d+)$/)) && +m[1] === run.id && REPORT.cases[+m[2] - 1]) return REPORT.cases[+m[2] - 1];
  if ((m = path.match(/^\/api\/scripts\/(.+)$/)) && Object.hasOwn(REPORT.scripts, decodeURIComponent(m[1])))
    return {text: REPORT.scripts[decodeURIComponent(m[1])]};
  throw new Error('not in this report');
}
async function api(path) {
  if (REPORT) return reportApi(path);
  const r = await fetch(path, {headers: {Accept: 'application/json'}});
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.error && j.error.message) || ('HTTP ' + r.status));
  return j;
}
// A change: POST, PUT or DELETE, with the token.
async function send(method, path, body) {
  const r = await fetch(path, {
    method,
    headers: {'Content-Type': 'application/json', Authorization: 'Bearer ' + state.token},
    body: JSON.stringify(body || {}),
  });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.error && j.error.message) || ('HTTP ' + r.status));
  return j;
}
function post(path, body) { return send('POST', path, body); }

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
    let runChanged = false, listChanged = false, refetch = false, ended = null;
    for (const e of events) {
      state.stats.events++;
      if (e.type === 'baseline') {
        if (state.run && state.run.target === e.target) refetch = true;
      } else if (e.type === 'run') {
        // An event that says what the page already shows (the fetch that
        // drew the view saw it too) draws nothing.
        const known = state.runs.get(e.run.id);
        if (!known || JSON.stringify(known) !== JSON.stringify(e.run)) {
          state.runs.set(e.run.id, e.run);
          listChanged = true;
        }
        if (state.run && state.run.id === e.run.id &&
            Object.keys(e.run).some((k) => k !== 'cases' && JSON.stringify(state.run[k]) !== JSON.stringify(e.run[k]))) {
          // A run that ended has its findings grouped: fetched once, and the
          // end is shown with them (never "done" beside the findings of the
          // cases so far).
          if (state.run.status !== e.run.status && !['queued', 'running'].includes(e.run.status)) {
            refetch = true;
            ended = e.run;
          } else {
            Object.assign(state.run, e.run, {cases: state.run.cases});
            runChanged = true;
          }
        }
      } else if (e.type === 'case' && state.run && state.run.id === e.run_id) {
        if (!state.seqs.has(e.case.seq)) {
          state.seqs.add(e.case.seq);
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
    if (refetch && view.name === 'run') refreshRun(ended);
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

// A report shows its one run: any other address is that run's view.
function currentView() {
  const v = parseView();
  return REPORT && v.name !== 'case' ? {name: 'run', run: REPORT.run.id, finding: v.finding} : v;
}
function parseView() {
  const h = location.hash.replace(/^#/, '') || '/';
  let m;
  if ((m = h.match(/^\/run\/(\d+)\/case\/(\d+)$/))) return {name: 'case', run: +m[1], seq: +m[2]};
  if ((m = h.match(/^\/run\/(\d+)$/))) return {name: 'run', run: +m[1]};
  if ((m = h.match(/^\/run\/(\d+)\/finding\/(F\d+)$/))) return {name: 'run', run: +m[1], finding: m[2]};
  if ((m = h.match(/^\/diff\/(\d+)\/(\d+)$/))) return {name: 'diff', a: +m[1], b: +m[2]};
  if (h === '/diff') return {name: 'diff'};
  if (h === '/new') return {name: 'new'};
  if (h === '/captures') return {name: 'captures'};
  if (h === '/coverage') return {name: 'coverage'};
  if (h === '/agents') return {name: 'agents'};
  if (h === '/fuzz') return {name: 'fuzz'};
  if ((m = h.match(/^\/fuzz\/(\d+)$/))) return {name: 'fuzzrun', id: +m[1]};
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
      state.seqs = new Set(run.cases.map((c) => c.seq));  // what is on screen: a live event for one of these is old
      drawRun(v.finding || null);
    } else if (v.name === 'case') {
      await drawCase(v.run, v.seq, current);
    } else if (v.name === 'diff') {
      await drawDiff(v.a, v.b, current);
    } else if (v.name === 'new') {
      await drawNew(current);
    } else if (v.name === 'agents') {
      await drawAgents(current);
    } else if (v.name === 'fuzz') {
      await drawFuzz(current);  // fuzz.js
    } else if (v.name === 'fuzzrun') {
      await drawFuzzRun(v.id, current);
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

// A run's labels (its identity's), under its target in the list.
function labelsOf(r) {
  const labels = r.identity && r.identity.labels && typeof r.identity.labels === 'object' ? Object.entries(r.identity.labels) : [];
  return labels.length ? el('div', {}, labels.map(([k, v]) => el('span', {className: 'label'}, k + '=' + String(v)))) : null;
}

function drawRuns() {
  const runs = [...state.runs.values()].sort((a, b) => b.id - a.id);
  const rows = runs.map((r, i) => {
    const prev = runs[i + 1];
    return el('tr', {dataset: {run: String(r.id)}},
      el('td', {}, el('a', {href: '#/run/' + r.id}, '#' + r.id)),
      el('td', {className: 'status-' + r.status}, r.status),
      el('td', {}, r.source),
      el('td', {}, r.target, labelsOf(r)),
      el('td', {className: 'muted'}, r.created_at),
      el('td', {className: 'num'}, String(r.total)),
      el('td', {className: 'num findings-count'}, r.finding_count === null || r.finding_count === undefined ? '' : String(r.finding_count)),
      ...countsCells(r.summary),
      el('td', {}, prev ? el('a', {href: '#/diff/' + prev.id + '/' + r.id}, 'diff with #' + prev.id) : ''));
  });
  show(el('h2', {}, 'Runs'),
    runs.length ? el('table', {id: 'runs'},
      el('tr', {}, ['run', 'status', 'source', 'target', 'created', 'cases', 'findings', ...VERDICTS, ''].map((h) => el('th', {}, h))),
      rows) : el('p', {className: 'muted'}, 'No runs yet. Start one, or publish one with rdmaconf run --publish.'));
}

function matches(c, f) {
  if (f.verdict && c.verdict !== f.verdict) return false;
  if (f.level && c.level !== f.level) return false;
  if (f.protocol && c.protocol !== f.protocol) return false;
  if (f.text) {
    const t = f.text.toLowerCase();
    const hay = [c.id, c.title, c.rfc, c.reason, c.configuration, ...(c.requirements || []), ...(c.findings || [])].join('\n').toLowerCase();
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
  v.identity = el('div');
  v.baseline = el('div');
  v.findings = el('div');
  v.fixed = el('div');
  v.cancel = el('button', {id: 'cancel', hidden: true, onclick: async () => {
    try { await post('/api/runs/' + state.run.id + '/cancel'); } catch (err) { alert(err.message); }
  }}, 'Cancel');
  v.counts = el('p', {id: 'counts'});
  v.skipped = el('details', {hidden: true}, el('summary', {}, 'not run'), el('ul'));
  v.config = el('pre');
  v.matrix = el('div');
  v.shown = el('span', {className: 'muted', id: 'shown'});
  v.header = el('tr', {}, ['verdict', 'case', 'finding', 'level', 'RFC', 'requirement', 'reason'].map((h) => el('th', {}, h)));
  v.table = el('table', {id: 'cases'}, v.header);
  v.more = el('p', {className: 'muted'});
  v.setFilter = (next) => {
    Object.assign(f, next);
    v.search.value = f.text;
    for (const [k, s] of Object.entries(v.selects)) s.value = f[k];
    redraw();
  };
  v.root = el('div', {id: 'run-view'},
    v.head, v.identity, v.baseline, v.cancel, v.counts, v.findings, v.fixed, v.skipped,
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
  const key = c.seq + ' ' + c.verdict + ' ' + (c.findings || []).join() + ' ' + (c.baseline || '');
  let row = v.rows.get(key);
  if (!row) {
    row = el('tr', {dataset: {verdict: c.verdict, baseline: c.baseline || ''}},
      el('td', {}, verdictSpan(c.verdict)),
      el('td', {}, el('a', {href: '#/run/' + r.id + '/case/' + c.seq}, c.id), c.configuration ? ' [' + c.configuration + ']' : ''),
      caseFindingCell(r, c),
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
  fill(v.head, REPORT ? [
    el('h2', {}, 'Conformance report'),
    el('p', {}, 'Target: ', el('b', {}, r.target), ' · ' + r.duration_ms + ' ms · generated ', r.created_at)] : [
    el('h2', {}, 'Run #' + r.id + ' ', el('span', {className: 'status-' + r.status, id: 'run-status'}, r.status)),
    el('p', {}, 'Target: ', el('b', {}, r.target || '(not yet started)'), ' · source ', r.source, ' · created ', r.created_at,
      r.duration_ms ? ' · ' + r.duration_ms + ' ms' : ''),
    r.message ? el('p', {className: 'msg'}, r.message) : null]);
  // Redrawn only when what they show changed: an open command line stays
  // open, and a click on the baseline action lands on the button drawn.
  const identityKey = JSON.stringify(r.identity);
  if (v.drawnIdentity !== identityKey) {
    v.drawnIdentity = identityKey;
    fill(v.identity, identityBlock(r));
  }
  const baselineKey = JSON.stringify([r.baseline_run, r.baseline, r.baseline_error, r.target, active, state.token]);
  if (v.drawnBaseline !== baselineKey) {
    v.drawnBaseline = baselineKey;
    fill(v.baseline, baselineBar(r, refreshRun));
  }
  // Findings come with the run's answer (not with live cases): redrawn when
  // a new answer came, so an expanded finding stays open while cases arrive.
  if (v.drawnFindings !== r.findings) {
    v.drawnFindings = r.findings;
    fill(v.findings, findingsSection(r, v.open));
    fill(v.fixed, fixedSection(r));
    const open = v.open && document.getElementById('finding-' + v.open);
    if (open) open.scrollIntoView({block: 'start'});
  }
  v.cancel.hidden = !(active && state.token && !REPORT);
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
    .sort((a, b) => (RANK[a.verdict] - RANK[b.verdict]) || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.seq - b.seq));
  const limit = 2000;
  v.shown.textContent = cases.length + ' shown';
  // Rows already in place stay: only new rows are inserted and rows no
  // longer shown removed, so a redraw lays out what changed, not the table.
  let at = v.header.nextSibling;
  for (const c of cases.slice(0, limit)) {
    const row = caseRow(v, r, c);
    if (row === at) at = at.nextSibling;
    else v.table.insertBefore(row, at);
  }
  while (at) {
    const next = at.nextSibling;
    at.remove();
    at = next;
  }
  v.more.textContent = cases.length > limit ? (cases.length - limit) + ' more: narrow the filter' : '';
}

// `finding`: the finding to show expanded (#/run/N/finding/F3).
function drawRun(finding) {
  const r = state.run;
  if (!runView || runView.id !== r.id || !runView.root.isConnected) runView = buildRunView(r);
  if (finding !== undefined) runView.open = finding;
  updateRunView(r);
}

// The run on screen again from the server: its findings once it ended, the
// comparison once its target's baseline changed. `ended`: the event that
// said the run ended, shown as it is when the server cannot be asked (the
// findings then come with the next navigation).
async function refreshRun(ended) {
  const id = state.run && state.run.id;
  if (!id || REPORT) return;
  try {
    const run = await api('/api/runs/' + id);
    if (!state.run || state.run.id !== id || currentView().name !== 'run') return;
    state.run = run;
    state.seqs = new Set(run.cases.map((c) => c.seq));
    drawRun();
  } catch (err) {
    if (!ended || !state.run || state.run.id !== id || currentView().name !== 'run') return;
    Object.assign(state.run, ended, {cases: state.run.cases});
    drawRun();
  }
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
  let found = [];
  try { found = (await api('/api/runs/' + runId + '/findings')).findings || []; } catch (e) { found = []; }
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
    el('p', {}, el('a', {href: '#/run/' + runId}, REPORT ? '← all cases' : '← run #' + runId)),
    el('h2', {id: 'case-title'}, c.id, c.configuration ? ' [' + c.configuration + ']' : ''),
    el('p', {}, c.title),
    el('p', {}, 'Verdict: ', verdictSpan(c.verdict), ' · level ', c.level, ' · ', c.rfc, ' · IUT role ', c.role,
      ' · requirement ', (c.requirements || []).join(', ')),
    c.reason ? el('p', {id: 'reason'}, c.failed_line ? 'line ' + c.failed_line + ': ' : '', el('span', {className: c.verdict}, c.reason)) : null,
    caseFindings(runId, c, found),
    el('h3', {}, 'Exchange'),
    caseAddresses(c),
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
    el('h3', {className: 'part'}, 'By findings'),
    diffFindingsSections(d, a, b),
    el('h3', {className: 'part'}, 'By cases'),
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
  const labels = el('input', {id: 'labels', placeholder: 'labels: key=value, ... (e.g. fw=1.2.3, dut=rack4)', size: 40});
  const msg = el('p', {className: 'msg', id: 'start-msg'});
  const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const form = el('form', {className: 'start', onsubmit: async (e) => {
    e.preventDefault();
    const body = {strict: strict.checked, time_scale: Number(scale.value), iut_lacks: list(lacks.value), cases: list(cases.value),
      suites: [...document.querySelectorAll('.suite:checked')].map((x) => x.value)};
    if (kind.value === 'reference') body.reference = {faults: list(faults.value)};
    if (kind.value === 'target') body.target = target.value.trim();
    if (kind.value === 'agent') body.agent = {url: agentUrl.value.trim(), token: agentToken.value};
    const pairs = list(labels.value).map((x) => x.indexOf('=') < 1 ? [''] : [x.slice(0, x.indexOf('=')).trim(), x.slice(x.indexOf('=') + 1).trim()]);
    if (pairs.some(([k]) => !k)) { msg.textContent = 'labels are key=value'; return; }
    if (pairs.length) body.labels = Object.fromEntries(pairs);
    try {
      const r = await post('/api/runs', body);
      location.hash = '#/run/' + r.id;
    } catch (err) { msg.textContent = err.message; }
  }},
  el('label', {}, 'Test ', kind), el('label', {}, faults), el('label', {}, 'target ', target),
  el('label', {}, 'agent ', agentUrl, ' ', agentToken), el('label', {}, 'suites ', suites), el('label', {}, cases),
  el('label', {}, strict, ' strict (a missed SHOULD fails)'), el('label', {}, lacks), el('label', {}, 'time scale ', scale),
  el('label', {}, labels),
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

// The device agents known from runs: a run made through an agent keeps what
// the agent said the device can do (GET /api/runs gives it as
// `capabilities`). One row per agent (its address, else its device), from
// its newest run, with how many runs went through it.
async function drawAgents(current) {
  const runs = (await api('/api/runs?limit=1000')).runs;
  if (!current()) return;
  const agents = new Map();
  for (const r of runs) {  // newest first
    const caps = r.capabilities;
    if (!caps || typeof caps !== 'object' || Array.isArray(caps)) continue;
    const url = (r.config && r.config.agent && typeof r.config.agent.url === 'string') ? r.config.agent.url : '';
    const key = url || [caps.backend, caps.device, caps.address].join(' ');
    if (!agents.has(key)) agents.set(key, {url, caps, runs: []});
    agents.get(key).runs.push(r);
  }
  const text = (x) => (x === undefined || x === null) ? '' : Array.isArray(x) ? x.join(', ') : typeof x === 'object' ? JSON.stringify(x) : String(x);
  const rows = [...agents.values()].map((a, i) => {
    const last = a.runs[0];
    const capsTable = el('table', {className: 'caps'},
      Object.entries(a.caps).map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, text(v)))));
    return el('tr', {dataset: {agent: String(i)}},
      el('td', {}, a.url || el('span', {className: 'muted'}, '(command line)')),
      el('td', {}, text(a.caps.device)), el('td', {}, text(a.caps.backend)), el('td', {}, text(a.caps.vendor)),
      el('td', {}, text(a.caps.firmware)), el('td', {className: 'num'}, String(a.runs.length)),
      el('td', {}, el('a', {href: '#/run/' + last.id}, '#' + last.id), ' ', el('span', {className: 'muted'}, last.created_at), ' ',
        VERDICTS.filter((x) => last.summary[x]).map((x) => el('span', {className: x}, last.summary[x] + ' ' + x + ' '))),
      el('td', {}, el('details', {}, el('summary', {}, Object.keys(a.caps).length + ' items'), capsTable)));
  });
  show(el('h2', {}, 'Agents'),
    el('p', {className: 'muted'}, 'Device agents seen in the last ' + runs.length + ' runs, with what each said its device can do in its newest run.'),
    rows.length ? el('table', {id: 'agents'},
      el('tr', {}, ['agent', 'device', 'backend', 'vendor', 'firmware', 'runs', 'newest run', 'capabilities'].map((h) => el('th', {}, h))),
      rows) : el('p', {className: 'muted'}, 'No run through a device agent yet (rdmaconf run --agent, or a run started here against an agent).'));
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

window.addEventListener('hashchange', () => {
  if (!REPORT) { takeTokenFromHash(); drawAuth(); }
  route();
});
if (!REPORT) {
  takeTokenFromHash();
  drawAuth();
  connect();
}
route();
