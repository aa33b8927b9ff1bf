// Login latency: POST /api/v1/auth/login against `cairn start` at the
// default password KDF cost (scrypt N = 2^15, r = 8: 32 MiB per hash),
// one at a time and several at once, p50/p99 in ms. Also a wrong password,
// which must cost the same (no user enumeration by timing).
//
//   node --import tsx bench/login.ts [--requests 200] [--concurrency 4]
import { parseArgs } from 'node:util';
import { machineLine, percentile, startCairn } from './lib.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '200' }, concurrency: { type: 'string', default: '4' } } });
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const EMAIL = 'bench-admin@example.com';
const PASSWORD = 'bench admin passphrase 1';

const cairn = await startCairn({ CAIRN_ADMIN_EMAIL: EMAIL, CAIRN_ADMIN_PASSWORD: PASSWORD, CAIRN_LOGIN_MAX_FAILURES: '1000', CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' });

async function login(password: string, email = EMAIL): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${cairn.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  await res.arrayBuffer();
  const expected = password === PASSWORD && email === EMAIL ? 200 : 401;
  if (res.status !== expected) throw new Error(`login answered ${res.status}, expected ${expected}`);
  return performance.now() - started;
}

async function run(label: string, parallel: number, attempt: () => Promise<number>): Promise<void> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < requests) times.push(await attempt());
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(1)} ms   p99 ${percentile(times, 99).toFixed(1)} ms   ${(times.length / seconds).toFixed(1)} logins/s`);
}

try {
  console.log(machineLine());
  for (let i = 0; i < 5; i++) await login(PASSWORD); // warm-up
  await run('good password, one at a time', 1, () => login(PASSWORD));
  await run('wrong password, one at a time', 1, () => login('not the password'));
  await run('unknown account, one at a time', 1, () => login(PASSWORD, 'nobody@example.com'));
  await run(`good password, ${concurrency} at once`, concurrency, () => login(PASSWORD));
  console.log(`peak RSS of cairn: ${cairn.peakRssMiB().toFixed(0)} MiB`);
} finally {
  await cairn.stop();
}
