// OTLP/HTTP logs benchmark: log records/s that `cairn start` (the embedded
// default) accepts on its OTLP port (CAIRN_OTLP_PORT, POST /v1/logs) as fast
// as it takes them, and until all of them are searchable end to end; per
// encoding (protobuf, JSON), each against a fresh cairn. The requests are
// ExportLogsServiceRequests made beforehand from the sample logs (each
// record's cairn.source its sample's folder, so the parser reads it as it
// would that log), so the sender's own encoding is not measured.
//
//   node --import tsx bench/otlp.ts [--encoding protobuf|json|both] [--seconds 30] [--batch 2000] [--senders 2] [--gzip]
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { freePort } from '../test/services/process.js';
import { ExportLogsServiceRequest } from '../ingest/otlp/proto.js';
import { benchToken, cpuGrowth, loadSamples, machineLine, startCairn, type SampleLine } from './lib.js';

const { values: args } = parseArgs({
  options: {
    encoding: { type: 'string', default: 'both' },
    seconds: { type: 'string', default: '30' },
    batch: { type: 'string', default: '2000' },
    senders: { type: 'string', default: '2' },
    gzip: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(args.seconds);
const BATCH = Number(args.batch);
const SENDERS = Number(args.senders);
/** Distinct request bodies made beforehand, sent in turn. */
const BODIES = 16;

type Encoding = 'protobuf' | 'json';

/** One ExportLogsServiceRequest of BATCH records from the samples, starting at `from`, in OTLP's JSON shape. */
function logsRequest(samples: SampleLine[], from: number): unknown {
  const now = BigInt(Date.now()) * 1_000_000n;
  const logRecords = Array.from({ length: BATCH }, (_, i) => {
    const line = samples[(from + i) % samples.length]!;
    return {
      timeUnixNano: String(now + BigInt(i)),
      observedTimeUnixNano: String(now + BigInt(i)),
      severityNumber: 9,
      severityText: 'INFO',
      body: { stringValue: line.raw },
      attributes: [{ key: 'cairn.source', value: { stringValue: line.source } }],
    };
  });
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }, { key: 'host.name', value: { stringValue: 'bench-host' } }] },
        scopeLogs: [{ scope: { name: 'bench/otlp.ts' }, logRecords }],
      },
    ],
  };
}

function encode(request: unknown, encoding: Encoding): Buffer {
  const bytes = encoding === 'json' ? Buffer.from(JSON.stringify(request)) : Buffer.from(ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(request as Record<string, unknown>)).finish());
  return args.gzip ? gzipSync(bytes) : bytes;
}

async function total(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/artifacts?limit=1&exact_total=true`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: { total: number } }).data.total;
}

async function run(encoding: Encoding, samples: SampleLine[]) {
  const bodies = Array.from({ length: BODIES }, (_, i) => encode(logsRequest(samples, i * BATCH), encoding));
  const otlpPort = await freePort();
  const cairn = await startCairn({ CAIRN_OTLP_PORT: String(otlpPort) });
  const token = benchToken();
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf',
    ...(args.gzip ? { 'content-encoding': 'gzip' } : {}),
  };
  try {
    let sent = 0;
    let refused = 0;
    let dropped = 0;
    let next = 0;
    const cpuBefore = cairn.cpuByThread();
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    const sender = async () => {
      while (Date.now() < deadline) {
        let res: Response;
        try {
          res = await fetch(`http://127.0.0.1:${otlpPort}/v1/logs`, { method: 'POST', headers, body: new Uint8Array(bodies[next++ % BODIES]!) });
          await res.arrayBuffer();
        } catch (err) {
          // A connection that broke (a kept-alive socket the server closed as it was reused): an exporter sends again.
          if (cairn.child.exitCode !== null) throw new Error('cairn exited', { cause: err });
          dropped++;
          continue;
        }
        if (res.status === 429 || res.status === 503) {
          // As an OTLP exporter does: wait and send the same batch again.
          refused++;
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        if (res.status !== 200) throw new Error(`OTLP answered ${res.status}`);
        sent += BATCH;
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const sendSeconds = (Date.now() - started) / 1000;
    while ((await total(cairn.url, token)) < sent) {
      if (Date.now() > deadline + 600_000) throw new Error('the records never all became searchable');
      await new Promise((r) => setTimeout(r, 100));
    }
    const endToEndSeconds = (Date.now() - started) / 1000;
    return { sent, sendSeconds, endToEndSeconds, refused, dropped, bodyBytes: bodies[0]!.length, peakRssMiB: cairn.peakRssMiB(), cpu: cpuGrowth(cpuBefore, cairn.cpuByThread()) };
  } finally {
    await cairn.stop();
  }
}

const { lines: samples, dir } = loadSamples();
console.log(`OTLP logs benchmark: ${SECONDS} s per encoding, as fast as accepted, ${SENDERS} senders x ${BATCH} records per request${args.gzip ? ', gzip' : ''}, ${samples.length} sample lines from ${dir}`);
console.log(machineLine());
const encodings: Encoding[] = args.encoding === 'both' ? ['protobuf', 'json'] : [args.encoding as Encoding];
for (const encoding of encodings) {
  const r = await run(encoding, samples);
  console.log(
    [
      `\n[${encoding}] ${r.sent} log records (${Math.round(r.bodyBytes / 1024)} KiB a request): accepted ${Math.round(r.sent / r.sendSeconds)}/s over ${r.sendSeconds.toFixed(1)} s,`,
      `  searchable ${Math.round(r.sent / r.endToEndSeconds)}/s end to end (${r.endToEndSeconds.toFixed(1)} s until the last one was searchable)`,
      `  429/503 answers: ${r.refused}; connections broken before an answer: ${r.dropped}; peak RSS of the cairn process: ${Math.round(r.peakRssMiB)} MiB`,
      `  cairn CPU until then, by thread: ${r.cpu.join(', ')}`,
    ].join('\n'),
  );
}
