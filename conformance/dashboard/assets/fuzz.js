'use strict';
// Fuzz runs (docs/dashboard.md, "Fuzzing"): start one, watch its progress,
// read its findings (signature, case script, captures). Uses app.js's el,
// show, api and post; everything shown goes in as text, never as markup.

const FUZZ_SIDES = ['reference', 'target', 'listen', 'agent'];

function fuzzProgressText(p) {
  if (!p || p.iterations === undefined) return 'starting';
  const rate = p.seconds > 0 ? (p.iterations / p.seconds).toFixed(1) : '0';
  return p.iterations + ' iterations in ' + Math.round(p.seconds) + ' s (' + rate + '/s), ' + p.skipped + ' skipped, ' +
    p.findings + ' findings (' + p.unresponsive + ' the IUT stopped answering, ' + p.host + ' its host unhealthy)';
}

const FUZZ_CLC = [['eid', 'EID'], ['prefix', 'prefix'], ['gid', 'GID'], ['mac', 'MAC']];

// Who the tester's CLC peer says it is, as the request gave it ("" when it gave none).
function fuzzClcText(clc) {
  if (!clc) return '';
  const given = FUZZ_CLC.filter(([k]) => clc[k] !== undefined).map(([k, name]) => name + ' ' + clc[k]);
  return given.length ? '; CLC peer: ' + given.join(', ') : '';
}

function fuzzWhat(req) {
  let what;
  if (req.reference) what = 'reference' + (req.reference.faults.length ? ' with ' + req.reference.faults.join(', ') : '');
  else if (req.agent) what = 'agent ' + req.agent.url;
  else what = req.target ? 'target ' + req.target : 'listening at ' + req.listen;
  return what + fuzzClcText(req.clc);
}

async function drawFuzz(current) {
  const j = await api('/api/fuzz');
  if (!current()) return;
  const rows = j.runs.map((r) => el('tr', {},
    el('td', {}, el('a', {href: '#/fuzz/' + r.id}, '#' + r.id)), el('td', {}, r.status), el('td', {}, fuzzWhat(r.request)),
    el('td', {}, fuzzProgressText(r.progress)), el('td', {className: 'num'}, String(r.findings_count))));
  const table = el('table', {id: 'fuzz-runs'}, el('tr', {}, ['run', 'status', 'IUT', 'progress', 'findings'].map((h) => el('th', {}, h))), rows);

  const side = el('select', {id: 'fuzz-side'}, FUZZ_SIDES.map((k) => el('option', {value: k}, k)));
  const faults = el('input', {id: 'fuzz-faults', placeholder: 'faults (comma-separated, reference only)', size: 40});
  const address = el('input', {id: 'fuzz-address', placeholder: 'HOST:PORT (target) or ADDR:PORT (listen)', size: 30});
  const agentUrl = el('input', {id: 'fuzz-agent-url', placeholder: 'http://HOST:PORT', size: 24});
  const agentToken = el('input', {id: 'fuzz-agent-token', type: 'password', placeholder: 'agent token', size: 24});
  const suite = el('select', {id: 'fuzz-suite'}, el('option', {value: ''}, 'iWARP (mpa, ddp, rdmap)'), el('option', {value: 'clc'}, 'SMC CLC server (clc)'));
  const cases = el('input', {id: 'fuzz-cases', placeholder: 'case globs (comma-separated; empty: all of the target)', size: 50});
  const exclude = el('input', {id: 'fuzz-exclude', placeholder: 'globs to leave out', size: 30});
  const seconds = el('input', {id: 'fuzz-seconds', type: 'number', min: '1', max: '3600', value: '60'});
  const seed = el('input', {id: 'fuzz-seed', type: 'number', min: '0', value: '1'});
  // The CLC server target: who the tester's peer says it is (rdmaconf fuzz --clc-eid, --clc-prefix,
  // --clc-gid, --clc-mac; empty: the command's default). The command checks them.
  const clcHints = {eid: 'EID (e.g. RDMACONF-INTEROP)', prefix: 'auto or A.B.C.D/N', gid: 'auto, fixed or IPv6', mac: 'auto, fixed or aa:bb:cc:dd:ee:ff'};
  const clc = Object.fromEntries(FUZZ_CLC.map(([k]) => [k, el('input', {id: 'fuzz-clc-' + k, placeholder: clcHints[k], size: 20})]));
  const msg = el('p', {className: 'msg', id: 'fuzz-msg'});
  const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const form = el('form', {className: 'start', onsubmit: async (e) => {
    e.preventDefault();
    const body = {seconds: Number(seconds.value), seed: Number(seed.value), cases: list(cases.value), exclude: list(exclude.value)};
    if (suite.value) body.suites = [suite.value];
    if (suite.value === 'clc') {
      const given = FUZZ_CLC.map(([k]) => [k, clc[k].value.trim()]).filter(([, v]) => v);
      if (given.length) body.clc = Object.fromEntries(given);
    }
    if (side.value === 'reference') body.reference = {faults: list(faults.value)};
    if (side.value === 'target') body.target = address.value.trim();
    if (side.value === 'listen') body.listen = address.value.trim();
    if (side.value === 'agent') body.agent = {url: agentUrl.value.trim(), token: agentToken.value};
    try {
      const r = await post('/api/fuzz', body);
      location.hash = '#/fuzz/' + r.id;
    } catch (err) { msg.textContent = err.message; }
  }},
  el('label', {}, 'Fuzz ', side), el('label', {}, faults), el('label', {}, 'address ', address),
  el('label', {}, 'agent ', agentUrl, ' ', agentToken), el('label', {}, 'seeds ', suite),
  el('label', {}, 'CLC peer (clc seeds) ', ...FUZZ_CLC.flatMap(([k], i) => i ? [' ', clc[k]] : [clc[k]])), el('label', {}, cases),
  el('label', {}, exclude), el('label', {}, 'seconds ', seconds), el('label', {}, 'seed ', seed),
  el('button', {type: 'submit', id: 'fuzz-start'}, 'Start fuzzing'), msg);
  show(el('h2', {}, 'Fuzz runs'), table,
    el('h3', {}, 'Start a fuzz run'), state.token ? form : el('p', {className: 'msg'}, 'Give the token (top right) to start fuzz runs.'));
}

