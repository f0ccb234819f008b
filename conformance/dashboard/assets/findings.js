// The parts of the page that show what a run found and what it is: its
// findings (failures grouped by cause, worst first), the comparison with its
// target's baseline, its identity, and the diff of two runs by findings.
// Loaded before app.js, whose helpers (el, verdictSpan, send, state, REPORT)
// these functions use when they run. As everywhere on the page, data enters
// only as text or as properties, never as markup.
'use strict';

// A command line as a shell reads it: a word with anything but safe
// characters in single quotes.
function shellWords(words) {
  return words.map((w) => /^[A-Za-z0-9_\-./:=,@%+]+$/.test(w) ? w : "'" + w.replace(/'/g, "'\\''") + "'").join(' ');
}

function short(text, n) { return text && text.length > n ? text.slice(0, n) : (text || ''); }

// Copies `text`; the button says whether it worked. A page from file:// or a
// browser without the clipboard API falls back to a selection.
async function copyText(text, button, source) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'copied';
  } catch (e) {
    const range = document.createRange();
    range.selectNodeContents(source);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    button.textContent = document.execCommand && document.execCommand('copy') ? 'copied' : 'selected: press Ctrl+C';
  }
  setTimeout(() => { button.textContent = 'copy'; }, 2000);
}

function badge(status) {
  return status ? el('span', {className: 'badge baseline-' + status, title: status === 'known'
    ? 'failed the same way in the baseline' : 'not in the baseline'}, status) : null;
}

// ------------------------------------------------------------ identity

// What the run says about itself: build, catalogue, times, labels, the IUT
// and the command line.
function identityBlock(r) {
  const id = r.identity;
  if (!id || typeof id !== 'object') {
    return el('p', {id: 'identity', className: 'muted'}, 'This run was stored before runs recorded their build, catalogue and command line.');
  }
  const facts = [];
  if (id.version) facts.push('rdmaconf ' + id.version + (id.commit ? ' (commit ' + short(id.commit, 12) + ')' : ''));
  const cat = id.catalogue || {};
  if (cat.sha256) facts.push('catalogue ' + short(cat.sha256, 12) + (cat.cases ? ' (' + cat.cases + ' cases)' : ''));
  if (id.started_at) facts.push('started ' + id.started_at);
  if (id.finished_at) facts.push('finished ' + id.finished_at);
  const pairs = (m) => Object.entries(m && typeof m === 'object' ? m : {});
  const labels = pairs(id.labels);
  const iut = pairs(id.iut);
  const words = Array.isArray(id.command_line) ? id.command_line.filter((w) => typeof w === 'string') : [];
  return el('div', {id: 'identity', className: 'identity'},
    facts.length ? el('div', {className: 'muted'}, facts.join(' · ')) : null,
    iut.length ? el('div', {id: 'identity-iut'}, 'IUT: ', iut.flatMap(([k, v], i) => [i ? ' · ' : '', el('span', {className: 'muted'}, k + ' '), String(v)])) : null,
    labels.length ? el('div', {id: 'identity-labels'}, 'labels: ',
      labels.map(([k, v]) => el('span', {className: 'label'}, k + '=' + String(v)))) : null,
    words.length ? el('details', {}, el('summary', {}, 'command line'), el('pre', {id: 'command-line'}, shellWords(words))) : null);
}

// ------------------------------------------------------------ baseline

// Where the run stands against its target's baseline, and (with the token,
// on the dashboard) the action that makes it the baseline or no longer.
function baselineBar(r, changed) {
  const b = r.baseline;
  const counts = b ? ' ' + b.new_cases + ' new and ' + b.known_cases + ' known failing cases, ' +
    b.new_findings + ' new and ' + b.known_findings + ' known findings.' : '';
  if (REPORT) {
    return b ? el('p', {id: 'baseline-bar'}, 'Compared with the baseline ', el('b', {}, b.source), ':' + counts) : null;
  }
  const ended = r.status !== 'queued' && r.status !== 'running';
  const act = async (method, button) => {
    button.disabled = true;
    try { await send(method, '/api/runs/' + r.id + '/baseline'); changed(); } catch (err) { button.disabled = false; button.textContent = err.message; }
  };
  const action = (id, label, method) => (state.token && ended && r.target)
    ? el('button', {id, onclick: (e) => act(method, e.target)}, label) : null;
  let text;
  if (r.baseline_run === r.id) {
    text = ['This run is the baseline of its target: later runs of ', el('b', {}, r.target), ' are compared with it. ',
      action('unmark-baseline', 'Unmark', 'DELETE')];
  } else if (r.baseline_run) {
    text = ['Compared with the baseline of ', el('b', {}, r.target), ', ', el('a', {href: '#/run/' + r.baseline_run}, 'run #' + r.baseline_run),
      ':' + (b ? counts : ' ' + (r.baseline_error || 'not compared.')) + ' ', action('mark-baseline', 'Make this run the baseline', 'PUT')];
  } else {
    text = [r.target ? 'No baseline for this target. ' : '', action('mark-baseline', 'Mark as baseline', 'PUT')];
  }
  return el('p', {id: 'baseline-bar'}, text);
}

