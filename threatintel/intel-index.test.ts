// The pure pieces of threat intel matching: reading STIX patterns, canonical
// values, the decay model, and the ingest index (CIDRs of both families,
// parent domains, URLs, hashes, expiry at the hit, several feeds).
import { describe, expect, it } from 'vitest';
import type { EnrichedEvent } from '../topics/index.js';
import { isLive, scoreAt } from './decay.js';
import { detectValue, indicatorId } from './indicator.js';
import { IntelIndex, type ClaimInput } from './intel-index.js';
import { readStixPattern } from './stix-pattern.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const DAY = 86_400_000;

function claim(text: string, extra: Partial<ClaimInput> = {}): ClaimInput {
  const found = detectValue(text)!;
  return { orgId: 'o', indicatorId: indicatorId('o', found.type, found.value), subscriptionId: 'feed-1', type: found.type, value: found.value, confidence: 80, labels: [], validFrom: NOW - DAY, assertedAt: NOW - DAY, expiresAt: NOW + 30 * DAY, decaySpeed: 1, threshold: 20, version: 1n, ...extra };
}

function event(fields: EnrichedEvent['fields'], entities: [EnrichedEvent['entities'][number]['type'], string, string][] = []): EnrichedEvent {
  return {
    artifact_id: '01a20cc8-0000-7000-8000-000000000001',
    org_id: 'o',
    source: 'test',
    timestamp: new Date(NOW).toISOString(),
    received_at: new Date(NOW).toISOString(),
    parser: 'test',
    raw: '',
    fields,
    entities: entities.map(([type, value, role], i) => ({ id: `00000000-0000-4000-8000-00000000000${i}`, type, value, role })),
  };
}

describe('STIX patterns', () => {
  it('reads OR-joined equality comparisons of values cairn matches', () => {
    expect(readStixPattern("[ipv4-addr:value = '198.51.100.1'] OR [domain-name:value = 'Evil.Example.']")).toEqual({
      matchable: true,
      values: [
        { type: 'ipv4-addr', value: '198.51.100.1' },
        { type: 'domain', value: 'evil.example' },
      ],
    });
    const sha256 = `AB${'0'.repeat(62)}`;
    expect(readStixPattern(`[file:hashes.'SHA-256' = '${sha256}' OR file:hashes.MD5 = '${'c'.repeat(32)}']`)).toEqual({
      matchable: true,
      values: [
        { type: 'sha256', value: sha256.toLowerCase() },
        { type: 'md5', value: 'c'.repeat(32) },
      ],
    });
    expect(readStixPattern("[ipv6-addr:value = '2001:DB8::/32']")).toEqual({ matchable: true, values: [{ type: 'ipv6-cidr', value: '2001:db8::/32' }] });
    expect(readStixPattern("[url:value = 'http://x.example/a\\'b']")).toEqual({ matchable: true, values: [{ type: 'url', value: "http://x.example/a'b" }] });
  });

  it('keeps everything else as not matched, with the reason', () => {
    for (const [pattern, reason] of [
      ["[ipv4-addr:value = '1.2.3.4' AND network-traffic:dst_port = 443]", /"AND"/],
      ["[ipv4-addr:value = '1.2.3.4'] FOLLOWEDBY [ipv4-addr:value = '1.2.3.5']", /"FOLLOWEDBY"/],
      ["[ipv4-addr:value ISSUBSET '10.0.0.0/8']", /only = comparisons/],
      ["[process:name = 'evil.exe']", /process:name is not one cairn reads/],
      ["[ipv4-addr:value = 'not-an-ip']", /not a valid ipv4-addr/],
      ["[domain-name:value = 'x.example'] WITHIN 5 SECONDS", /"WITHIN"/],
      ["[ipv4-addr:value = '1.2.3.4'", /incomplete/],
    ] as const) {
      const reading = readStixPattern(pattern);
      expect(reading.matchable, pattern).toBe(false);
      if (!reading.matchable) expect(reading.reason).toMatch(reason);
    }
  });
});

