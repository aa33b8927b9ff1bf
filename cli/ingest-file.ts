// `cairn ingest <file> --source <name>`: bulk-loads a log file, one artifact
// per line, through the API's POST /v1/artifacts (the same path sensors use),
// with a progress bar and a final accepted/rejected count. It waits out 429s
// as Retry-After says and retries network failures with backoff.
import fs from 'node:fs';
import readline from 'node:readline';
import { backoffDelay, sleep } from '../lib/backoff.js';
import { MAX_ARTIFACTS_PER_REQUEST } from '../api/limits.js';
import { unreachable } from './api-target.js';
import { progressBar } from './progress-bar.js';

export interface IngestOptions {
  file: string;
  source: string;
  /** Base URL of a running cairn, e.g. http://127.0.0.1:8080 */
  url: string;
  token: string;
  /** Lines per request. */
  batchSize: number;
  /** Show a progress bar (on a terminal) or periodic progress lines. */
  progress: boolean;
}

export interface IngestSummary {
  lines: number;
  accepted: number;
  rejected: number;
  /** The first few rejections, with their line numbers (1-based). */
  rejections: { line: number; reason: string }[];
  seconds: number;
}

const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const MAX_NETWORK_ATTEMPTS = 8;

interface PostResult {
  accepted: number;
  rejected: number;
  rejections: { index: number; reason: string }[];
}

async function postBatch(options: IngestOptions, lines: string[]): Promise<PostResult> {
  const body = JSON.stringify({ artifacts: lines.map((raw) => ({ source: options.source, raw })) });
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(new URL('/api/v1/artifacts', options.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body,
      });
    } catch (err) {
      if (attempt >= MAX_NETWORK_ATTEMPTS) throw unreachable(options.url, err);
      await sleep(backoffDelay(attempt));
      continue;
    }
    const payload = (await res.json().catch(() => null)) as { message?: string; data?: PostResult; error?: { details?: unknown } } | null;
    if (res.status === 202 && payload?.data) return payload.data;
    if (res.status === 429 || res.status === 503) {
      await sleep(Number(res.headers.get('retry-after') ?? 5) * 1000);
      continue;
    }
    if (res.status === 400 && Array.isArray(payload?.error?.details)) {
      // Every line of the batch was rejected; the details say why.
      const rejections = payload.error.details as { index: number; reason: string }[];
      return { accepted: 0, rejected: rejections.length, rejections };
    }
    throw new Error(`POST /api/v1/artifacts answered ${res.status}: ${payload?.message ?? 'no message'}`);
  }
}

export async function ingestFile(options: IngestOptions): Promise<IngestSummary> {
  const started = Date.now();
  const totalBytes = fs.statSync(options.file).size;
  const summary: IngestSummary = { lines: 0, accepted: 0, rejected: 0, rejections: [], seconds: 0 };
  const bar = options.progress
    ? progressBar('{bar} {percentage}% | {lines} lines | {accepted} accepted, {rejected} rejected | {rate} lines/s | ETA {eta_formatted}')
    : null;
  bar?.start(totalBytes, 0, { lines: 0, accepted: 0, rejected: 0, rate: 0 });

  let bytesRead = 0;
  let batch: string[] = [];
  /** Line number (1-based) of each line in `batch`, to report rejections by line. */
  let batchLines: number[] = [];
  let batchBytes = 0;
  let lineNumber = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const result = await postBatch(options, batch);
    summary.accepted += result.accepted;
    summary.rejected += result.rejected;
    for (const r of result.rejections) {
      if (summary.rejections.length < 10) summary.rejections.push({ line: batchLines[r.index] ?? 0, reason: r.reason });
    }
    batch = [];
    batchLines = [];
    batchBytes = 0;
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    bar?.update(bytesRead, { lines: summary.lines, accepted: summary.accepted, rejected: summary.rejected, rate: Math.round(summary.lines / seconds) });
  };
  const input = readline.createInterface({ input: fs.createReadStream(options.file, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of input) {
      lineNumber++;
      bytesRead += Buffer.byteLength(line, 'utf8') + 1;
      if (line.trim() === '') continue; // blank lines are not artifacts
      batch.push(line);
      batchLines.push(lineNumber);
      batchBytes += line.length;
      summary.lines++;
      if (batch.length >= Math.min(options.batchSize, MAX_ARTIFACTS_PER_REQUEST) || batchBytes >= MAX_BATCH_BYTES) await flush();
    }
    await flush();
    bar?.update(totalBytes);
  } finally {
    // The bar redraws on a timer: stopped on failure too, or it keeps the process alive.
    bar?.stop();
    input.close();
  }
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
