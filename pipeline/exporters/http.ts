// HTTP: each batch POSTed as JSON lines (application/x-ndjson, one artifact
// per line) through the guarded outbound client; any 2xx answer accepts it.
// Large batches go in several requests of at most MAX_BODY_BYTES.
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import type { OutboundClient } from '../../lib/outbound/client.js';
import type { Sender } from './destination.js';
import { exportedArtifact } from './payload.js';
import type { HttpSettings } from './settings.js';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

/** Lines grouped into bodies of at most `maxBytes` (a longer single line goes alone). */
export function bodies(lines: string[], maxBytes: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of lines) {
    if (current !== '' && Buffer.byteLength(current) + Buffer.byteLength(line) + 1 > maxBytes) {
      out.push(current);
      current = '';
    }
    current += `${line}\n`;
  }
  if (current !== '') out.push(current);
  return out;
}

export class HttpSender implements Sender {
  constructor(
    private readonly settings: HttpSettings,
    private readonly client: OutboundClient,
  ) {}

  async send(artifacts: Artifact[]): Promise<void> {
    const { url, token } = this.settings;
    const lines = artifacts.map((a) => JSON.stringify(exportedArtifact(a)));
    for (const body of bodies(lines, MAX_BODY_BYTES)) {
      const response = await this.client.request({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'user-agent': 'cairn-exporter', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body,
        timeoutMs: TIMEOUT_MS,
        maxBytes: 1024 * 1024,
      });
      if (response.status < 200 || response.status >= 300) {
        const excerpt = response.text().slice(0, 200).replace(/\s+/g, ' ').trim();
        throw new Error(`${new URL(response.url).host} answered ${response.status}${excerpt ? `: ${excerpt}` : ''}`);
      }
    }
  }

  async close(): Promise<void> {}
}