describe('the decay model', () => {
  it('falls from the confidence at assertion to 0 at expiry, by the speed given', () => {
    const c = { confidence: 80, validFrom: 0, assertedAt: 0, expiresAt: 100, decaySpeed: 1, threshold: 30 };
    expect([scoreAt(c, 0), scoreAt(c, 50), scoreAt(c, 100)]).toEqual([80, 40, 0]);
    expect(scoreAt({ ...c, decaySpeed: 2 }, 25)).toBeCloseTo(40);
    expect(scoreAt({ ...c, decaySpeed: 0.5 }, 50)).toBeCloseTo(60);
    expect([isLive(c, 50), isLive(c, 70), isLive(c, -1)]).toEqual([true, false, false]);
  });
});

describe('the ingest index', () => {
  it('finds addresses exactly and in CIDRs of both families, most specific first', () => {
    const index = new IntelIndex();
    for (const text of ['203.0.113.9', '198.51.100.0/24', '198.51.100.128/25', '2001:db8:aa::/48']) index.put(claim(text));
    const hits = index.match([event({}, [['IP', '203.0.113.9', 'source.ip'], ['IP', '198.51.100.200', 'destination.ip'], ['IP', '2001:db8:aa:1::5', 'client.ip'], ['IP', '192.0.2.1', 'host.ip']])], NOW);
    expect(hits.map((h) => [h.field, h.entry.value])).toEqual([
      ['source.ip', '203.0.113.9'],
      ['destination.ip', '198.51.100.128/25'],
      ['client.ip', '2001:db8:aa::/48'],
    ]);
  });

  it('matches a domain and its subdomains, never a top-level domain alone; URLs by scheme and host case; hashes in any case', () => {
    const index = new IntelIndex();
    for (const text of ['evil.example', 'HTTP://Bad.Example/x?y=1', 'd41d8cd98f00b204e9800998ecf8427e']) index.put(claim(text));
    index.put({ ...claim('evil.example'), indicatorId: indicatorId('o', 'domain', 'example'), value: 'example' });
    const hits = index.match(
      [
        event({}, [['domain', 'a.b.evil.example', 'dns.question.name']]),
        event({}, [['domain', 'other.example', 'dns.question.name']]),
        event({ 'url.full': 'http://bad.example/x?y=1', 'file.hash.md5': 'D41D8CD98F00B204E9800998ECF8427E' }),
      ],
      NOW,
    );
    expect(hits.map((h) => h.entry.value)).toEqual(['evil.example', 'http://bad.example/x?y=1', 'd41d8cd98f00b204e9800998ecf8427e']);
  });

  it('judges expiry at the hit, keeps each feed apart, and forgets an indicator no feed claims', () => {
    const index = new IntelIndex();
    const expired = claim('192.0.2.7', { expiresAt: NOW - 1 });
    index.put(expired);
    const probe = [event({}, [['IP', '192.0.2.7', 'source.ip']])];
    expect(index.match(probe, NOW)).toEqual([]);
    index.put({ ...expired, subscriptionId: 'feed-2', expiresAt: NOW + DAY, confidence: 60, version: 2n });
    expect(index.match(probe, NOW)[0]!.claims).toEqual([{ subscriptionId: 'feed-2', confidence: 60, score: expect.any(Number), labels: [] }]);
    index.remove('o', expired.indicatorId, 'feed-2', 3n);
    index.remove('o', expired.indicatorId, 'feed-1', 3n);
    expect(index.size).toBe(0);
    // An older change read late does not undo a newer one.
    index.put({ ...claim('192.0.2.8'), version: 5n });
    index.remove('o', claim('192.0.2.8').indicatorId, 'feed-1', 4n);
    expect(index.size).toBe(1);
  });

  it('says whether a put or a remove changed anything (a version read again changes nothing)', () => {
    const index = new IntelIndex();
    const held = claim('192.0.2.9', { version: 5n });
    expect(index.put(held)).toBe(true);
    expect(index.put(held)).toBe(false);
    expect(index.put({ ...held, version: 4n })).toBe(false);
    expect(index.put({ ...held, confidence: 90, version: 6n })).toBe(true);
    expect(index.remove('o', held.indicatorId, 'feed-1', 5n)).toBe(false);
    expect(index.remove('o', held.indicatorId, 'feed-2', 7n)).toBe(false);
    expect(index.remove('o', held.indicatorId, 'feed-1', 7n)).toBe(true);
    expect(index.remove('o', held.indicatorId, 'feed-1', 8n)).toBe(false);
  });
});
