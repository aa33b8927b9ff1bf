// What a destination receives for one artifact: a JSON object (HTTP lines,
// Kafka values) or an RFC 5424 syslog message framed by octet counting
// (RFC 6587 section 3.4.1). docs/exporters.md shows both.
import os from 'node:os';
import type { Artifact } from '../../clickhouse/tables/artifacts.js';

/** One artifact as JSON (version 1 of the payload; fields are only ever added). */
export interface ExportedArtifact {
  id: string;
  org_id: string;
  source: string;
  /** When the artifact happened (the sensor's time, else when cairn received it), ISO 8601 UTC. */
  timestamp: string;
  /** When cairn received it. */
  received_at: string;
  raw: string;
  metadata: Record<string, unknown>;
}

export function exportedArtifact(artifact: Artifact): ExportedArtifact {
  return {
    id: artifact.id,
    org_id: artifact.org_id,
    source: artifact.source,
    timestamp: artifact.timestamp,
    received_at: artifact.created_at,
    raw: artifact.raw,
    metadata: artifact.metadata,
  };
}

/** local0 (16) * 8 + informational (6): cairn forwards logs, it does not rate them. */
const PRIORITY = 134;
/** The structured-data id: "cairn" under 32473, the private enterprise number RFC 5612 reserves for documentation (cairn has none of its own). */
export const SD_ID = 'cairn@32473';

/** An RFC 5424 header field: printable US-ASCII without spaces, at most `max` characters, "-" when empty. */
function headerField(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return printable === '' ? '-' : printable;
}

const HOSTNAME = headerField(os.hostname(), 255);

/** An SD-PARAM value: ", \ and ] escaped with a backslash (RFC 5424 section 6.3.3). */
function paramValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

/** `<134>1 TIMESTAMP HOSTNAME cairn - artifact [cairn@32473 artifact_id="..." source="..."] RAW` */
export function syslogMessage(artifact: Artifact, hostname = HOSTNAME): string {
  const sd = `[${SD_ID} artifact_id="${paramValue(artifact.id)}" source="${paramValue(artifact.source)}"]`;
  return `<${PRIORITY}>1 ${artifact.timestamp} ${hostname} cairn - artifact ${sd} ${artifact.raw}`;
}

/** Octet-counting framing: the message's length in bytes, a space, the message. */
export function octetFrame(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
