// The metrics endpoint under ingest load: `cairn start` takes artifacts as
// fast as two senders post them while /api/v1/metrics is scraped every
// second (scrape latency p50/p99, the ingest counter against what was
// accepted), and promtool lints the last scrape.
//
//   node --import tsx bench/metrics.ts [--seconds 20]
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { benchToken, loadSamples, machineLine, percentile, startCairn } from './lib.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' } } });
const seconds = Number(values.seconds);
const token = benchToken();
const { lines } = loadSamples();
const cairn = await startCairn();

try {
  console.log(machineLine());
  const deadline = Date.now() + seconds * 1000;
  let accepted = 0;
  const send = async (offset: number) => {
    for (let i = offset; Date.now() < deadline; i += 2000) {
      const artifacts = Array.from({ length: 1000 }, (_, k) => {
        const line = lines[(i + k) % lines.length]!;
        return { source: line.source, raw: line.raw };
      });
      const res = await fetch(`${cairn.url}/api/v1/artifacts`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ artifacts }) });
      if (res.status === 202) accepted += ((await res.json()) as { data: { accepted: number } }).data.accepted;
      else await res.arrayBuffer();
    }
  };
  const scrapes: number[] = [];
  let last = '';
  const scrape = async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      const res = await fetch(`${cairn.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } });
      last = await res.text();
      scrapes.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  await Promise.all([send(0), send(1000), scrape()]);
  const counted = Number(/^svc_ingest_artifacts_total\{outcome="accepted"[^}]*\} (\d+)/m.exec(last)?.[1] ?? 0);
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: last, encoding: 'utf8' });
  console.log(`ingest: ${accepted} artifacts accepted in ${seconds} s (${Math.round(accepted / seconds)}/s); svc_ingest_artifacts_total at the last scrape: ${counted}`);
  console.log(`scrapes: ${scrapes.length}, p50 ${percentile(scrapes, 50).toFixed(1)} ms, p99 ${percentile(scrapes, 99).toFixed(1)} ms, ${last.split('\n').length} lines`);
  console.log(`promtool check metrics: exit ${lint.status}${lint.stdout || lint.stderr ? `\n${lint.stdout}${lint.stderr}` : ', nothing reported'}`);
} finally {
  await cairn.stop();
}
