// Syslog ingest benchmark, each phase on a fresh `cairn start` (embedded default):
//   1. TCP: the sample logs as RFC 3164 lines over LF-framed TCP, as fast as cairn reads them,
//      until every one is searchable; and in the same run the same lines through POST /v1/artifacts
//      (batches of 2,000, two senders), until searchable: the figure to compare with.
//   2. UDP: 20,000 messages/s offered for 30 s: how many were received (accepted), dropped
//      (by cairn, counted; by the kernel, counted; never seen), and searchable.
//
//   node --import tsx bench/syslog.ts [--messages 200000] [--connections 2] [--udp-rate 20000] [--udp-seconds 30 (0: no UDP phase)]
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { parseSyslogHeader } from '../pipeline/parser/syslog-header.js';
import { freePort } from '../test/services/process.js';
import { benchToken, loadSamples, machineLine, startCairn, type CairnProcess } from './lib.js';

const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '200000' },
    connections: { type: 'string', default: '2' },
    'udp-rate': { type: 'string', default: '20000' },
    'udp-seconds': { type: 'string', default: '30' },
  },
});
const MESSAGES = Number(args.messages);
const CONNECTIONS = Number(args.connections);
const UDP_RATE = Number(args['udp-rate']);
const UDP_SECONDS = Number(args['udp-seconds']);
const SOURCE = 'syslog';
const token = benchToken();

async function searchable(cairn: CairnProcess): Promise<number> {
  const res = await fetch(`${cairn.url}/api/v1/artifacts?limit=1&exact_total=true&source=${SOURCE}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: { total: number } }).data.total;
}

async function waitSearchable(cairn: CairnProcess, expected: number, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await searchable(cairn)) < expected) {
    if (Date.now() > deadline) throw new Error(`only ${await searchable(cairn)} of ${expected} searchable`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function syslogStats(cairn: CairnProcess): Promise<{ messages: Record<string, number>; udp_socket_drops: number }> {
  const res = await fetch(`${cairn.url}/api/v1/appliance/stats`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: { ingest: { syslog: { messages: Record<string, number>; udp_socket_drops: number } } } }).data.ingest.syslog;
}

/** The listeners open after the stages, which is after /healthz answers: wait for the port. */
async function waitListening(protocol: 'tcp' | 'udp', port: number): Promise<void> {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
  for (let i = 0; i < 1200; i++) {
    const table = fs.readFileSync(`/proc/net/${protocol}`, 'utf8');
    // A bound UDP socket, or a TCP socket in state 0A (LISTEN), on the port.
    if (table.split('\n').some((line) => line.includes(hexPort) && (protocol === 'udp' || / 0A /.test(line)))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${protocol} port ${port}`);
}

/** Sample lines as RFC 3164 messages with a header a syslog daemon would write. */
function syslogLines(count: number): string[] {
  const { lines } = loadSamples();
  const stamp = new Date().toUTCString().slice(8, 11) + ' ' + String(new Date().getUTCDate()).padStart(2, ' ') + ' ' + new Date().toISOString().slice(11, 19);
  return Array.from({ length: count }, (_, i) => {
    const line = lines[i % lines.length]!.raw;
    // Lines that already carry a syslog header are sent as they are; others get one.
    return /^(<\d+>|[A-Z][a-z]{2} [ \d]\d \d\d:)/.test(line) ? line : `<134>${stamp} bench app: ${line}`;
  });
}

async function tcpPhase(lines: string[]): Promise<number> {
  const port = await freePort();
  const cairn = await startCairn({ CAIRN_SYSLOG_TCP_PORT: String(port), CAIRN_DEFAULT_RULES: 'off' });
  try {
    await waitListening('tcp', port);
    const started = performance.now();
    const share = Math.ceil(lines.length / CONNECTIONS);
    await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, c) => {
        const mine = lines.slice(c * share, (c + 1) * share);
        return new Promise<void>((resolve, reject) => {
          const socket = net.connect({ port, host: '127.0.0.1' }, async () => {
            // 64 KiB writes, waiting for 'drain': as fast as cairn reads.
            let chunk = '';
            for (const line of mine) {
              chunk += `${line}\n`;
              if (chunk.length >= 65_536) {
                if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
                chunk = '';
              }
            }
            socket.end(chunk, resolve);
          });
          socket.once('error', reject);
        });
      }),
    );
    const sentSeconds = (performance.now() - started) / 1000;
    await waitSearchable(cairn, lines.length);
    const seconds = (performance.now() - started) / 1000;
    const stats = await syslogStats(cairn);
    console.log(`syslog TCP: ${lines.length} messages over ${CONNECTIONS} connections, sent in ${sentSeconds.toFixed(1)} s, all searchable after ${seconds.toFixed(1)} s: ${Math.round(lines.length / seconds)} messages/s end to end (accepted ${stats.messages.accepted ?? 0}, truncated ${stats.messages.truncated ?? 0}, dead-lettered ${stats.messages.dead_lettered ?? 0}); peak RSS ${Math.round(cairn.peakRssMiB())} MiB`);
    return lines.length / seconds;
  } finally {
    await cairn.stop();
  }
}