// Fixed since the baseline: findings none of whose cases fail now, and
// cases that failed there and pass now.
function fixedSection(r) {
  const b = r.baseline;
  if (!b || (!b.fixed_findings.length && !b.fixed_cases.length)) return null;
  return el('section', {id: 'fixed'},
    el('h3', {}, 'Fixed since the baseline (' + b.fixed_findings.length + ' findings, ' + b.fixed_cases.length + ' cases)'),
    el('ul', {}, b.fixed_findings.map((f) => el('li', {className: 'pass'}, f.title || f.key)),
      b.fixed_cases.map((c) => el('li', {className: 'muted'}, c.id + (c.configuration ? ' [' + c.configuration + ']' : '')))));
}

// ------------------------------------------------------------ findings

// The seq of each case of the run by id and configuration, for links.
function seqOf(r) {
  const m = new Map();
  for (const c of r.cases || []) m.set(c.id + '\n' + (c.configuration || ''), c.seq);
  return m;
}

function findingDetails(r, f, seqs, open) {
  const repro = f.reproducer ? el('code', {className: 'repro'}, f.reproducer) : null;
  const copy = repro ? el('button', {className: 'copy', onclick: (e) => { e.preventDefault(); copyText(f.reproducer, e.target, repro); }}, 'copy') : null;
  const d = f.diagnosis;
  const ex = f.example;
  const caseLink = (c) => {
    const seq = seqs.get(c.id + '\n' + (c.configuration || ''));
    const name = c.id + (c.configuration ? ' [' + c.configuration + ']' : '');
    return el('li', {}, verdictSpan(c.verdict), ' ', seq ? el('a', {href: '#/run/' + r.id + '/case/' + seq}, name) : name);
  };
  return el('details', {className: 'finding', id: 'finding-' + f.id, open, dataset: {finding: f.id, baseline: f.baseline || ''}},
    el('summary', {},
      el('b', {}, f.id), ' ', badge(f.baseline), ' ', verdictSpan(f.verdict), ' ', el('span', {className: 'muted'}, f.level), ' ',
      el('span', {className: 'title'}, f.title), ' ',
      el('span', {className: 'muted'}, (f.sections || []).join(', ') + ' · ' + f.cases.length + (f.cases.length === 1 ? ' case' : ' cases'))),
    el('div', {className: 'finding-body'},
      f.expected ? el('p', {}, el('span', {className: 'muted'}, 'expected '), f.expected) : null,
      f.got ? el('p', {}, el('span', {className: 'muted'}, 'got '), f.got) : null,
      d ? el('p', {className: 'hint'}, el('span', {className: 'muted'}, 'diagnosis '), d.mistake + (d.hint ? ': ' + d.hint : ''),
        d.meant ? el('div', {className: 'muted'}, 'meant: ' + d.meant) : null) : null,
      (f.rules || []).length ? el('ul', {className: 'rules'}, f.rules.map((x) =>
        el('li', {}, x.id, el('span', {className: 'muted'}, ' ' + x.level + (x.section ? ', ' + x.section : '')), x.summary ? ': ' + x.summary : ''))) : null,
      ex && (ex.sent || ex.received) ? el('pre', {className: 'octets'},
        (ex.sent ? 'sent     ' + short(ex.sent, 192) + (ex.sent.length > 192 ? '…' : '') + '\n' : '') +
        (ex.received ? 'received ' + short(ex.received, 192) + (ex.received.length > 192 ? '…' : '') : '')) : null,
      repro ? el('div', {className: 'bar'}, repro, copy) : null,
      el('ul', {className: 'finding-cases'}, f.cases.slice(0, 500).map(caseLink),
        f.cases.length > 500 ? el('li', {className: 'muted'}, (f.cases.length - 500) + ' more') : null)));
}