function fuzzFinding(runId, f) {
  const captures = f.captures.map((name) => el('a', {
    href: '/api/fuzz/' + runId + '/findings/' + f.n + '/captures/' + encodeURIComponent(name), download: name, className: 'capture',
  }, name));
  return el('section', {className: 'fuzz-finding', dataset: {n: String(f.n)}},
    el('h3', {}, '#' + f.n + ' ', el('span', {className: 'signature'}, f.signature)),
    el('p', {}, f.kind + ', from ' + f.seed_case + ', iteration ' + f.iteration + ', ' +
      (f.reproduced ? 'reproduced' : 'not reproduced') + ' (' + f.minimize_runs + ' runs to minimize)'),
    el('p', {className: 'what'}, f.what),
    f.host_log ? el('pre', {className: 'host-log'}, f.host_log.join('\n')) : null,
    // A finding that takes several inputs: their scripts, in the order they run.
    f.scripts && f.scripts.length > 1
      ? f.scripts.flatMap((s, i) => [el('h4', {}, 'input ' + (i + 1) + ' of ' + f.scripts.length), el('pre', {className: 'script'}, s)])
      : el('pre', {className: 'script'}, f.script),
    captures.length ? el('p', {}, 'captures: ', captures.flatMap((a, i) => i ? [' ', a] : [a])) : null);
}

async function drawFuzzRun(id, current) {
  const r = await api('/api/fuzz/' + id);
  if (!current()) return;
  const cancel = r.status === 'running' && state.token
    ? el('button', {id: 'fuzz-cancel', onclick: async () => { try { await post('/api/fuzz/' + id + '/cancel', {}); } catch (err) { /* ended meanwhile */ } }}, 'Cancel')
    : null;
  show(el('h2', {}, 'Fuzz run #' + r.id + ': ', el('span', {id: 'fuzz-status'}, r.status)),
    el('p', {}, fuzzWhat(r.request)), el('p', {id: 'fuzz-progress'}, fuzzProgressText(r.progress)),
    r.message ? el('p', {className: 'msg', id: 'fuzz-message'}, r.message) : null, cancel,
    el('h3', {}, r.findings.length + ' findings'), r.findings.map((f) => fuzzFinding(r.id, f)));
  // Live while it runs: the view asks again every second.
  if (r.status === 'running') askAgain(id, current);
}

// One failed ask (the server busy, a kept-alive connection closed under it)
// is said on the page and the view asks again: it must not stay "running"
// for good after the run has ended.
function askAgain(id, current) {
  setTimeout(() => {
    if (!current()) return;
    drawFuzzRun(id, current).catch((err) => {
      if (!current()) return;
      const progress = document.querySelector('#fuzz-progress');
      if (progress) progress.textContent = 'asking again (' + String(err.message || err) + ')';
      askAgain(id, current);
    });
  }, 1000);
}
