// What a format parser is. A parser turns one raw artifact into a flat map of
// ECS fields (dotted names: "source.ip", "event.category", ...).
//
// Conventions every parser follows:
// - "@timestamp": ISO 8601 in UTC with milliseconds ("2018-07-05T19:01:09.820Z").
// - ports, pids, status codes, byte counts: numbers; IPs: canonical strings (see canonicalIp).
// - event.kind: an ECS value ("event", "alert", "metric" ...); event.category and event.type: arrays of ECS values;
//   event.outcome: "success" | "failure" | "unknown".
// - network.transport lower-case ("tcp", "udp", "icmp").
// - A field that the raw data does not have is left out, never set to "" or null.
import type { FieldValue } from '../../topics/index.js';
import type { DecoderIndex } from './decoders/decode.js';

export type { FieldValue };
export type EventFields = Record<string, FieldValue>;

export interface ParseContext {
  /** The artifact's source, e.g. "auth", "suricata". */
  source: string;
  /** When cairn received the artifact (ms since the epoch): the clock for timestamps without a year. */
  receivedAt: number;
  /** Offset assumed for timestamps without a zone, e.g. "+02:00"; default UTC. */
  timezone?: string;
  /** The organization's own decoders (pipeline/parser/decoders/user.ts), tried before the shipped ones at every step. */
  decoders?: DecoderIndex;
}

export interface FormatParser {
  /** Stable name, recorded on the event as "event.module"-like provenance. */
  readonly name: string;
  /** A cheap test whether `raw` looks like this format, for detection by content. */
  detect(raw: string): boolean;
  /**
   * Parses `raw`. Returns null when `raw` is not this format at all; throws
   * an Error saying what is wrong when it is this format but malformed.
   */
  parse(raw: string, ctx: ParseContext): EventFields | null;
}