// The run's findings, worst first; `open` names one to show expanded.
function findingsSection(r, open) {
  const list = r.findings || [];
  const b = r.baseline;
  const seqs = seqOf(r);
  return el('section', {id: 'findings'},
    el('h3', {}, 'Findings (' + list.length + ')',
      b ? el('span', {className: 'muted'}, ' · ' + b.new_findings + ' new, ' + b.known_findings + ' known') : null),
    r.findings_error ? el('p', {className: 'msg'}, 'The findings could not be grouped: ' + r.findings_error) : null,
    !list.length && !r.findings_error ? el('p', {className: 'muted'},
      (r.status === 'queued' || r.status === 'running') ? 'No findings yet.' : 'No findings: no case failed.') : null,
    list.map((f) => findingDetails(r, f, seqs, f.id === open)));
}

// The findings a case belongs to, and known/new, in its row.
function caseFindingCell(r, c) {
  return el('td', {className: 'case-findings'},
    (c.findings || []).flatMap((id, i) => [i ? ' ' : '', el('a', {href: '#/run/' + r.id + '/finding/' + id, className: 'finding-link'}, id)]),
    c.baseline ? ' ' : null, c.baseline ? badge(c.baseline) : null);
}

// ------------------------------------------------------------ a case

// The findings that explain a case (each links to it in the run view), the
// step that failed and the rules the IUT broke in passing.
function caseFindings(runId, c, found) {
  const mine = found.filter((f) => (f.cases || []).some((x) => x.id === c.id && (x.configuration || '') === (c.configuration || '')));
  const fl = c.failure;
  const passing = Array.isArray(c.in_passing) ? c.in_passing : [];
  if (!mine.length && !fl && !passing.length) return null;
  return el('div', {id: 'case-findings'},
    mine.map((f) => el('p', {className: 'case-finding'}, 'Finding ', el('a', {href: '#/run/' + runId + '/finding/' + f.id}, f.id), ' ',
      badge(f.baseline), ' ', f.title)),
    fl ? el('table', {className: 'failure'},
      [['step', (fl.line ? 'line ' + fl.line + ': ' : '') + (fl.step || '')], ['expected', fl.expected], ['got', fl.got +
        (fl.field ? ': ' + fl.field + ' ' + fl.have + ' where ' + fl.field + fl.want + ' is expected' : '')],
      ['after', fl.stimulus ? fl.stimulus + (fl.stimulus_fields && fl.stimulus_fields.length ? ' {' + fl.stimulus_fields.join(', ') + '}' : '') : ''],
      ['diagnosis', fl.mistake ? fl.mistake + (fl.hint ? ': ' + fl.hint : '') : '']]
        .filter(([, v]) => v).map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, v)))) : null,
    passing.length ? el('ul', {className: 'rules'}, passing.map((p) => el('li', {},
      'broken in passing: ', p.rule, el('span', {className: 'muted'}, ' ' + p.level + (p.section ? ', ' + p.section : '')), ': ', p.text || p.summary))) : null);
}

// The addresses of the case's connection: where the JSON report keeps them
// (its exchange), or where an older dashboard stored them.
function caseAddresses(c) {
  const x = c.exchange && c.exchange.tester_address ? c.exchange : c;
  return x.tester_address ? el('p', {className: 'muted'}, 'tester ' + x.tester_address + ' ↔ IUT ' + x.iut_address) : null;
}

// ------------------------------------------------------------ diff

// Two runs by findings: new in b, fixed since a, still there.
function diffFindingsSections(d, a, b) {
  const f = d.findings || {new: [], still: [], fixed: []};
  const section = (key, title, run) => el('section', {id: 'diff-findings-' + key},
    el('h3', {}, title + ' (' + f[key].length + ')'),
    f[key].length ? el('table', {},
      el('tr', {}, ['finding', 'verdict', 'level', 'title', 'cases'].map((h) => el('th', {}, h))),
      f[key].map((x) => el('tr', {},
        el('td', {}, x.id ? el('a', {href: '#/run/' + run + '/finding/' + x.id}, x.id + ' of #' + run) : ''),
        el('td', {}, x.verdict ? verdictSpan(x.verdict) : ''), el('td', {}, x.level || ''),
        el('td', {}, x.title || x.key), el('td', {className: 'num'}, String((x.cases || []).length))))) :
      el('p', {className: 'muted'}, 'none'));
  return [
    f.error ? el('p', {className: 'msg'}, 'The findings could not be compared: ' + f.error) : null,
    section('new', 'New findings', b), section('fixed', 'Fixed findings', a), section('still', 'Still there', b)];
}
