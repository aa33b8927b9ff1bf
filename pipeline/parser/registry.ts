// Which parser reads which artifact: the artifact's `source` names the
// formats to try first; when none of them takes the line (or the source is
// unknown), formats are detected by content, most specific first, ending
// with the generic JSON and key=value readers and the generic reading of
// any text (generic/generic-text.ts).
import { cef } from './formats/cef.js';
import { deviceCatalogue, deviceFormats } from './devices/index.js';
import { ciscoAsa } from './formats/cisco-asa.js';
import { genericJson } from './formats/generic-json.js';
import { iptables } from './formats/iptables.js';
import { jsonAuth } from './formats/json-auth.js';
import { keyValue } from './formats/key-value.js';
import { leef } from './formats/leef.js';
import { plainText } from './formats/plain-text.js';
import { genericText } from './generic/generic-text.js';
import { webAccess } from './formats/web-access.js';
import { webError } from './formats/web-error.js';
import { suricataEve } from './formats/suricata-eve.js';
import { syslogAuth } from './formats/syslog-auth.js';
import { zeekDns } from './formats/zeek-dns.js';
import { ParseFailure } from './failure.js';
import type { EventFields, FormatParser, ParseContext } from './types.js';
import { lookupTable } from '../../lib/lookup-table.js';

export const PARSERS: readonly FormatParser[] = [suricataEve, zeekDns, jsonAuth, cef, leef, ciscoAsa, deviceFormats, iptables, webError, webAccess, syslogAuth, genericJson, plainText, keyValue, genericText];

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
  firewall: [iptables, ciscoAsa, deviceFormats, cef, leef],
  iptables: [iptables],
  netfilter: [iptables],
  asa: [ciscoAsa],
  'cisco-asa': [ciscoAsa],
  dns: [zeekDns, suricataEve],
  cef: [cef],
  leef: [leef],
  arcsight: [cef],
  qradar: [leef],
  apache: [webAccess, webError],
  httpd: [webAccess, webError],
  nginx: [webAccess, webError],
  web: [webAccess, webError],
  'web-access': [webAccess],
  'web-error': [webError],
  zeek: [zeekDns],
});

export interface ParsedRaw {
  parser: string;
  fields: EventFields;
}

function attempt(parser: FormatParser, raw: string, ctx: ParseContext): ParsedRaw | null {
  const fields = parser.parse(raw, ctx);
  return fields ? { parser: parser.name, fields } : null;
}

/**
 * Parses one raw artifact, or throws ParseFailure saying why it could not.
 * A parser that recognises its format but finds it broken throws, and that
 * ends the attempt: a damaged EVE line is a failure to report, not generic JSON.
 */
export function parseRaw(raw: string, ctx: ParseContext): ParsedRaw {
  if (raw.trim() === '') throw new ParseFailure('empty artifact');
  const source = ctx.source.toLowerCase();
  const preferred = BY_SOURCE[source] ?? (deviceCatalogue().namesDevice(source) ? [deviceFormats] : []);
  for (const parser of preferred) {
    const parsed = tryParser(parser, raw, ctx);
    if (parsed) return parsed;
  }
  // Content detection only when the source's own formats did not take the line: most lines stop above.
  for (const parser of PARSERS) {
    if (preferred.includes(parser) || !parser.detect(raw)) continue;
    const parsed = tryParser(parser, raw, ctx);
    if (parsed) return parsed;
  }
  throw new ParseFailure(`no parser recognised the artifact (source "${ctx.source}")`);
}

function tryParser(parser: FormatParser, raw: string, ctx: ParseContext): ParsedRaw | null {
  try {
    return attempt(parser, raw, ctx);
  } catch (err) {
    throw new ParseFailure(`${parser.name}: ${(err as Error).message}`, parser.name);
  }
}
