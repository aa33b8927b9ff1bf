// The enricher step: the entities an event names (IP, domain, host, user,
// email) and the typed relationships between them. Pure: same event, same
// entities and edges, with deterministic ids.
import { stableId } from '../../lib/ids.js';
import { CANONICAL_ISO, isoToMs, msToIso } from '../../lib/iso-time.js';
import { eventTime } from '../event-time.js';
import { canonicalIp } from '../parser/ip.js';
import type { EdgeType, Entity, NodeType, ParsedEvent } from '../../topics/index.js';
import type { FieldValue } from '../parser/types.js';

export interface EdgeSighting {
  id: string;
  type: EdgeType;
  source_id: string;
  target_id: string;
  artifact_id: string;
  /** When the relationship was observed: the event's own time when sane, else the artifact's. */
  seen_at: string;
}

export interface ExtractedGraph {
  entities: Entity[];
  edges: EdgeSighting[];
  seenAt: string;
}

/** Fields that name entities, and the node type each holds. Group names are user nodes "group:<name>". */
export const ENTITY_FIELDS: readonly [string, NodeType][] = [
  ['source.ip', 'IP'],
  ['destination.ip', 'IP'],
  ['client.ip', 'IP'],
  ['server.ip', 'IP'],
  ['host.ip', 'IP'],
  ['source.nat.ip', 'IP'],
  ['destination.nat.ip', 'IP'],
  ['dns.resolved_ip', 'IP'],
  ['dns.question.name', 'domain'],
  ['url.domain', 'domain'],
  ['destination.domain', 'domain'],
  ['source.domain', 'domain'],
  ['tls.client.server_name', 'domain'],
  ['host.hostname', 'host'],
  ['host.name', 'host'],
  ['observer.hostname', 'host'],
  ['user.name', 'user'],
  ['user.effective.name', 'user'],
  ['user.target.name', 'user'],
  ['source.user.name', 'user'],
  ['destination.user.name', 'user'],
  ['group.name', 'user'],
  ['user.email', 'email'],
  ['email.from.address', 'email'],
  ['email.to.address', 'email'],
  ['email.sender.address', 'email'],
];

export const GROUP_PREFIX = 'group:';

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^@\s]{1,64}@(?:[a-z0-9-]+\.)+[a-z0-9-]{2,63}$/;
const HOST = /^[a-z0-9_](?:[a-z0-9_.-]{0,253}[a-z0-9_])?$/;

/** Canonical value of an entity of `type`, or null when the text is not one; an IP written as a domain or host becomes an IP. */
export function canonicalEntity(type: NodeType, text: string): { type: NodeType; value: string } | null {
  const raw = text.trim();
  if (!raw || raw === '-') return null;
  const ip = canonicalIp(raw);
  if (ip) return { type: 'IP', value: ip };
  if (type === 'IP') return null;
  if (type === 'domain') {
    const domain = raw.toLowerCase().replace(/\.$/, '');
    return DOMAIN.test(domain) ? { type, value: domain } : null;
  }
  if (type === 'host') {
    const host = raw.toLowerCase().replace(/\.$/, '');
    return HOST.test(host) ? { type, value: host } : null;
  }
  if (type === 'email') {
    const email = raw.toLowerCase();
    return EMAIL.test(email) ? { type, value: email } : null;
  }
  // user: account names are case-sensitive; an email address as a user name is an email entity too
  return raw.length <= 256 ? { type, value: raw } : null;
}

/** Ids are UUIDv5 (a SHA-1 each); a bounded cache keeps the hash off the hot path, as the same entities recur. */
const idCache = new Map<string, string>();
const ID_CACHE_LIMIT = 200_000;

function cachedId(...parts: string[]): string {
  const key = parts.join('\u0000');
  let id = idCache.get(key);
  if (!id) {
    if (idCache.size >= ID_CACHE_LIMIT) idCache.clear();
    id = stableId(...parts);
    idCache.set(key, id);
  }
  return id;
}

export function nodeId(orgId: string, type: NodeType, value: string): string {
  return cachedId('node', orgId, type, value);
}

export function edgeId(orgId: string, type: EdgeType, sourceId: string, targetId: string): string {
  return cachedId('edge', orgId, type, sourceId, targetId);
}

