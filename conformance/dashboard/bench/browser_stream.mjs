// The dashboard's streaming target (docs/performance.md, "Lab dashboard"):
// a 10,000-case run (the catalogue's cases repeated) published to `rdmaconf
// serve` the way `rdmaconf run --publish` does (what ended within a quarter
// second, in requests of at most 200 cases), watched in Debian's chromium on
// the run's page. For every case: the delay from its end (its slot in the
// run's schedule) to the moment the page shows it (the page's case count
// reaches it, seen by a MutationObserver inside the frame that draws it).
//
// Usage: node browser_stream.mjs RDMACONF_EXE [--cases 10000] [--rate 200]
//        [--batch-ms 250] [--json REPORT.json]
// --rate is cases ending per second (200: about the reference's pace over the
// catalogue on the 2-core machine; 0: publish as fast as the server takes
// them); --json is a JSON report whose cases are repeated (default: one
// `rdmaconf run --reference` of the whole catalogue, made first).
// puppeteer-core comes from ../tests/browser (npm ci there).
import {spawn} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

import {startServe} from '../tests/browser/serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const exe = args[0];
const opt = (name, def) => {
  const i = args.indexOf('--' + name);
  return i > 0 ? args[i + 1] : def;
};
const total = Number(opt('cases', 10000));
const rate = Number(opt('rate', 200));
const batchMs = Number(opt('batch-ms', 250));
const perRequest = 200;  // conformance/cli/publish.cpp, kBatch
const chromium = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!exe || !chromium) {
  console.error('usage: node browser_stream.mjs RDMACONF_EXE [--cases N] [--rate R] [--batch-ms MS] [--json FILE] (needs chromium)');
  process.exit(2);
}
const require = createRequire(join(here, '..', 'tests', 'browser', 'package.json'));
const puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')).href)).default;

const dir = mkdtempSync(join(tmpdir(), 'rdmaconf-stream-'));
const now = () => performance.timeOrigin + performance.now();  // ms since the epoch, as in the page
const run = (argv) => new Promise((resolve, reject) => {
  const p = spawn(exe, argv, {stdio: ['ignore', 'ignore', 'inherit']});
  p.on('exit', (code) => (code <= 2 ? resolve(code) : reject(new Error(argv.join(' ') + ': exit ' + code))));
});

let reportPath = opt('json', '');
if (!reportPath) {
  reportPath = join(dir, 'catalogue.json');
  console.log('running the catalogue against the reference once for its case objects ...');
  await run(['run', '--reference', '-q', '--time-scale', '0.25', '--json', reportPath]);
}
const catalogue = JSON.parse(readFileSync(reportPath, 'utf8')).cases;
const cases = Array.from({length: total}, (_, k) => catalogue[k % catalogue.length]);

const token = 'bench-token';
const {serve, base} = await startServe(exe, token, dir);
async function post(path, body) {
  const r = await fetch(base + path.slice(1), {method: 'POST',
    headers: {'Content-Type': 'application/json', Authorization: 'Bearer ' + token}, body: JSON.stringify(body)});
  if (!r.ok) throw new Error(path + ': HTTP ' + r.status + ' ' + await r.text());
  return r.json();
}