async function httpPhase(lines: string[]): Promise<number> {
  const cairn = await startCairn({ CAIRN_DEFAULT_RULES: 'off' });
  try {
    const started = performance.now();
    const BATCH = 2000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        while (next < lines.length) {
          // The rows syslog makes: the header's time, the sender in metadata; so both phases store the same.
          const batch = lines.slice(next, (next += BATCH)).map((raw) => ({
            source: SOURCE,
            raw,
            timestamp: parseSyslogHeader(raw, { source: SOURCE, receivedAt: Date.now() })?.timestamp,
            metadata: { 'syslog.sender': '127.0.0.1', 'syslog.listener': 'tcp/0' },
          }));
          for (;;) {
            const res = await fetch(`${cairn.url}/api/v1/artifacts`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ artifacts: batch }) });
            await res.arrayBuffer();
            if (res.status === 202) break;
            if (res.status !== 429) throw new Error(`ingest answered ${res.status}`);
            await new Promise((r) => setTimeout(r, 1000));
          }
        }
      }),
    );
    await waitSearchable(cairn, lines.length);
    const seconds = (performance.now() - started) / 1000;
    console.log(`HTTP ingest: ${lines.length} artifacts in batches of ${BATCH}, 2 senders, all searchable after ${seconds.toFixed(1)} s: ${Math.round(lines.length / seconds)} artifacts/s end to end; peak RSS ${Math.round(cairn.peakRssMiB())} MiB`);
    return lines.length / seconds;
  } finally {
    await cairn.stop();
  }
}

async function udpPhase(lines: string[]): Promise<void> {
  const port = await freePort();
  const cairn = await startCairn({ CAIRN_SYSLOG_UDP_PORT: String(port), CAIRN_DEFAULT_RULES: 'off' });
  const socket = dgram.createSocket('udp4');
  try {
    await waitListening('udp', port);
    const offered = UDP_RATE * UDP_SECONDS;
    const TICK_MS = 10;
    const perTick = (UDP_RATE * TICK_MS) / 1000;
    const started = performance.now();
    let sent = 0;
    while (sent < offered) {
      // Paced against the clock, so a slow tick is made up in the next.
      const due = Math.min(offered, Math.floor(((performance.now() - started) / TICK_MS + 1) * perTick));
      while (sent < due) {
        socket.send(lines[sent % lines.length]!, port, '127.0.0.1');
        sent++;
      }
      await new Promise((r) => setTimeout(r, TICK_MS));
    }
    const sendSeconds = (performance.now() - started) / 1000;
    // Settled: the searchable count stops moving.
    let last = -1;
    let now = await searchable(cairn);
    while (now !== last) {
      await new Promise((r) => setTimeout(r, 3000));
      [last, now] = [now, await searchable(cairn)];
    }
    const stats = await syslogStats(cairn);
    const received = (stats.messages.accepted ?? 0) + (stats.messages.truncated ?? 0) + (stats.messages.dead_lettered ?? 0);
    const droppedByCairn = Object.entries(stats.messages).filter(([k]) => k.startsWith('dropped_')).reduce((s, [, v]) => s + v, 0);
    console.log(
      `syslog UDP: ${offered} offered at ${UDP_RATE}/s for ${UDP_SECONDS} s (sent in ${sendSeconds.toFixed(1)} s): received ${received}, dropped by cairn ${droppedByCairn} (${JSON.stringify(Object.fromEntries(Object.entries(stats.messages).filter(([k]) => k.startsWith('dropped_'))))}), kernel socket drops ${stats.udp_socket_drops}, never seen ${offered - received - droppedByCairn - stats.udp_socket_drops}, searchable ${now}`,
    );
  } finally {
    socket.close();
    await cairn.stop();
  }
}

console.log(machineLine());
const lines = syslogLines(MESSAGES);
const tcp = await tcpPhase(lines);
const http = await httpPhase(lines);
console.log(`syslog TCP / HTTP ingest, end to end: ${((tcp / http) * 100).toFixed(0)} %`);
if (UDP_SECONDS > 0) await udpPhase(lines);