function values(value: FieldValue | undefined): string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function seenAt(event: ParsedEvent): string {
  const ms = eventTime(event);
  // Parsers write @timestamp in canonical form already: keep the string rather than format it again.
  const stamped = event.fields['@timestamp'];
  if (typeof stamped === 'string' && CANONICAL_ISO.test(stamped) && isoToMs(stamped) === ms) return stamped;
  return msToIso(ms);
}

function hasCategory(event: ParsedEvent, category: string): boolean {
  return values(event.fields['event.category']).includes(category);
}

/** Collects one event's entities and edges (a class, so no closures are made per event on the hot path). */
class GraphBuilder {
  readonly entities = new Map<string, Entity>();
  /** Entities by the field they came from, in order. */
  private readonly byRole = new Map<string, Entity[]>();
  readonly edges = new Map<string, EdgeSighting>();

  constructor(
    private readonly org: string,
    private readonly artifactId: string,
    readonly seenAt: string,
  ) {}

  addEntity(type: NodeType, value: string, role: string): Entity {
    const id = nodeId(this.org, type, value);
    const key = `${id}|${role}`;
    let entity = this.entities.get(key);
    if (!entity) {
      entity = { id, type, value, role };
      this.entities.set(key, entity);
      const list = this.byRole.get(role);
      if (list) list.push(entity);
      else this.byRole.set(role, [entity]);
    }
    return entity;
  }

  first(role: string): Entity | undefined {
    return this.byRole.get(role)?.[0];
  }

  all(role: string): Entity[] {
    return this.byRole.get(role) ?? [];
  }

  link(type: EdgeType, from: Entity | undefined, to: Entity | undefined): void {
    if (!from || !to || from.id === to.id) return;
    const id = edgeId(this.org, type, from.id, to.id);
    this.edges.set(id, { id, type, source_id: from.id, target_id: to.id, artifact_id: this.artifactId, seen_at: this.seenAt });
  }
}

export function extractGraph(event: ParsedEvent): ExtractedGraph {
  const graph = new GraphBuilder(event.org_id, event.artifact_id, seenAt(event));
  for (const [field, type] of ENTITY_FIELDS) {
    const present = event.fields[field];
    if (present === undefined) continue;
    for (const text of values(present)) {
      const entity = canonicalEntity(type, text);
      if (!entity) continue;
      const value = field === 'group.name' && entity.type === 'user' ? `${GROUP_PREFIX}${entity.value}` : entity.value;
      if (field === 'user.name' && EMAIL.test(value.toLowerCase())) graph.addEntity('email', value.toLowerCase(), 'user.email');
      graph.addEntity(entity.type, value, field);
    }
  }

  const sourceIp = graph.first('source.ip');
  const user = graph.first('user.name');
  const host = graph.first('host.hostname') ?? graph.first('host.name');
  graph.link('communicates_with', sourceIp, graph.first('destination.ip'));
  for (const answer of graph.all('dns.resolved_ip')) graph.link('resolved_to', graph.first('dns.question.name'), answer);
  // Each A/AAAA answer record: its own name resolved to its address (also
  // where the log names no question, as Suricata's per-record answers do).
  const names = values(event.fields['dns.answers.name']);
  const types = values(event.fields['dns.answers.type']);
  const data = values(event.fields['dns.answers.data']);
  for (let i = 0; i < names.length; i++) {
    if (types[i] !== 'A' && types[i] !== 'AAAA') continue;
    const domain = canonicalEntity('domain', names[i]!);
    const address = canonicalEntity('IP', data[i] ?? '');
    if (domain?.type !== 'domain' || !address) continue;
    graph.link('resolved_to', graph.addEntity('domain', domain.value, 'dns.answers.name'), graph.addEntity('IP', address.value, 'dns.answers.data'));
  }
  if (user && (hasCategory(event, 'authentication') || hasCategory(event, 'session'))) {
    // The account was used on this host; without a host name, on the address it came from.
    graph.link('authenticated_as', user, host ?? sourceIp);
    // The address that logged in, or tried to, as this account.
    graph.link('related_to', sourceIp, user);
  }
  for (const group of graph.all('group.name')) graph.link('member_of', user, group);
  // A domain served from the address the traffic went to (HTTP host, TLS SNI).
  graph.link('related_to', graph.first('url.domain') ?? graph.first('destination.domain') ?? graph.first('tls.client.server_name'), graph.first('destination.ip'));

  return { entities: [...graph.entities.values()], edges: [...graph.edges.values()], seenAt: graph.seenAt };
}
