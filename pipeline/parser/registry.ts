// Which parser reads which artifact: the artifact's `source` names the
// formats to try first; when none of them takes the line (or the source is
// unknown), formats are detected by content, most specific first, ending
// with the generic JSON and key=value readers and the generic reading of
// any text (generic/generic-text.ts).
import { cef } from './formats/cef.js';
import { catalogue } from './decoders/decode.js';
import { deviceCatalogue, deviceFormats } from './devices/index.js';
import { genericJson } from './formats/generic-json.js';
import { iptables } from './formats/iptables.js';
import { jsonAuth } from './formats/json-auth.js';
import { keyValue } from './formats/key-value.js';
import { leef } from './formats/leef.js';
import { linuxAudit } from './formats/linux-audit.js';
import { plainText } from './formats/plain-text.js';
import { genericText } from './generic/generic-text.js';
import { webAccess } from './formats/web-access.js';
import { webError } from './formats/web-error.js';
import { suricataEve } from './formats/suricata-eve.js';
import { syslogAuth } from './formats/syslog-auth.js';
import { windows } from './windows/index.js';
import { zeek } from './zeek/index.js';
import { ParseFailure } from './failure.js';
import type { EventFields, FormatParser, ParseContext } from './types.js';
import { lookupTable } from '../../lib/lookup-table.js';

// Device formats come before the generic JSON-auth and CEF/LEEF readers: a vendor's JSON or CEF form
// (Zscaler NSS, F5 telemetry, Citrix App Firewall) has a format of its own that knows its keys.
export const PARSERS: readonly FormatParser[] = [suricataEve, zeek, windows, deviceFormats, jsonAuth, cef, leef, linuxAudit, iptables, webError, webAccess, syslogAuth, genericJson, plainText, keyValue, genericText];

/** Formats to try first for a source name (lower-cased). */
const BY_SOURCE = lookupTable<readonly FormatParser[]>({
  suricata: [suricataEve],
  eve: [suricataEve],
  ids: [suricataEve],
  auth: [syslogAuth, jsonAuth],
  sshd: [syslogAuth],
  pam: [syslogAuth],
  sudo: [syslogAuth],
  secure: [syslogAuth],
  firewall: [iptables, deviceFormats, cef, leef],
  iptables: [iptables],
  netfilter: [iptables],
  dns: [zeek, suricataEve],
  cef: [deviceFormats, cef],
  leef: [deviceFormats, leef],
  arcsight: [deviceFormats, cef],
  qradar: [deviceFormats, leef],
  apache: [webAccess, webError],
  httpd: [webAccess, webError],
  nginx: [webAccess, webError],
  web: [webAccess, webError],
  'web-access': [webAccess],
  'web-error': [webError],
  zeek: [zeek],
  bro: [zeek],
  windows: [windows],
  winlogbeat: [windows],
  wineventlog: [windows],
  sysmon: [windows],
  nxlog: [windows],
  evtx: [windows],
  auditd: [linuxAudit],
  audit: [linuxAudit],
  'linux-audit': [linuxAudit],
});

/** Builds now the catalogues the readers load on first use: a parse under a time limit (decoders/user.ts) must not pay for their loading. */
export function loadCatalogues(): void {
  catalogue();
  deviceCatalogue();
}

export interface ParsedRaw {
  parser: string;
  fields: EventFields;
}

function attempt(parser: FormatParser, raw: string, ctx: ParseContext): ParsedRaw | null {
  const fields = parser.parse(raw, ctx);
  return fields ? { parser: parser.name, fields } : null;
}

/**
 * Readers that take any line of their envelope (a syslog header, JSON,
 * key=value pairs, a time stamp) whether or not they understand its message.
 * What they give without event.category is kept only when no specific format
 * reads the line: a Cisco, audit or vendor line sent with the source "auth"
 * still reaches its format.
 */
const ENVELOPE_READERS: ReadonlySet<FormatParser> = new Set([syslogAuth, genericJson, plainText, keyValue, genericText]);

/**
 * Parses one raw artifact, or throws ParseFailure saying why it could not.
 * A parser that recognises its format but finds it broken throws, and that
 * ends the attempt: a damaged EVE line is a failure to report, not generic JSON.
 * The source's own formats come first, then formats detected by content (only
 * when needed: most lines stop at their source's format).
 */
export function parseRaw(raw: string, ctx: ParseContext): ParsedRaw {
  if (raw.trim() === '') throw new ParseFailure('empty artifact');
  const source = ctx.source.toLowerCase();
  const preferred = BY_SOURCE[source] ?? (deviceCatalogue().namesDevice(source) ? [deviceFormats] : []);
  let unread: ParsedRaw | null = null;
  for (const parser of preferred) {
    const parsed = tryParser(parser, raw, ctx);
    if (!parsed) continue;
    if (!ENVELOPE_READERS.has(parser) || parsed.fields['event.category'] !== undefined) return parsed;
    unread ??= parsed;
  }
  for (const parser of PARSERS) {
    // Once an envelope reader took the line, only a specific format can add to it.
    if (preferred.includes(parser) || (unread && ENVELOPE_READERS.has(parser)) || !parser.detect(raw)) continue;
    const parsed = tryParser(parser, raw, ctx);
    if (!parsed) continue;
    if (!ENVELOPE_READERS.has(parser) || parsed.fields['event.category'] !== undefined) return parsed;
    unread ??= parsed;
  }
  if (unread) return unread;
  throw new ParseFailure(`no parser recognised the artifact (source "${ctx.source}")`);
}

function tryParser(parser: FormatParser, raw: string, ctx: ParseContext): ParsedRaw | null {
  try {
    return attempt(parser, raw, ctx);
  } catch (err) {
    throw new ParseFailure(`${parser.name}: ${(err as Error).message}`, parser.name);
  }
}
