// The syslog listeners with real senders: util-linux `logger` over UDP and
// TCP (octet-counted and LF-framed, RFC 3164 and 5424) into `cairn start`,
// and hostile input on raw sockets: the listener stays up and its counters
// say what happened.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RAW_BYTES } from '../topics/artifacts.js';
import { TRUNCATION_MARKER } from '../ingest/syslog/message.js';
import { CONNECTIONS_PER_SENDER } from '../ingest/syslog/listeners.js';
import { eventually } from './helpers/buses.js';
import { startCairn, type CairnProcess } from './helpers/cairn-process.js';
import { startRsyslog, writeLines } from './helpers/rsyslog.js';
import { freePort } from './services/process.js';

type SyslogStats = { messages: Record<string, number>; refused: Record<string, number>; udp_socket_drops: number };

let cairn: CairnProcess;
let udpPort: number;
let tcpPort: number;

async function syslogStats(): Promise<SyslogStats> {
  const res = await cairn.get<{ ingest: { syslog: SyslogStats } }>('/api/v1/appliance/stats');
  expect(res.status).toBe(200);
  return res.body.data.ingest.syslog;
}

function logger(args: string[], message: string): void {
  execFileSync('logger', [...args, '--server', '127.0.0.1', message]);
}

/** Connects from a given loopback address (127.0.0.0/8 is all ours), so tests can play several senders. */
function connect(port: number, localAddress = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

async function send(port: number, data: Buffer | string, localAddress?: string): Promise<void> {
  const socket = await connect(port, localAddress);
  await new Promise<void>((resolve) => socket.end(data, resolve));
}

beforeAll(async () => {
  [udpPort, tcpPort] = [await freePort(), await freePort()];
  cairn = await startCairn({
    CAIRN_SYSLOG_UDP_PORT: String(udpPort),
    CAIRN_SYSLOG_TCP_PORT: String(tcpPort),
    // 127.0.0.9 plays a sender outside the allow list.
    CAIRN_SYSLOG_ALLOW: '127.0.0.1/32,127.0.0.2/32,::1/128',
    CAIRN_SYSLOG_SOURCES: '127.0.0.2/32=firewall,sshd=auth',
  });
}, 120_000);

afterAll(async () => {
  await cairn?.stop();
});

describe('syslog from logger', () => {
  it('takes RFC 5424 and RFC 3164 over UDP and TCP, octet-counted and LF-framed, as searchable artifacts', async () => {
    const run = `r${Date.now()}`;
    logger(['--udp', '--port', String(udpPort), '--rfc5424', '-t', 'sshd'], `Failed password for root from 203.0.113.7 port 52211 ssh2 ${run}-udp5424`);
    logger(['--udp', '--port', String(udpPort), '--rfc3164', '-t', 'cron'], `${run}-udp3164 job started`);
    logger(['--tcp', '--port', String(tcpPort), '--rfc5424', '--octet-count', '-t', 'sshd'], `Accepted password for alice from 198.51.100.4 port 40000 ssh2 ${run}-tcp5424`);
    logger(['--tcp', '--port', String(tcpPort), '--rfc3164', '-t', 'app'], `${run}-tcp3164 plain line`);
    const found = await eventually(async () => {
      const page = await cairn.search(run);
      expect(page.total).toBe(4);
      return page.artifacts;
    }, 30_000, 200);
    const byMarker = (marker: string) => found.find((a) => a.raw.includes(marker))!;

    const udp5424 = byMarker(`${run}-udp5424`);
    expect(udp5424.raw).toMatch(/^<\d+>1 \d{4}-\d\d-\d\dT/);
    expect(udp5424.source).toBe('auth');
    expect(udp5424.metadata).toEqual({ 'syslog.sender': '127.0.0.1', 'syslog.listener': `udp/${udpPort}` });
    // The header's time, to the millisecond: the RFC 5424 timestamp logger wrote.
    const written = /^<\d+>1 (\S+)/.exec(udp5424.raw)![1]!;
    expect(udp5424.timestamp).toBe(new Date(written).toISOString().replace(/\.\d{3}Z$/, `.${written.slice(20, 23)}Z`));

    const udp3164 = byMarker(`${run}-udp3164`);
    expect(udp3164.raw).toMatch(/^<\d+>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ cron/);
    expect(udp3164.source).toBe('syslog');
    // RFC 3164 times are whole seconds; within a minute of now.
    expect(udp3164.timestamp).toMatch(/:\d\d\.000Z$/);
    expect(Math.abs(Date.parse(udp3164.timestamp) - Date.now())).toBeLessThan(60_000);

    const tcp5424 = byMarker(`${run}-tcp5424`);
    expect(tcp5424.source).toBe('auth');
    expect(tcp5424.metadata['syslog.listener']).toBe(`tcp/${tcpPort}`);
    expect(byMarker(`${run}-tcp3164`).source).toBe('syslog');

    // Parsed like any auth artifact: the fields are searchable.
    await eventually(async () => {
      expect((await cairn.search(`${run} AND source.ip:203.0.113.7 AND process.name:sshd`)).total).toBe(1);
      expect((await cairn.search(`${run} AND source.ip:198.51.100.4 AND host.hostname:*`)).total).toBe(1);
    }, 30_000, 200);
  }, 60_000);

  it('takes a file rsyslog forwards over plain TCP', async () => {
    const run = `rs${Date.now()}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-rsyslog-tcp-'));
    const file = writeLines(dir, 'auth.log', Array.from({ length: 300 }, (_, i) => `Failed password for invalid user u${i} from 198.18.${Math.floor(i / 250)}.${i % 250} port ${1000 + i} ssh2 ${run}`));
    const rsyslog = startRsyslog(`
module(load="imfile")
input(type="imfile" File="${file}" Tag="sshd:" Facility="auth" ruleset="forward")
ruleset(name="forward") {
  action(type="omfwd" target="127.0.0.1" port="${tcpPort}" protocol="tcp" action.resumeRetryCount="-1" action.resumeInterval="1")
}
`);
    try {
      await eventually(async () => expect((await cairn.search(run, 1)).total).toBe(300), 60_000, 250);
      const [artifact] = (await cairn.search(`${run} AND source.ip:198.18.0.7`, 5)).artifacts;
      // rsyslog's default forwarding format is RFC 3164 with its own host name; sshd names the source.
      expect(artifact!.raw).toMatch(new RegExp(`^<37>[A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\S+ sshd: Failed password for invalid user u7 from 198.18.0.7 port 1007 ssh2 ${run}$`));
      expect(artifact!.source).toBe('auth');
    } finally {
      await rsyslog.stop();
    }
  }, 90_000);

  it('names the source by sender CIDR', async () => {
    const run = `c${Date.now()}`;
    await send(tcpPort, `<134>Nov 27 10:00:00 fw01 filterlog: ${run} block in\n`, '127.0.0.2');
    await eventually(async () => {
      const page = await cairn.search(run);
      expect(page.artifacts.map((a) => [a.source, a.metadata['syslog.sender']])).toEqual([['firewall', '127.0.0.2']]);
    }, 30_000, 200);
  }, 40_000);
});

describe('hostile syslog input', () => {
  it('truncates oversize frames and never-ending lines with a marker, and counts them', async () => {
    const before = await syslogStats();
    const run = `t${Date.now()}`;
    const big = `<13>${run}-counted ${'x'.repeat(400_000)}`;
    // One octet-counted frame over the limit, a line that does not end for 1 MB, then a normal line on the same connection.
    const socket = await connect(tcpPort);
    socket.write(`${Buffer.byteLength(big)} ${big}`);
    socket.write(`<13>${run}-endless `);
    for (let i = 0; i < 16; i++) socket.write('y'.repeat(64 * 1024));
    socket.write(`\n<13>${run}-after normal line\n`);
    await new Promise<void>((resolve) => socket.end(resolve));
    const page = await eventually(async () => {
      const found = await cairn.search(run, 10);
      expect(found.total).toBe(3);
      return found;
    }, 30_000, 200);
    for (const marker of ['counted', 'endless']) {
      const artifact = page.artifacts.find((a) => a.raw.includes(`${run}-${marker}`))!;
      expect(artifact.raw.endsWith(TRUNCATION_MARKER)).toBe(true);
      expect(Buffer.byteLength(artifact.raw)).toBeLessThanOrEqual(MAX_RAW_BYTES);
    }
    expect(page.artifacts.find((a) => a.raw.includes(`${run}-after`))!.raw).toBe(`<13>${run}-after normal line`);
    expect((await syslogStats()).messages.truncated).toBe((before.messages.truncated ?? 0) + 2);
  }, 60_000);

  it('reads a count that is not one as a line, keeps invalid UTF-8 as Latin-1, sends binary to the DLQ, counts a message cut by a closed connection', async () => {
    const before = await syslogStats();
    const run = `b${Date.now()}`;
    await send(tcpPort, `12345678901234 ${run}-digits not a count\n`);
    await send(tcpPort, Buffer.concat([Buffer.from(`<13>${run}-latin1 caf`), Buffer.from([0xe9, 0x0a])]));
    await send(tcpPort, Buffer.concat([Buffer.from(`<13>${run}-binary `), Buffer.from([0, 1, 2, 3, 0, 0xff, 0xfe, 5, 6, 7, 0x0a])]));
    // Says 500 bytes, sends 20 and hangs up.
    await send(tcpPort, `500 <13>${run}-short`);
    // The listener is still up: a normal message after all that arrives.
    await send(tcpPort, `<13>${run}-still-up\n`);
    const page = await eventually(async () => {
      const found = await cairn.search(run, 10);
      expect(found.total).toBe(3);
      return found;
    }, 30_000, 200);
    expect(page.artifacts.find((a) => a.raw.includes('-digits'))!.raw).toBe(`12345678901234 ${run}-digits not a count`);
    const latin1 = page.artifacts.find((a) => a.raw.includes('-latin1'))!;
    expect(latin1.raw).toBe(`<13>${run}-latin1 café`);
    expect(latin1.metadata['syslog.encoding']).toBe('latin1');
    const after = await eventually(async () => {
      const stats = await syslogStats();
      expect(stats.messages.dead_lettered).toBe((before.messages.dead_lettered ?? 0) + 1);
      expect(stats.messages.dropped_connection_lost).toBe((before.messages.dropped_connection_lost ?? 0) + 1);
      return stats;
    }, 10_000, 100);
    expect(after.messages.accepted).toBeGreaterThanOrEqual((before.messages.accepted ?? 0) + 3);
  }, 60_000);

  it('refuses senders outside CAIRN_SYSLOG_ALLOW, over TCP and UDP, and counts them', async () => {
    const before = await syslogStats();
    const run = `a${Date.now()}`;
    // The connection is accepted by the kernel and closed by cairn at once.
    const socket = await connect(tcpPort, '127.0.0.9');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(`<13>${run}-denied-tcp\n`);
    await closed;
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.9', () => resolve()));
    await new Promise<void>((resolve, reject) => udp.send(`<13>${run}-denied-udp`, udpPort, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
    udp.close();
    await eventually(async () => expect((await syslogStats()).refused.not_allowed).toBe((before.refused.not_allowed ?? 0) + 2), 10_000, 100);
    await send(tcpPort, `<13>${run}-allowed\n`);
    await eventually(async () => expect((await cairn.search(run)).artifacts.map((a) => a.raw)).toEqual([`<13>${run}-allowed`]), 30_000, 200);
  }, 40_000);

  it('refuses a sender holding more connections than its share, and serves others meanwhile', async () => {
    const before = await syslogStats();
    const run = `h${Date.now()}`;
    // A slow sender: each connection sends half a message and holds on.
    const held: net.Socket[] = [];
    for (let i = 0; i < CONNECTIONS_PER_SENDER + 5; i++) {
      const socket = await connect(tcpPort, '127.0.0.2');
      socket.on('error', () => {});
      socket.write(`<13>${run}-slow ${i}`);
      held.push(socket);
    }
    await eventually(async () => expect((await syslogStats()).refused.too_many_connections).toBe((before.refused.too_many_connections ?? 0) + 5), 10_000, 100);
    await send(tcpPort, `<13>${run}-other sender\n`);
    await eventually(async () => expect((await cairn.search(run)).total).toBe(1), 30_000, 200);
    for (const socket of held) socket.destroy();
  }, 60_000);
});
