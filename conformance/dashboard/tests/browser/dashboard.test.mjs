// End-to-end: `rdmaconf serve` in Debian's chromium (headless), driven by
// puppeteer-core. Starts a run from the page and watches it finish live,
// sees its findings lead the run view, opens a failing case (its finding,
// sequence diagram, frame fields, script), marks the run as its target's
// baseline and sees a later run's failures known, diffs two runs by findings
// and by cases, uploads captures, lists the agents known from runs, and
// checks that markup in case text, targets, labels, capture names and
// capabilities stays text; starts a fuzz run and sees its finding (and a
// fuzz target that is markup stays text; a dropped ask of the run's view is
// made again), and a CLC server fuzz run with
// the form's CLC identity (a GID that is markup stays text). Then
// opens a static report (`rdmaconf run --html`) from file://: the same page
// over embedded data, loading nothing.
// Usage: node dashboard.test.mjs RDMACONF_EXE [SCREENSHOT_DIR]
// Exit 77 (ctest: skipped) only when no chromium is installed.
import {spawn} from 'node:child_process';
import {copyFileSync, cpSync, existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import assert from 'node:assert/strict';

import {startServe} from './serve.mjs';

const exe = process.argv[2];
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const shots = process.argv[3] || process.env.RDMACONF_SCREENSHOTS || '';
const chromium = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) {
  console.log('SKIPPED: no chromium installed (apt-get install chromium; ci/install-deps.sh does)');
  process.exit(77);
}
let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  console.error('puppeteer-core is missing: run `npm ci` in conformance/dashboard/tests/browser (ci/install-deps.sh does)');
  process.exit(1);
}

const token = 'browser-test-token';
const dir = mkdtempSync(join(tmpdir(), 'rdmaconf-browser-'));
const {serve, base} = await startServe(exe, token, dir);

