// The knowledge graph on real logs: ingests the sshd logs and the Suricata
// DNS sample from the samples directory into an embedded cairn, then checks
// the graph against what the files say, counted independently of the parsers,
// and that replaying every artifact changes no count.
//
//   npm run graph-check -- [samples dir, default $CAIRN_SAMPLES_DIR or ../shared/data]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../api/app.js';
import { mintToken } from '../api/auth.js';
import { PERMISSIONS } from '../identity/permissions.js';
import { openRuntime, startStages } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { createLogger } from '../lib/logger.js';
import { canonicalIp } from '../pipeline/parser/ip.js';

const samplesDir = path.resolve(process.argv[2] ?? process.env.CAIRN_SAMPLES_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared', 'data'));
const FILES: [string, string][] = [
  ['auth', 'auth/secure-rhel7.log'],
  ['auth', 'auth/openssh-loghub.log'],
  ['suricata', 'suricata/eve-dns-4.1.4.log'],
];
const SECRET = 'graph-check-secret-graph-check-secret-graph';

function readLines(file: string): string[] {
  return fs.readFileSync(path.join(samplesDir, file), 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim());
}

/** Address -> accounts it tried, straight from the sshd lines. */
function attempts(lines: string[]): Map<string, Set<string>> {
  const tried = new Map<string, Set<string>>();
  for (const line of lines) {
    const m = /(?:Failed|Accepted) \S+ for (?:invalid user )?(\S+) from (\S+) port/.exec(line) ?? /Invalid user (\S+) from (\S+)/.exec(line);
    if (m) tried.set(m[2]!, (tried.get(m[2]!) ?? new Set()).add(m[1]!));
  }
  return tried;
}

/** "name -> address" for every A/AAAA answer in the EVE DNS lines. */
function resolutions(lines: string[]): Set<string> {
  const pairs = new Set<string>();
  for (const line of lines) {
    const dns = (JSON.parse(line) as { dns?: { type?: string; rrtype?: string; rrname?: string; rdata?: string; answers?: { rrname: string; rrtype: string; rdata: string }[] } }).dns;
    if (!dns) continue;
    // IPv6 answers are written out in full in the log; nodes hold the canonical (compressed) form.
    const pair = (name: string, address: string) => pairs.add(`${name.toLowerCase()} -> ${canonicalIp(address) ?? address}`);
    if (dns.type === 'answer' && (dns.rrtype === 'A' || dns.rrtype === 'AAAA') && dns.rrname && dns.rdata) pair(dns.rrname, dns.rdata);
    for (const a of dns.answers ?? []) if (a.rrtype === 'A' || a.rrtype === 'AAAA') pair(a.rrname, a.rdata);
  }
  return pairs;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-graph-check-'));
const { config } = await provideEmbeddedSecrets(loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: SECRET, CAIRN_LOG_LEVEL: 'warn' }));
const runtime = await openRuntime(config, createLogger('warn'));
const stages = await startStages(runtime, ['store', 'parser', 'enricher']);
const server = http.createServer(createApp(runtime).callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
const token = mintToken(SECRET, { subject: 'graph-check', orgId: 'default', permissions: [...PERMISSIONS], ttlSeconds: 3600 });

async function call<T>(method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

async function drain(): Promise<void> {
  for (;;) {
    const lags = await Promise.all([runtime.bus.lag('store', 'artifacts.raw'), runtime.bus.lag('parser', 'artifacts.raw'), runtime.bus.lag('enricher', 'artifacts.parsed')]);
    if (lags.every((l) => l === 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface NodeOut {
  id: string;
  type: string;
  value: string;
  edge_count: number;
  edges?: { id: string; source_id: string; target_id: string; type: string }[];
}

async function snapshot(): Promise<{ nodes: number; edges: number; artifacts: number }> {
  const nodes = await call<{ total: number }>('GET', '/nodes?limit=1');
  let artifacts = 0;
  let edges = 0;
  for (let offset = 0; ; offset += 1000) {
    const page = await call<{ edges: { artifact_count: number }[]; total: number }>('GET', `/edges?limit=1000&offset=${offset}`);
    edges = page.total;
    artifacts += page.edges.reduce((n, e) => n + e.artifact_count, 0);
    if (offset + 1000 >= page.total) break;
  }
  return { nodes: nodes.total, edges, artifacts };
}

try {
  let sent = 0;
  for (const [source, file] of FILES) {
    const lines = readLines(file);
    for (let i = 0; i < lines.length; i += 1000) {
      await call('POST', '/artifacts', { artifacts: lines.slice(i, i + 1000).map((raw) => ({ source, raw })) });
    }
    sent += lines.length;
  }
  await drain();
  console.log(`graph check on ${samplesDir}: ${sent} artifacts from ${FILES.map(([, f]) => f).join(', ')}\n`);

  const sshLines = [...readLines('auth/secure-rhel7.log'), ...readLines('auth/openssh-loghub.log')];
  const tried = attempts(sshLines);
  let complete = 0;
  let countsRight = 0;
  for (const [ip, users] of tried) {
    const found = (await call<{ nodes: NodeOut[] }>('GET', `/nodes?type=IP&value=${encodeURIComponent(ip)}`)).nodes.find((n) => n.value === ip);
    if (!found) continue;
    const node = await call<NodeOut>('GET', `/nodes/${found.id}`);
    if (node.edges!.length === node.edge_count) countsRight++;
    const targets = await Promise.all(node.edges!.filter((e) => e.source_id === node.id && e.type === 'related_to').map((e) => call<NodeOut>('GET', `/nodes/${e.target_id}`)));
    const linked = new Set(targets.filter((t) => t.type === 'user').map((t) => t.value));
    if ([...users].every((u) => linked.has(u))) complete++;
  }
  console.log(`sshd: ${tried.size} addresses tried accounts (counted from the files)`);
  console.log(`  ${complete}/${tried.size} are IP nodes with related_to edges to every account they tried`);
  console.log(`  ${countsRight}/${tried.size} list exactly edge_count edges`);

  const expected = resolutions(readLines('suricata/eve-dns-4.1.4.log'));
  const got = new Set<string>();
  for (let offset = 0; ; offset += 1000) {
    const page = await call<{ edges: { id: string }[]; total: number }>('GET', `/edges?type=resolved_to&limit=1000&offset=${offset}`);
    for (const e of page.edges) {
      const edge = await call<{ source: { value: string }; target: { value: string } }>('GET', `/edges/${e.id}`);
      got.add(`${edge.source.value} -> ${edge.target.value}`);
    }
    if (offset + 1000 >= page.total) break;
  }
  const missing = [...expected].filter((p) => !got.has(p));
  console.log(`suricata dns: ${expected.size} name -> address answers in the file; ${expected.size - missing.length} are resolved_to edges${missing.length ? `; missing: ${missing.join(', ')}` : ''}`);

  const before = await snapshot();
  const stored = await call<{ artifacts: { id: string; source: string; raw: string; timestamp: string }[]; total: number }>('GET', '/artifacts?limit=1000');
  let replayed = 0;
  for (let offset = 0; offset < stored.total; offset += 1000) {
    const page = await call<{ artifacts: { id: string; source: string; raw: string; timestamp: string }[] }>('GET', `/artifacts?limit=1000&offset=${offset}`);
    await runtime.bus.send('artifacts.raw', page.artifacts.map((a) => ({ key: a.id, value: Buffer.from(JSON.stringify({ ...a, org_id: 'default' })) })));
    replayed += page.artifacts.length;
  }
  await drain();
  const after = await snapshot();
  console.log(`replay of ${replayed} artifacts: nodes ${before.nodes} -> ${after.nodes}, edges ${before.edges} -> ${after.edges}, sum of artifact_count ${before.artifacts} -> ${after.artifacts}`);
  const ok = complete === tried.size && countsRight === tried.size && missing.length === 0 && JSON.stringify(before) === JSON.stringify(after);
  console.log(ok ? '\nall checks hold' : '\nSOME CHECKS FAILED');
  process.exitCode = ok ? 0 : 1;
} finally {
  server.close();
  await Promise.all(stages.map((s) => s.stop()));
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
