// Starts `rdmaconf serve` on an ephemeral loopback port with a database in
// `dir`, for the browser test and the streaming benchmark: resolves with
// the child process and the address it printed.
import {spawn} from 'node:child_process';
import {join} from 'node:path';

export async function startServe(exe, token, dir, timeoutMs = 20000) {
  const serve = spawn(exe, ['serve', '--listen', '127.0.0.1:0', '--token', token, '--db', join(dir, 'db.sqlite')],
    {stdio: ['ignore', 'pipe', 'inherit']});
  const base = await new Promise((resolve, reject) => {
    let out = '';
    serve.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) resolve(m[1]);
    });
    serve.on('exit', (code) => reject(new Error('rdmaconf serve exited with ' + code)));
    setTimeout(() => reject(new Error('rdmaconf serve did not start')), timeoutMs);
  });
  return {serve, base};
}
