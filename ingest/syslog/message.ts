// One syslog message as an artifact: its raw line as sent (decoded), the
// source CAIRN_SYSLOG_SOURCES names for it, the time its header gives, and
// where it came from in metadata. Binary garbage is not an artifact: it goes
// to the dead-letter topic with the reason.
import { isUtf8 } from 'node:buffer';
import net from 'node:net';
import type { SyslogConfig, SyslogSourceRule } from '../../config/env.js';
import { newId } from '../../lib/ids.js';
import { parseSyslogHeader } from '../../pipeline/parser/syslog-header.js';
import { MAX_RAW_BYTES, type RawArtifact } from '../../topics/index.js';
import type { Frame } from './framing.js';

/** Bytes a truncation marker may take; a frame keeps at most MAX_RAW_BYTES less this. */
const MARKER_RESERVE = 64;
/** The most bytes of a message kept before the truncation marker. */
export const MAX_MESSAGE_BYTES = MAX_RAW_BYTES - MARKER_RESERVE;
/** Appended to a message cut to the limit, so a reader of the artifact sees it is not whole. */
export const TRUNCATION_MARKER = ' [cairn: truncated]';
/** More control bytes than this share of a message (tab, CR, LF, ESC aside) make it binary. */
const MAX_CONTROL_SHARE = 0.1;

/** Where a message came from. */
export interface Origin {
  /** The sender's address, canonical (no ::ffff: prefix). */
  sender: string;
  /** e.g. "tcp/5514". */
  listener: string;
}

export type Built = { artifact: RawArtifact; truncated: boolean } | { garbage: string };

/** A sender's address without the IPv4-mapped prefix a dual-stack socket reports. */
export function senderAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/** Why `bytes` is binary rather than a log line; null when it is text. */
function binaryReason(bytes: Buffer): string | null {
  if (bytes.indexOf(0) >= 0) return 'binary data: the message holds NUL bytes';
  let control = 0;
  for (const byte of bytes) if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x1b) control++;
  if (control > bytes.length * MAX_CONTROL_SHARE) return `binary data: ${control} of ${bytes.length} bytes are control characters`;
  return null;
}

/** An octet-counted message may still end with the LF a sender adds out of habit (rsyslog does): it is no part of the line. */
function withoutLineEnd(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  return end === bytes.length ? bytes : bytes.subarray(0, end);
}

/** The longest prefix of `bytes` of at most `max` bytes that does not end inside a UTF-8 character. */
function utf8Prefix(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** Whether an address is in a set of CIDRs (CAIRN_SYSLOG_ALLOW). */
export class AddressSet {
  private readonly list = new net.BlockList();

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [address, bits] = cidr.split('/') as [string, string];
      this.list.addSubnet(address, Number(bits), net.isIPv6(address) ? 'ipv6' : 'ipv4');
    }
  }

  has(address: string): boolean {
    if (net.isIP(address) === 0) return false;
    return this.list.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  }
}

type CompiledRule = { kind: 'cidr'; addresses: AddressSet; source: string } | { kind: 'app'; app: string; source: string };

export class MessageBuilder {
  private readonly rules: CompiledRule[];

  constructor(
    private readonly config: Pick<SyslogConfig, 'defaultSource' | 'sources'>,
    /** Offset for header times without a zone (CAIRN_LOG_TIMEZONE). */
    private readonly timezone: string,
  ) {
    this.rules = config.sources.map((rule: SyslogSourceRule): CompiledRule => (rule.kind === 'cidr' ? { kind: 'cidr', addresses: new AddressSet([rule.cidr]), source: rule.source } : rule));
  }

  /** The first rule matching the sender or the app-name names the source. */
  private sourceOf(sender: string, app: string | undefined): string {
    for (const rule of this.rules) {
      if (rule.kind === 'cidr' ? rule.addresses.has(sender) : rule.app === app) return rule.source;
    }
    return this.config.defaultSource;
  }

  build(received: Frame, origin: Origin, receivedAt: number): Built {
    const frame = { ...received, bytes: withoutLineEnd(received.bytes) };
    const garbage = frame.bytes.length === 0 ? 'empty message' : binaryReason(frame.bytes);
    if (garbage) return { garbage };
    let truncated = frame.truncated || frame.bytes.length > MAX_MESSAGE_BYTES;
    // Not UTF-8: an older device writing Latin-1 or a Windows code page. Read byte for byte as Latin-1, which loses nothing.
    const utf8 = isUtf8(frame.bytes);
    let raw: string;
    if (utf8) {
      raw = utf8Prefix(frame.bytes, MAX_MESSAGE_BYTES).toString('utf8');
    } else {
      raw = frame.bytes.toString('latin1');
      // Latin-1 above 0x7f takes two bytes in UTF-8: cut again after decoding.
      if (Buffer.byteLength(raw) > MAX_MESSAGE_BYTES) {
        raw = utf8Prefix(Buffer.from(raw), MAX_MESSAGE_BYTES).toString('utf8');
        truncated = true;
      }
    }
    if (truncated) raw += TRUNCATION_MARKER;
    const header = parseSyslogHeader(raw, { source: this.config.defaultSource, receivedAt, timezone: this.timezone });
    const metadata: Record<string, string> = { 'syslog.sender': origin.sender, 'syslog.listener': origin.listener };
    if (!utf8) metadata['syslog.encoding'] = 'latin1';
    return {
      artifact: {
        id: newId(),
        source: this.rules.length ? this.sourceOf(origin.sender, header?.program) : this.config.defaultSource,
        raw,
        timestamp: header?.timestamp ?? new Date(receivedAt).toISOString(),
        metadata,
      },
      truncated,
    };
  }
}