const browser = await puppeteer.launch({executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']});
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  // When each WebSocket message arrives and how many case events it holds
  // (a listener beside the page's own).
  await page.evaluateOnNewDocument(() => {
    window.benchMessages = [];
    const Native = window.WebSocket;
    window.WebSocket = function (...a) {
      const ws = new Native(...a);
      ws.addEventListener('message', (m) => {
        window.benchMessages.push([performance.timeOrigin + performance.now(), (m.data.match(/"type":"case"/g) || []).length]);
      });
      return ws;
    };
    window.WebSocket.prototype = Native.prototype;
  });
  const {id} = await post('/api/runs', {publish: {target: 'browser_stream bench', config: {cases: total}}});
  await page.goto(base + '#/run/' + id);
  await page.waitForSelector('#counts b');
  // Inside the page: when the shown case count changes, and to what. The
  // observer runs in the frame that redrew the count, before it is painted.
  await page.evaluate(() => {
    window.benchSeen = [];
    new MutationObserver(() => {
      window.benchSeen.push([performance.timeOrigin + performance.now(), Number(document.querySelector('#counts b').textContent)]);
    }).observe(document.getElementById('counts'), {childList: true, subtree: true, characterData: true});
  });

  // Case k ends at start + k / rate; every batchMs what ended is sent, in
  // requests of at most 200 cases, each request after the last one's answer.
  const ended = new Float64Array(total);
  const sent = new Float64Array(total);
  const answered = new Float64Array(total);
  const start = now() + 100;
  let next = 0;
  while (next < total) {
    const t = now();
    let upto = rate > 0 ? Math.min(total, Math.floor((t - start) * rate / 1000) + 1) : total;
    if (upto <= next) {
      await new Promise((r) => setTimeout(r, batchMs));
      continue;
    }
    if (rate === 0) upto = Math.min(total, next + perRequest);
    for (let k = next; k < upto; k += perRequest) {
      const end = Math.min(upto, k + perRequest);
      for (let i = k; i < end; ++i) {
        ended[i] = rate > 0 ? start + i * 1000 / rate : now();
        sent[i] = now();
      }
      await post('/api/runs/' + id + '/cases', {cases: cases.slice(k, end)});
      answered.fill(now(), k, end);
    }
    next = upto;
    if (rate > 0 && next < total) await new Promise((r) => setTimeout(r, Math.max(0, batchMs - (now() - t))));
  }
  await post('/api/runs/' + id + '/finish', {status: 'done'});
  await page.waitForFunction((n) => Number(document.querySelector('#counts b').textContent) === n, {timeout: 600000, polling: 100}, total);
  const seen = await page.evaluate(() => window.benchSeen);
  const stats = await page.evaluate(() => window.rdmaconfStats);
  const messages = await page.evaluate(() => window.benchMessages);

  // Case k is shown at the first observation whose count exceeds k.
  // Case k arrived in the first message that brings the case count past k.
  const delays = [], fromSend = [], inServer = [], toPage = [], inPage = [];
  let j = 0, m = 0, arrivedCases = 0;
  for (let k = 0; k < total; ++k) {
    while (j < seen.length && seen[j][1] <= k) ++j;
    if (j === seen.length) throw new Error('case ' + (k + 1) + ' never shown');
    while (m < messages.length && arrivedCases + messages[m][1] <= k) arrivedCases += messages[m++][1];
    delays.push(seen[j][0] - ended[k]);
    fromSend.push(seen[j][0] - sent[k]);
    inServer.push(answered[k] - sent[k]);
    if (m < messages.length) {
      toPage.push(messages[m][0] - sent[k]);
      inPage.push(seen[j][0] - messages[m][0]);
    }
  }
  const q = (xs, p) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))];
  };
  const f = (x) => x.toFixed(0);
  const wall = (seen[seen.length - 1][0] - start) / 1000;
  console.log(`${total} cases, ${rate > 0 ? rate + ' cases/s, sent every ' + batchMs + ' ms' : 'sent back to back'} in requests of <= ${perRequest}: ` +
    `${wall.toFixed(1)} s to the last case shown`);
  console.log(`case end -> shown: median ${f(q(delays, 0.5))} ms, p90 ${f(q(delays, 0.9))} ms, p99 ${f(q(delays, 0.99))} ms, max ${f(Math.max(...delays))} ms`);
  console.log(`request sent -> shown: median ${f(q(fromSend, 0.5))} ms, p99 ${f(q(fromSend, 0.99))} ms, max ${f(Math.max(...fromSend))} ms`);
  console.log(`  request sent -> answered (stored): median ${f(q(inServer, 0.5))} ms, p99 ${f(q(inServer, 0.99))} ms; ` +
    `sent -> WebSocket message in the page: median ${f(q(toPage, 0.5))} ms, p99 ${f(q(toPage, 0.99))} ms; ` +
    `message -> shown: median ${f(q(inPage, 0.5))} ms, p99 ${f(q(inPage, 0.99))} ms, max ${f(Math.max(...inPage))} ms`);
  console.log(`first 1,000 cases median ${f(q(delays.slice(0, 1000), 0.5))} ms, last 1,000 median ${f(q(delays.slice(-1000), 0.5))} ms`);
  console.log(`page: ${stats.events} events in ${stats.batches} WebSocket messages, ${stats.draws} draws, ${seen.length} count changes`);
} finally {
  await browser.close();
  serve.kill('SIGTERM');
  await new Promise((r) => serve.on('exit', r));
  rmSync(dir, {recursive: true, force: true});
}
