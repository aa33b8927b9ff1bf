// Applying the catalogue to one message: the services the syslog tag names
// first, then those the artifact's source names; for a line whose program and
// source no service claims (a neutral "syslog" source, an application's own
// log file, a journal line), every service's decoders by the literal each
// requires; then the fallback services that read common shapes from any
// program. The first decoder that matches sets the fields.
import { canonicalIp, canonicalMac } from '../ip.js';
import type { EventFields } from '../types.js';
import { MASK, maskClientText } from '../generic/generic-reading.js';
import { fillTemplate, loadServices, type Decoder, type Service } from './catalogue.js';
import { LiteralIndex } from '../literal-index.js';

/** Fields whose values are numbers when a template fills them with digits. */
const NUMERIC_FIELDS = new Set(['source.port', 'destination.port', 'process.pid', 'http.response.status_code', 'http.response.body.bytes', 'event.count', 'event.severity', 'process.exit_code', 'http.response.bytes', 'source.bytes', 'destination.bytes']);
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
/** What programs print for "no peer" or "no user". */
const NOTHING = new Set(['', '-', '?', 'unknown', 'UNKNOWN', '(null)', 'null', '<unknown>', 'NULL']);

/** The peer: an IP becomes source.ip, a host name source.domain. */
export function setPeer(fields: EventFields, address: string): void {
  const bare = address.replace(/^\[|\]$/g, '');
  if (NOTHING.has(bare)) return;
  const ip = canonicalIp(bare);
  if (ip) fields['source.ip'] = ip;
  else if (HOST_NAME.test(bare) && bare.includes('.')) fields['source.domain'] = bare.toLowerCase();
}

/** The conventional capture a name stands for: "addr", "addr2" ... are the peer (one per alternative of a pattern). */
const CONVENTIONAL = /^(addr|port|user)\d*$/;

function apply(decoder: Decoder, groups: Record<string, string | undefined>, fields: EventFields): void {
  for (const [name, value] of Object.entries(groups)) {
    if (value === undefined) continue;
    const kind = CONVENTIONAL.exec(name)?.[1];
    if (kind === 'addr') setPeer(fields, value);
    else if (kind === 'port') fields['source.port'] = Number(value);
    else if (kind === 'user' && !NOTHING.has(value)) fields['user.name'] = value;
  }
  for (const [name, template] of decoder.fields) {
    const value = fillTemplate(template, groups);
    if (value === undefined) continue;
    if (name.endsWith('.mac') && typeof value === 'string') {
      // ECS writes MAC addresses one way: a value that is no MAC is left out.
      const mac = canonicalMac(value);
      if (mac) fields[name] = mac;
      continue;
    }
    if (name === 'network.transport' && typeof value === 'string') {
      fields[name] = value.toLowerCase(); // ECS: "tcp", "udp", however the log writes it
      continue;
    }
    fields[name] = NUMERIC_FIELDS.has(name) && typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  }
  fields['service.name'] ??= decoder.service;
  fields['event.action'] ??= decoder.name;
  // An HTTP answer says how the request went when the decoder did not.
  const status = fields['http.response.status_code'];
  if (fields['event.outcome'] === undefined && typeof status === 'number') fields['event.outcome'] = status >= 400 ? 'failure' : 'success';
}

/** A message and, made once when a case-blind decoder first needs it, its lower-case form. */
class Text {
  private lower?: string;
  constructor(readonly value: string) {}
  lowerCase(): string {
    this.lower ??= this.value.toLowerCase();
    return this.lower;
  }
}

/** Whether the message holds one of the literals the decoder requires (any message when it names none). */
function mayMatch(decoder: Decoder, text: Text): boolean {
  if (decoder.contains.length === 0) return true;
  const haystack = decoder.regex.ignoreCase ? text.lowerCase() : text.value;
  return decoder.contains.some((literal) => haystack.includes(literal));
}

function tryDecoder(decoder: Decoder, text: Text, fields: EventFields): boolean {
  if (!mayMatch(decoder, text)) return false;
  const message = text.value;
  const m = decoder.regex.exec(message);
  if (!m) return false;
  const groups: Record<string, string | undefined> = m.groups ?? {};
  // On masked text (maskClientText), a capture that reaches into a masked part is text a client wrote: not used.
  for (const [name, value] of Object.entries(groups)) if (value?.includes(MASK)) groups[name] = undefined;
  apply(decoder, groups, fields);
  return true;
}

function tryService(service: Service, message: string, fields: EventFields): boolean {
  const text = new Text(message);
  return service.decoders.some((decoder) => tryDecoder(decoder, text, fields));
}

/**
 * A derived literal this long says enough about a shape to try it on a line
 * of any program; shorter ones (" from ", "rip=") only prefilter, and such a
 * decoder reaches unclaimed lines by content only with a declared `contains`.
 */
const CONTENT_LITERAL_MIN = 8;

function readsByContent(decoder: Decoder): boolean {
  return decoder.declared || (decoder.contains.length > 0 && decoder.contains.every((l) => l.length >= CONTENT_LITERAL_MIN));
}

