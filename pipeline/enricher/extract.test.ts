import { describe, expect, it } from 'vitest';
import type { ParsedEvent } from '../../topics/index.js';
import { canonicalEntity, extractGraph, GROUP_PREFIX, nodeId } from './extract.js';

function event(fields: ParsedEvent['fields'], overrides: Partial<ParsedEvent> = {}): ParsedEvent {
  return {
    artifact_id: '01930000-0000-7000-8000-000000000001',
    org_id: 'org',
    source: 'test',
    timestamp: '2026-11-22T06:00:00.000Z',
    received_at: '2026-11-22T06:00:01.000Z',
    parser: 'json',
    raw: JSON.stringify(fields),
    fields,
    ...overrides,
  };
}

describe('entity values', () => {
  it('canonicalizes IPv4 and IPv6, and maps IPv4-mapped IPv6 to IPv4', () => {
    expect(canonicalEntity('IP', '2001:DB8:0:0:0:0:0:1')).toEqual({ type: 'IP', value: '2001:db8::1' });
    expect(canonicalEntity('IP', '::ffff:10.1.2.3')).toEqual({ type: 'IP', value: '10.1.2.3' });
    expect(canonicalEntity('IP', 'not-an-ip')).toBeNull();
  });

  it('lower-cases domains, drops the trailing dot, and turns an IP in a domain field into an IP', () => {
    expect(canonicalEntity('domain', 'WWW.Example.COM.')).toEqual({ type: 'domain', value: 'www.example.com' });
    expect(canonicalEntity('domain', '198.51.100.7')).toEqual({ type: 'IP', value: '198.51.100.7' });
    expect(canonicalEntity('domain', 'localhost')).toBeNull();
    expect(canonicalEntity('email', 'Alice@Example.org')).toEqual({ type: 'email', value: 'alice@example.org' });
    expect(canonicalEntity('user', '-')).toBeNull();
  });

  it('gives the same node the same id, per organization', () => {
    expect(nodeId('a', 'IP', '10.0.0.1')).toBe(nodeId('a', 'IP', '10.0.0.1'));
    expect(nodeId('a', 'IP', '10.0.0.1')).not.toBe(nodeId('b', 'IP', '10.0.0.1'));
    expect(nodeId('a', 'IP', '10.0.0.1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5/);
  });
});

describe('edges', () => {
  it('links an authenticating address to the account, and the account to the host', () => {
    const graph = extractGraph(
      event({ '@timestamp': '2026-11-22T05:00:00.000Z', 'event.category': ['authentication'], 'event.outcome': 'failure', 'source.ip': '203.0.113.9', 'user.name': 'root', 'host.hostname': 'Web-1' }),
    );
    const ip = graph.entities.find((e) => e.type === 'IP')!;
    const user = graph.entities.find((e) => e.type === 'user')!;
    const host = graph.entities.find((e) => e.type === 'host')!;
    expect(host.value).toBe('web-1');
    expect(graph.edges.map((e) => [e.type, e.source_id, e.target_id])).toEqual(
      expect.arrayContaining([
        ['authenticated_as', user.id, host.id],
        ['related_to', ip.id, user.id],
      ]),
    );
    expect(graph.seenAt).toBe('2026-11-22T05:00:00.000Z');
  });

  it('links a user to the address it came from when no host is named', () => {
    const graph = extractGraph(event({ 'event.category': ['authentication'], 'source.ip': '203.0.113.9', 'user.name': 'root' }));
    const ip = graph.entities.find((e) => e.type === 'IP')!;
    expect(graph.edges.find((e) => e.type === 'authenticated_as')).toMatchObject({ target_id: ip.id });
  });

  it('makes communicates_with, resolved_to for each answer, member_of and served-by related_to', () => {
    const graph = extractGraph(
      event({
        'source.ip': '10.0.0.5',
        'destination.ip': '93.184.216.34',
        'dns.question.name': 'Example.com.',
        'dns.resolved_ip': ['93.184.216.34', '2606:2800:220:1:248:1893:25C8:1946'],
        'url.domain': 'example.com',
        'user.name': 'alice',
        'group.name': 'wheel',
      }),
    );
    const types = graph.edges.map((e) => e.type).sort();
    expect(types).toEqual(['communicates_with', 'member_of', 'related_to', 'resolved_to', 'resolved_to']);
    expect(graph.entities.some((e) => e.value === `${GROUP_PREFIX}wheel` && e.type === 'user')).toBe(true);
    expect(graph.entities.some((e) => e.value === '2606:2800:220:1:248:1893:25c8:1946')).toBe(true);
  });

  it('links the name of each A/AAAA answer record to its address, as per-record DNS logs give them', () => {
    const graph = extractGraph(
      event({ 'dns.answers.name': ['www.example.com', 'edge.example.net', 'edge.example.net'], 'dns.answers.type': ['CNAME', 'A', 'AAAA'], 'dns.answers.data': ['edge.example.net', '203.0.113.80', '2001:db8::80'] }),
    );
    const byId = new Map(graph.entities.map((e) => [e.id, e.value]));
    expect(graph.edges.filter((e) => e.type === 'resolved_to').map((e) => `${byId.get(e.source_id)} -> ${byId.get(e.target_id)}`).sort()).toEqual([
      'edge.example.net -> 2001:db8::80',
      'edge.example.net -> 203.0.113.80',
    ]);
  });

  it('uses the artifact time when the event time is missing or far in the future', () => {
    expect(extractGraph(event({ 'source.ip': '10.0.0.1', 'destination.ip': '10.0.0.2', '@timestamp': '2999-01-01T00:00:00.000Z' })).seenAt).toBe('2026-11-22T06:00:00.000Z');
  });

  it('is deterministic: the same event gives the same ids', () => {
    const e = event({ 'source.ip': '10.0.0.1', 'destination.ip': '10.0.0.2' });
    expect(extractGraph(e)).toEqual(extractGraph(e));
  });
});