async function api(method, path, body) {
  const r = await fetch(base.replace(/\/$/, '') + path, {
    method, headers: {'Content-Type': 'application/json', Authorization: 'Bearer ' + token},
    body: body ? JSON.stringify(body) : undefined,
  });
  return {status: r.status, json: await r.json()};
}

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
let failed = false;
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // Failed loads are checked by URL below (a case outside the catalogue has
  // no script: that 404 is the answer, not an error).
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  page.on('response', (r) => {
    if (r.status() >= 400 && !new URL(r.url()).pathname.startsWith('/api/scripts/')) errors.push(r.status() + ' ' + r.url());
  });
  page.on('dialog', (d) => { errors.push('dialog: ' + d.message()); d.dismiss(); });
  // The view of fuzz run `id` with the run ended. Right after the address
  // changes the view before it is still on screen (the form, with no
  // status, or another run's view with its own), so the wait names the run.
  const fuzzRunEnded = async (id) => {
    await page.waitForFunction((n) => {
      const head = document.querySelector('main h2');
      const status = document.querySelector('#fuzz-status');
      return !!head && head.textContent.startsWith('Fuzz run #' + n + ':') && !!status && status.textContent !== 'running';
    }, {timeout: 60000}, id);
    return page.$eval('#fuzz-status', (e) => e.textContent);
  };
  const shownFuzzRun = async () => Number((await page.evaluate(() => location.hash)).split('/').pop());
  const shot = async (name) => {
    if (!shots) return;
    mkdirSync(shots, {recursive: true});
    await page.screenshot({path: join(shots, name + '.png'), fullPage: false});
  };

  // The token arrives in the fragment and leaves the address bar.
  await page.goto(base + '#token=' + token);
  await page.waitForSelector('#live.on');
  assert.equal(await page.evaluate(() => location.hash), '#/');

  // 1. A clean run, for the diff later (through the API).
  const clean = await api('POST', '/api/runs', {reference: true, suites: ['rdmap'], time_scale: 0.25});
  assert.equal(clean.status, 201);

  // 1b. Typing in the search box while cases arrive. The test publishes the
  // cases itself, after the typing, so they arrive while the box has focus
  // however fast the machine is: live redraws keep its focus, what was
  // typed, and apply the typed filter to the new cases.
  const typing = await api('POST', '/api/runs', {publish: {target: 'typing-target', config: {}}});
  assert.equal(typing.status, 201);
  await page.goto(base + `#/run/${typing.json.id}`);
  await page.waitForSelector('#search');
  await page.focus('#search');
  await page.type('#search', 'typed');
  const drawsBefore = await page.evaluate(() => window.rdmaconfStats.draws);
  for (let batch = 0; batch < 3; ++batch) {
    const put = await api('POST', `/api/runs/${typing.json.id}/cases`, {cases: [0, 1, 2, 3].map((k) => ({
      id: `rdmap-typed-${batch}-${k}`, verdict: 'pass', protocol: 'rdmap', level: 'MUST', rfc: 'RFC 5040 §5',
      title: 'typed', reason: '', requirements: [], frames: []}))});
    assert.equal(put.status, 200, JSON.stringify(put.json));
  }
  await page.waitForFunction(() => document.querySelector('#counts b')?.textContent === '12');
  assert.ok(await page.evaluate(() => window.rdmaconfStats.draws) > drawsBefore, 'the page redrew while the box had focus');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'search', 'the search box kept its focus');
  assert.equal(await page.$eval('#search', (e) => e.value), 'typed');
  await page.waitForFunction(() => document.querySelector('#shown').textContent === '12 shown');
  assert.equal((await api('POST', `/api/runs/${typing.json.id}/finish`, {status: 'done'})).status, 200);
  await page.$eval('#search', (e) => { e.value = ''; e.dispatchEvent(new Event('input')); });

  // 2. Start a run from the page: the reference with a fault, so some cases fail.
  await page.goto(base + '#/new');
  await page.waitForSelector('#start');
  await page.select('#kind', 'reference');
  await page.type('#faults', 'terminate-wrong-code');
  await page.click('.suite[value="rdmap"]');
  await page.$eval('#time-scale', (e) => { e.value = '0.25'; });
  await page.type('#labels', 'fw=9.9, dut=rack4');
  await page.click('#start');
  await page.waitForFunction(() => /^#\/run\/\d+$/.test(location.hash));
  const faultyId = Number((await page.evaluate(() => location.hash)).split('/')[2]);
  // Watched live: the page is never reloaded while the run goes.
  await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'done', {timeout: 120000});
  const counts = await page.$eval('#counts', (e) => e.textContent);
  assert.match(counts, /fail/, 'the faulty reference fails some cases: ' + counts);
  const firstVerdict = await page.$eval('#cases tr[data-verdict]', (e) => e.dataset.verdict);
  assert.equal(firstVerdict, 'fail', 'failures are listed first');
  assert.ok(await page.$('#matrix td.cell-fail'), 'the protocol × level matrix marks the failing cell');
  // Findings lead the run view: fetched once the run ended, above the matrix and the cases.
  await page.waitForSelector('#findings details.finding');
  assert.ok(await page.evaluate(() => document.querySelector('#findings')
    .compareDocumentPosition(document.querySelector('#matrix')) & Node.DOCUMENT_POSITION_FOLLOWING), 'findings come first');
  const findingCount = await page.$$eval('#findings details.finding', (l) => l.length);
  assert.match(await page.$eval('#findings h3', (e) => e.textContent), new RegExp('Findings \\(' + findingCount + '\\)'));
  const identity = await page.$eval('#identity', (e) => e.textContent);
  assert.match(identity, /rdmaconf \S+ \(commit [0-9a-f]+\).*catalogue [0-9a-f]{12} \(\d+ cases\)/, identity);
  assert.match(await page.$eval('#command-line', (e) => e.textContent),
    /^rdmaconf run --reference --fault terminate-wrong-code --suite rdmap --time-scale 0\.25 --label dut=rack4 --label fw=9\.9$/);
  assert.equal(await page.$eval('#identity-labels', (e) => e.textContent), 'labels: dut=rack4fw=9.9');
  await shot('run');
  // A case links its finding, which opens expanded with its cases and reproducer.
  const findingLink = await page.$eval('#cases tr[data-verdict="fail"] a.finding-link', (e) => e.textContent);
  await page.click('#cases tr[data-verdict="fail"] a.finding-link');
  await page.waitForFunction((id) => document.querySelector('#finding-' + id)?.open, {}, findingLink);
  const repro = await page.$eval(`#finding-${findingLink} code.repro`, (e) => e.textContent);
  assert.match(repro, /^rdmaconf run --reference --fault terminate-wrong-code .*--case rdmap-/, repro);
  assert.ok((await page.$$(`#finding-${findingLink} .finding-cases a`)).length >= 1, 'a finding lists its cases');
  await page.click(`#finding-${findingLink} button.copy`);
  await page.waitForFunction((id) => document.querySelector(`#finding-${id} button.copy`).textContent !== 'copy', {}, findingLink);
  await shot('finding');

  // Filter and search.
  const shownAll = await page.$eval('#shown', (e) => parseInt(e.textContent, 10));
  await page.select('#filter-verdict', 'fail');
  const shownFail = await page.$eval('#shown', (e) => parseInt(e.textContent, 10));
  assert.ok(shownFail > 0 && shownFail < shownAll, `verdict filter: ${shownFail} of ${shownAll}`);
  await page.select('#filter-verdict', '');
  await page.type('#search', 'no-such-thing-anywhere');
  await page.waitForFunction(() => parseInt(document.querySelector('#shown').textContent, 10) === 0);
  await page.$eval('#search', (e) => { e.value = ''; e.dispatchEvent(new Event('input')); });
  await page.waitForFunction((n) => parseInt(document.querySelector('#shown').textContent, 10) === n, {}, shownAll);

  // 3. Open the first failing case: sequence diagram, a frame's fields, the script.
  await page.click('#cases tr[data-verdict="fail"] a');
  await page.waitForSelector('svg.seq g.frame');
  await page.click('svg.seq g.frame');
  const detail = await page.$eval('#frame-detail', (e) => e.textContent);
  assert.ok(detail.length > 20 && !/Click a frame/.test(detail), 'a frame shows its decoded fields');
  assert.ok((await page.$eval('#script', (e) => e.textContent)).includes('id:'), 'the script is shown');
  assert.ok(await page.$('#reason'), 'the failure reason is shown');
  assert.ok(await page.$('#case-findings table.failure'), 'the failed step: expected and got');
  await shot('case');
  // The case names its finding; the link leads back to it, expanded.
  const caseFinding = await page.$eval('#case-findings .case-finding a', (e) => e.textContent);
  await page.click('#case-findings .case-finding a');
  await page.waitForFunction((id) => document.querySelector('#finding-' + id)?.open, {}, caseFinding);

  // 3b. The faulty run becomes its target's baseline; the same fault again
  // is then known, case by case and finding by finding.
  await page.goto(base + `#/run/${faultyId}`);
  await page.waitForSelector('#mark-baseline');
  assert.match(await page.$eval('#baseline-bar', (e) => e.textContent), /No baseline for this target/);
  await page.click('#mark-baseline');
  await page.waitForFunction(() => /This run is the baseline of its target/.test(document.querySelector('#baseline-bar')?.textContent));
  assert.ok(await page.$('#unmark-baseline'), 'the baseline can be unmarked');
  const again = await api('POST', '/api/runs', {reference: {faults: ['terminate-wrong-code']}, suites: ['rdmap'], time_scale: 0.25,
    labels: {fw: '9.10'}});
  assert.equal(again.status, 201);
  await page.goto(base + `#/run/${again.json.id}`);
  await page.waitForFunction((id) => document.querySelector('#run-head h2')?.textContent.startsWith(`Run #${id} `) &&
    document.querySelector('#run-status').textContent === 'done', {timeout: 120000}, again.json.id);
  // Once it ended, the page fetched its findings and their comparison again.
  const final = (await api('GET', `/api/runs/${again.json.id}`)).json;
  const knownCases = final.cases.filter((c) => c.baseline === 'known').length;
  assert.ok(knownCases > 0 && final.findings.length > 0, 'the API marks known cases');
  await page.waitForFunction((n, k) => document.querySelectorAll('#findings details.finding').length === n &&
    document.querySelectorAll('#cases tr[data-baseline="known"] .badge.baseline-known').length === k, {}, final.findings.length, knownCases);
  assert.match(await page.$eval('#baseline-bar', (e) => e.textContent), new RegExp(`baseline of .*run #${faultyId}`));
  assert.equal(await page.$$eval('#cases tr[data-baseline="new"]', (l) => l.length), 0, 'the same fault: nothing new');
  const statuses = await page.$$eval('#findings details.finding', (l) => l.map((e) => e.dataset.baseline));
  assert.ok(statuses.length && statuses.every((x) => x === 'known'), 'every finding known: ' + statuses.join());
  assert.match(await page.$eval('#findings h3', (e) => e.textContent), /0 new, \d+ known/);
  await shot('baseline');

  // 4. Diff the clean run against the faulty one.
  await page.goto(base + `#/diff/${clean.json.id}/${faultyId}`);
  await page.waitForSelector('#diff-new_failures');
  const newFailures = await page.$eval('#diff-new_failures h3', (e) => e.textContent);
  assert.match(newFailures, /New failures \([1-9]\d*\)/, newFailures);
  // By findings first: what the fault causes is new.
  assert.match(await page.$eval('#diff-findings-new h3', (e) => e.textContent), new RegExp('New findings \\(' + findingCount + '\\)'));
  assert.match(await page.$eval('#diff-findings-fixed h3', (e) => e.textContent), /Fixed findings \(0\)/);
  assert.ok(await page.evaluate(() => document.querySelector('#diff-findings-new')
    .compareDocumentPosition(document.querySelector('#diff-new_failures')) & Node.DOCUMENT_POSITION_FOLLOWING));
  await shot('diff');

  // 5. Markup in case text stays text (a published run whose strings are script).
  const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const pub = await api('POST', '/api/runs', {publish: {target: evil, config: {note: evil},
    identity: {version: evil, labels: {dut: evil}, iut: {firmware: evil}, command_line: ['rdmaconf', 'run', '--label', 'dut=' + evil]}}});
  assert.equal(pub.status, 201);
  const put = await api('POST', `/api/runs/${pub.json.id}/cases`, {cases: [{
    id: 'mpa-' + evil, verdict: 'fail', protocol: 'mpa', level: 'MUST', rfc: evil, title: evil, reason: evil,
    requirements: [evil], frames: [{from: 'iut', at_ms: 1, headline: '<-- ' + evil, detail: evil}],
    agent: [{at_ms: 2, kind: 'async', name: evil, status: evil, detail: evil}]}]});
  assert.equal(put.status, 200, JSON.stringify(put.json));
  await api('POST', `/api/runs/${pub.json.id}/finish`, {status: 'done'});
  await page.goto(base + '#/');
  await page.waitForSelector(`#runs tr[data-run="${pub.json.id}"]`);
  assert.equal(await page.$eval(`#runs tr[data-run="${faultyId}"] td.findings-count`, (e) => e.textContent), String(findingCount),
    'the list says how many findings a run had');
  assert.match(await page.$eval(`#runs tr[data-run="${faultyId}"]`, (e) => e.textContent), /dut=rack4fw=9\.9/, 'and its labels');
  await page.goto(base + `#/run/${pub.json.id}`);
  await page.waitForSelector('#cases tr[data-verdict="fail"] a');
  // Its target, labels and IUT are markup too: text in the header, the
  // finding and the baseline bar, also once it is the target's baseline.
  assert.ok((await page.$eval('#identity-labels', (e) => e.textContent)).includes('dut=<img src=x'));
  assert.ok((await page.$eval('#identity-iut', (e) => e.textContent)).includes('<img src=x'));
  assert.ok((await page.$eval('#command-line', (e) => e.textContent)).includes("'dut=<img src=x"), 'quoted as a shell word');
  assert.ok((await page.$eval('#findings', (e) => e.textContent)).includes('<img src=x'), 'the finding says its case as text');
  await page.click('#mark-baseline');
  await page.waitForSelector('#unmark-baseline');
  assert.equal(await page.$eval('#baseline-bar b', (e) => e.textContent), evil);
  await page.click('#cases tr[data-verdict="fail"] a');
  await page.waitForSelector('svg.seq g.frame');
  await page.click('svg.seq g.frame');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script from data ran');
  assert.equal(await page.$$eval('main img, main script', (l) => l.length), 0, 'no element from data');
  assert.ok((await page.$eval('#case-title', (e) => e.textContent)).includes('<img src=x'), 'shown as text');

  // 6. Upload a capture from the page; its name is markup, shown as text.
  const evilName = join(dir, '<img src=x onerror="window.__pwned=3">.pcap');
  copyFileSync(join(root, 'pcap/tests/captures/real/siw-mpa-bad-key.pcap'), evilName);
  await page.goto(base + '#/captures');
  const input = await page.waitForSelector('#capture-file');
  await input.uploadFile(evilName);
  await page.click('#upload');
  await page.waitForSelector('#capture-name');
  assert.ok((await page.$eval('#capture-name', (e) => e.textContent)).startsWith('<img src=x'));
  assert.match(await page.$eval('#capture-violations', (e) => e.textContent), /1 violations \(1 MUST\)/);
  assert.match(await page.$eval('table.violations', (e) => e.textContent), /rfc5044-7\.1\.1-key-reply/);
  assert.ok(await page.$('#annotated'), 'the annotated pcapng is offered');
  // A clean capture: its exchange drawn like a case's.
  const r = await fetch(base + 'api/captures?name=rping.pcap', {method: 'POST', headers: {Authorization: 'Bearer ' + token},
    body: readFileSync(join(root, 'pcap/tests/captures/real/siw-rping-mpav2.pcap'))});
  assert.equal(r.status, 201);
  await page.goto(base + '#/capture/' + (await r.json()).id);
  await page.waitForSelector('svg.seq g.frame');
  await page.click('svg.seq g.frame');
  assert.match(await page.$eval('#frame-detail', (e) => e.textContent), /MPA Request/);
  await shot('capture');
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script from a capture name ran');

  // 7. Requirement coverage: the runs' targets as columns, failing rows found.
  await page.goto(base + '#/coverage');
  await page.waitForSelector('#coverage');
  const columns = await page.$$eval('#coverage tr:first-child th', (l) => l.map((e) => e.textContent));
  assert.ok(columns.some((c) => c.includes('terminate-wrong-code')), 'the faulty target is a column: ' + columns.join('|'));
  await page.select('#coverage-only', 'failing');
  assert.ok((await page.$$('#coverage td .fail')).length > 0, 'rows failing on the faulty target');
  await shot('coverage');

  // 8. Agents known from runs: a published run made through an agent (as
  // `rdmaconf run --agent --publish` sends it); its device's name is markup.
  const agentRun = await api('POST', '/api/runs', {publish: {target: 'rnic via agent',
    config: {agent: {url: 'http://dut.lab:7500', configs: ['auto']}},
    capabilities: {backend: 'rdma-core', device: evil, vendor: 'ACME', firmware: '1.2.3', mpa_revisions: [1, 2], atomics: false}}});
  assert.equal(agentRun.status, 201);
  await api('POST', `/api/runs/${agentRun.json.id}/finish`, {status: 'done'});
  await page.goto(base + '#/agents');
  await page.waitForSelector('#agents tr[data-agent]');
  const agentRow = await page.$eval('#agents tr[data-agent]', (e) => e.textContent);
  assert.ok(agentRow.includes('http://dut.lab:7500') && agentRow.includes('<img src=x') && agentRow.includes('1.2.3'), agentRow);
  assert.ok(await page.$(`#agents a[href="#/run/${agentRun.json.id}"]`), 'the agent links its newest run');
  assert.equal((await page.$$('#agents tr[data-agent]')).length, 1, 'runs without an agent are not agents');
  await page.click('#agents details summary');
  assert.match(await page.$eval('#agents table.caps', (e) => e.textContent), /mpa_revisions1, 2/, 'every capability listed');
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script from capabilities ran');
  await shot('agents');

  // 8b. A fuzz run from the page: the reference with a Terminate fault,
  // its finding shown as it comes (signature, script as text, a capture
  // link); then one whose target is markup, shown as text.
  await page.goto(base + '#/fuzz');
  await page.waitForSelector('#fuzz-start');
  await page.select('#fuzz-side', 'reference');
  await page.type('#fuzz-faults', 'terminate-le-bitfield');
  await page.type('#fuzz-cases', 'rdmap-echo-*');
  await page.$eval('#fuzz-seconds', (e) => { e.value = '6'; });
  // One of the view's asks while the run goes on fails as a dropped
  // connection does: the view must ask again, not stay "running".
  let fuzzAsks = 0;
  let fuzzAskDropped = false;
  const dropOneAsk = (req) => {
    if (req.method() === 'GET' && /\/api\/fuzz\/\d+$/.test(new URL(req.url()).pathname) && ++fuzzAsks === 2) {
      fuzzAskDropped = true;
      req.abort('connectionreset');
    } else {
      req.continue();
    }
  };
  await page.setRequestInterception(true);
  page.on('request', dropOneAsk);
  await page.click('#fuzz-start');
  await page.waitForFunction(() => /^#\/fuzz\/\d+$/.test(location.hash));
  await page.waitForSelector('.fuzz-finding .signature', {timeout: 60000});
  assert.equal(await page.$eval('.fuzz-finding .signature', (e) => e.textContent), 'breaks rfc5040-4.8-terminate-format');
  assert.match(await page.$eval('.fuzz-finding pre.script', (e) => e.textContent), /connection 2\nhandshake/, 'the case script as text');
  assert.match(await page.$eval('.fuzz-finding a.capture', (e) => e.getAttribute('href')), /^\/api\/fuzz\/\d+\/findings\/1\/captures\/.+\.pcapng$/);
  assert.equal(await fuzzRunEnded(await shownFuzzRun()), 'done');
  page.off('request', dropOneAsk);
  await page.setRequestInterception(false);
  assert.ok(fuzzAskDropped, 'an ask of the running view was dropped (the run ended before a second ask?)');
  await shot('fuzz');
  const evilFuzz = await api('POST', '/api/fuzz', {target: '<img src=x onerror="window.__pwned=6">:1', iterations: 1});
  assert.equal(evilFuzz.status, 201);
  await page.goto(base + '#/fuzz/' + evilFuzz.json.id);
  await fuzzRunEnded(evilFuzz.json.id);
  assert.ok((await page.$eval('main', (e) => e.textContent)).includes('target <img src=x'), 'the markup target shown as text');
  // 8c. The CLC server target: the form's CLC identity fields go into the
  // request (only the ones given) and the run's view says them; a value
  // that is markup is shown as text, and the command's check fails the run.
  await page.goto(base + '#/fuzz');
  await page.waitForSelector('#fuzz-clc-eid');
  await page.select('#fuzz-side', 'reference');
  await page.select('#fuzz-suite', 'clc');
  await page.type('#fuzz-clc-eid', 'RDMACONF-TEST-EID');
  await page.type('#fuzz-clc-prefix', '127.0.0.0/8');
  await page.type('#fuzz-clc-mac', '02:00:00:00:00:01');
  await page.$eval('#fuzz-seconds', (e) => { e.value = '2'; });
  await page.click('#fuzz-start');
  await page.waitForFunction(() => /^#\/fuzz\/\d+$/.test(location.hash));
  const clcId = Number(await page.evaluate(() => location.hash.split('/').pop()));
  const clcRun = await api('GET', '/api/fuzz/' + clcId);
  assert.deepEqual(clcRun.json.request.clc, {eid: 'RDMACONF-TEST-EID', prefix: '127.0.0.0/8', mac: '02:00:00:00:00:01'}, 'the identity given, no more');
  assert.equal(await fuzzRunEnded(clcId), 'done');
  assert.ok((await page.$eval('main', (e) => e.textContent)).includes('reference; CLC peer: EID RDMACONF-TEST-EID, prefix 127.0.0.0/8, MAC 02:00:00:00:00:01'),
    'the run says its CLC peer');
  await page.goto(base + '#/fuzz');
  await page.waitForSelector('#fuzz-clc-gid');
  await page.select('#fuzz-side', 'reference');
  await page.select('#fuzz-suite', 'clc');
  await page.type('#fuzz-clc-gid', '<img src=x onerror="window.__pwned=8">');
  await page.$eval('#fuzz-seconds', (e) => { e.value = '2'; });
  await page.click('#fuzz-start');
  await page.waitForFunction(() => /^#\/fuzz\/\d+$/.test(location.hash));
  assert.equal(await fuzzRunEnded(await shownFuzzRun()), 'failed', 'the command refuses that GID');
  assert.ok((await page.$eval('main', (e) => e.textContent)).includes('GID <img src=x onerror="window.__pwned=8">'), 'the markup GID shown as text');
  assert.ok((await page.$eval('#fuzz-message', (e) => e.textContent)).includes('--clc-gid'), 'the command\'s words');
  // An iWARP run takes none of them, whatever the fields hold.
  await page.goto(base + '#/fuzz');
  await page.waitForSelector('#fuzz-clc-eid');
  await page.select('#fuzz-side', 'reference');
  await page.type('#fuzz-clc-eid', 'IGNORED');
  await page.type('#fuzz-cases', 'rdmap-echo-*');
  await page.$eval('#fuzz-seconds', (e) => { e.value = '1'; });
  await page.click('#fuzz-start');
  await page.waitForFunction(() => /^#\/fuzz\/\d+$/.test(location.hash));
  const iwarpId = Number(await page.evaluate(() => location.hash.split('/').pop()));
  assert.equal((await api('GET', '/api/fuzz/' + iwarpId)).json.request.clc, undefined, 'no CLC identity for iWARP seeds');
  await fuzzRunEnded(iwarpId);
  await page.goto(base + '#/fuzz');
  await page.waitForSelector('#fuzz-runs tr td');
  assert.equal(await page.$$eval('main img, main script', (l) => l.length), 0, 'no element from a fuzz run');
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script from a fuzz run ran');

  assert.deepEqual(errors, [], 'no page errors');

  // 9. The static report of a CLI run, opened from a file. Its catalogue is
  // the rdmap suite plus a copy of a case the fault fails, whose title and
  // script are markup and script.
  const casesDir = join(dir, 'cases');
  cpSync(join(root, 'conformance/cases/rdmap'), join(casesDir, 'rdmap'), {recursive: true});
  const evilText = '<img src=x onerror="window.__pwned=4"></script><script>window.__pwned=5</script><!-- \u2028';
  const original = readFileSync(join(casesDir, 'rdmap/5042-write-needs-remote-write.case'), 'utf8');
  writeFileSync(join(casesDir, 'rdmap/zz-markup.case'), original
    .replace(/^id:.*$/m, 'id:          rdmap-zz-markup')
    .replace(/^title:.*$/m, 'title:       ' + evilText)
    .replace(/^handshake$/m, '# ' + evilText + '\nhandshake'));
  const reportDir = join(dir, 'report');
  await new Promise((resolve, reject) => {
    const run = spawn(exe, ['run', '--reference', '--fault', 'terminate-wrong-code', '--cases-dir', casesDir, '--time-scale', '0.25',
      '-q', '--html', reportDir], {stdio: ['ignore', 'ignore', 'inherit']});
    run.on('exit', (code) => (code === 1 ? resolve() : reject(new Error('rdmaconf run --html exited with ' + code))));
  });
  const rpage = await browser.newPage();
  await rpage.setViewport({width: 1280, height: 900});
  const rerrors = [];
  rpage.on('pageerror', (e) => rerrors.push(String(e)));
  rpage.on('console', (m) => { if (m.type() === 'error') rerrors.push(m.text()); });
  rpage.on('dialog', (d) => { rerrors.push('dialog: ' + d.message()); d.dismiss(); });
  const loaded = [];
  rpage.on('request', (q) => loaded.push(q.url()));
  const reportUrl = pathToFileURL(join(reportDir, 'index.html')).href;
  await rpage.goto(reportUrl);
  await rpage.waitForSelector('#matrix');
  assert.ok(await rpage.$('#matrix td.cell-fail'), 'the report has the matrix with the failing cell');
  assert.equal(await rpage.$eval('#cases tr[data-verdict]', (e) => e.dataset.verdict), 'fail', 'failures first in the report');
  assert.ok((await rpage.$$('#findings details.finding')).length > 0, 'the report leads with its findings');
  assert.match(await rpage.$eval('#identity', (e) => e.textContent), /rdmaconf \S+ \(commit/, 'and says what made it');
  assert.equal(await rpage.$('#mark-baseline'), null, 'a report marks no baseline');
  if (shots) await rpage.screenshot({path: join(shots, 'report.png')});
  assert.equal(await rpage.$('#live'), null, 'no live stream in a report');
  assert.equal(await rpage.$('#start'), null, 'nothing that starts runs');
  assert.equal(await rpage.$('#cancel:not([hidden])'), null, 'nothing that cancels');
  const reportAll = await rpage.$eval('#shown', (e) => parseInt(e.textContent, 10));
  assert.equal(String(reportAll), await rpage.$eval('#counts b', (e) => e.textContent));
  await rpage.select('#filter-verdict', 'fail');
  const reportFail = await rpage.$eval('#shown', (e) => parseInt(e.textContent, 10));
  assert.ok(reportFail > 0 && reportFail < reportAll, `report verdict filter: ${reportFail} of ${reportAll}`);
  await rpage.type('#search', 'zz-markup-ro');
  await rpage.waitForFunction(() => parseInt(document.querySelector('#shown').textContent, 10) === 1);
  assert.equal(await rpage.$eval('#cases tr[data-verdict] td', (e) => e.textContent), 'fail', 'the markup case fails');
  await rpage.click('#cases tr[data-verdict] a');
  await rpage.waitForSelector('svg.seq g.frame');
  await rpage.click('svg.seq g.frame');
  assert.ok(!/Click a frame/.test(await rpage.$eval('#frame-detail', (e) => e.textContent)), 'a frame shows its fields');
  assert.ok((await rpage.$eval('main', (e) => e.textContent)).includes('<img src=x onerror='), 'the markup title shown as text');
  assert.ok((await rpage.$eval('#script', (e) => e.textContent)).includes('</script><script>'), 'the script shown as text');
  assert.ok(await rpage.$('#reason'), 'the failure reason is shown');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await rpage.evaluate(() => window.__pwned), undefined, 'no script from the report data ran');
  assert.equal(await rpage.$$eval('main img, main script', (l) => l.length), 0, 'no element from data');
  await rpage.goBack();
  await rpage.waitForSelector('#matrix');
  assert.deepEqual(loaded.filter((u) => u !== reportUrl && !u.startsWith('data:')), [], 'the report loads nothing else');
  assert.deepEqual(rerrors, [], 'no errors in the report page');
  console.log('dashboard browser test: passed');
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  serve.kill('SIGTERM');
}
process.exit(failed ? 1 : 0);