/** A syslog tag reduced to what the catalogue indexes: lower case, without "(pam_unix)"-style qualifiers. */
function baseProgram(program: string): string {
  const paren = program.indexOf('(');
  return (paren > 0 ? program.slice(0, paren) : program).toLowerCase();
}

function globRegex(glob: string): RegExp {
  return new RegExp(`^${glob.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

export class DecoderIndex {
  private readonly byProgram = new Map<string, Service[]>();
  private readonly globs: [RegExp, Service][] = [];
  private readonly bySource = new Map<string, Service[]>();
  private readonly fallbacks: Service[];
  /** The decoders of the non-fallback services that say what literal a line must hold, most specific first. */
  private readonly byContent: Decoder[];
  /** Their literals, as written and (for case-blind decoders) lower-cased. */
  private readonly contentLiterals = new LiteralIndex<Decoder>();
  private readonly contentLiteralsLower = new LiteralIndex<Decoder>();
  /** Program name -> services, memoised: globs are tried once per distinct program. */
  private readonly programCache = new Map<string, Service[]>();

  constructor(readonly services: Service[]) {
    for (const service of services) {
      for (const program of service.spec.programs) {
        if (program.includes('*')) this.globs.push([globRegex(program), service]);
        else push(this.byProgram, program.toLowerCase(), service);
      }
      for (const source of service.spec.sources) push(this.bySource, source.toLowerCase(), service);
    }
    this.fallbacks = services.filter((s) => s.spec.fallback);
    // Longest required literal first: the more a decoder requires of a line, the more specific its shape.
    const required = (d: Decoder): number => Math.min(...d.contains.map((l) => l.length));
    this.byContent = services
      .filter((s) => !s.spec.fallback)
      .flatMap((s) => s.decoders.filter(readsByContent))
      .sort((a, b) => required(b) - required(a));
    for (const decoder of this.byContent) {
      const index = decoder.regex.ignoreCase ? this.contentLiteralsLower : this.contentLiterals;
      for (const literal of decoder.contains) index.add(literal, decoder);
    }
  }

  private forProgram(program: string): Service[] {
    let found = this.programCache.get(program);
    if (!found) {
      const lower = program.toLowerCase();
      const base = baseProgram(program);
      found = [...new Set([...(this.byProgram.get(lower) ?? []), ...(this.byProgram.get(base) ?? []), ...this.globs.filter(([g]) => g.test(lower) || g.test(base)).map(([, s]) => s)])];
      if (this.programCache.size < 10_000) this.programCache.set(program, found);
    }
    return found;
  }

  /**
   * Decodes `message` with the services the tag (`program`) and the
   * artifact's source name; false when none of their decoders knows it.
   */
  decodeSpecific(message: string, program: string | undefined, source: string, fields: EventFields): boolean {
    const byProgram = program ? this.forProgram(program) : [];
    for (const service of byProgram) if (tryService(service, message, fields)) return true;
    for (const service of this.bySource.get(source.toLowerCase()) ?? []) {
      if (!byProgram.includes(service) && tryService(service, message, fields)) return true;
    }
    return false;
  }

  /** Whether a service reads this program's messages. */
  claimsProgram(program: string): boolean {
    return this.forProgram(program).length > 0;
  }

  /** Whether a service claims the line by its program or the artifact's source (its own decoders had their try). */
  claims(program: string | undefined, source: string): boolean {
    return (program !== undefined && this.claimsProgram(program)) || this.bySource.has(source.toLowerCase());
  }

  /**
   * Decodes a line no service claims by program or source (`claims` false)
   * with any service's decoder whose required literal the message holds: the
   * line's content picks the service when its labels do not.
   */
  decodeByContent(message: string, fields: EventFields): boolean {
    const text = new Text(message);
    const candidates = new Set<Decoder>();
    this.contentLiterals.collect(message, candidates);
    this.contentLiteralsLower.collect(text.lowerCase(), candidates);
    if (candidates.size === 0) return false;
    return this.byContent.some((decoder) => candidates.has(decoder) && tryDecoder(decoder, text, fields));
  }

  /**
   * Decodes `message` with the fallback services (common shapes of any
   * program); those marked unclaimed_only only when no service claims the
   * line's program or source, whose own messages they could misread
   * (`claimed`: the shipped catalogue's `claims`, also when this index is
   * an organization's own, decoders/user.ts).
   */
  decodeFallback(message: string, claimed: boolean, fields: EventFields): boolean {
    let masked: string | undefined;
    for (const service of this.fallbacks) {
      if (service.spec.unclaimed_only && claimed) continue;
      // Loose shapes read text whose layout nobody vouches for: quoted values, paths and
      // e-mail addresses in it are a client's words ("for \"from 1.2.3.4\" from A"), not the peer.
      if (service.spec.unclaimed_only) masked ??= maskClientText(message);
      if (tryService(service, service.spec.unclaimed_only ? masked! : message, fields)) return true;
    }
    return false;
  }

  /** Whether a service reads this source (so a header-less line of it is worth a try). */
  knowsSource(source: string): boolean {
    return this.bySource.has(source.toLowerCase());
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

let shared: DecoderIndex | null = null;

/** The catalogue shipped with cairn, loaded on first use. */
export function catalogue(): DecoderIndex {
  shared ??= new DecoderIndex(loadServices());
  return shared;
}
