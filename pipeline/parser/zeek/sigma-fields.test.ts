// Sigma's Zeek log sources (query/sigma/mapping.ts) against what this parser
// writes: for a record of each log holding every field of Zeek's default
// field sets (tsv.ts), each Zeek field a rule may name must map to a field
// the parsed event has, so that a rule naming it can fire.
import { describe, expect, it } from 'vitest';
import { findLogsource, mapField } from '../../../query/sigma/mapping.js';
import type { ParseContext } from '../types.js';
import { zeek } from './index.js';
import { LAYOUTS, type Layout } from './tsv.js';

const CTX: ParseContext = { source: 'zeek', receivedAt: Date.UTC(2025, 5, 1) };

/** A plausible value for a column of Zeek's type, and for the strings whose form the mapping reads. */
function value(name: string, type: string): unknown {
  const byName: Record<string, unknown> = {
    version: name === 'version' ? 'TLSv12' : undefined,
    client: 'alice/CORP.EXAMPLE',
    mac: '00:0c:29:03:df:ad',
    uri: '/index.php?id=1',
    'certificate.subject': 'CN=www.example.org,O=Example',
    'certificate.issuer': 'CN=Example CA',
    'certificate.exponent': '65537',
    subject: 'CN=www.example.org',
    issuer: 'CN=Example CA',
  };
  if (byName[name] !== undefined) return byName[name];
  const byType: Record<string, unknown> = {
    time: 1_700_000_000.5,
    uid: 'CHhAvVGS1DHFjwGM9',
    uids: ['CHhAvVGS1DHFjwGM9'],
    fuid: 'FbkDQc3ZhK4kRTnXG4',
    fuids: ['FbkDQc3ZhK4kRTnXG4'],
    addr: '192.0.2.10',
    port: 443,
    count: 7,
    interval: 1.5,
    intervals: [1.5],
    bool: true,
    proto: 'tcp',
    connstate: 'SF',
    sharetype: 'DISK',
    smbaction: 'SMB::FILE_OPEN',
    direction: 'INBOUND',
    history: 'CsiI',
    strings: ['text'],
    hash: 'ab'.repeat(32),
    hashes: ['ab'.repeat(32)],
    string: 'text',
  };
  return byType[type];
}

function fullRecord(layout: Layout): Record<string, unknown> {
  const record: Record<string, unknown> = { _path: layout.log, community_id: '1:LQU9qZlK+B5F3KDmev6m5PMibrg=' };
  // JA3 and JA3S, which the ja3 package adds to ssl.log.
  if (layout.log === 'ssl') Object.assign(record, { ja3: 'e7d705a3286e19ea42f587b344ee6865', ja3s: 'f4febc55ea12b31ae17cfb7e614afda8' });
  for (const column of layout.columns) record[column.name] = value(column.name, column.type);
  return record;
}

describe('Sigma Zeek fields', () => {
  for (const layout of LAYOUTS) {
    it(`${layout.log}.log (${layout.columns.length} fields): every field a rule may name is one the event has`, () => {
      const mapping = findLogsource({ product: 'zeek', service: layout.log });
      expect(mapping, layout.log).not.toBeNull();
      const fields = zeek.parse(JSON.stringify(fullRecord(layout)), CTX)!;
      expect(fields).not.toBeNull();
      for (const column of layout.columns) {
        if (column.name === 'ts') continue;
        const target = mapField(mapping!, column.name);
        expect(target, `${layout.log} ${column.name}`).not.toBeNull();
        expect(fields[target!], `${layout.log} ${column.name} -> ${target}`).toBeDefined();
      }
    });
  }

  it('names only fields the events have, outside zeek.<log>.*', () => {
    for (const log of new Set(LAYOUTS.map((l) => l.log))) {
      const mapping = findLogsource({ product: 'zeek', service: log })!;
      const written = new Set(LAYOUTS.filter((l) => l.log === log).flatMap((l) => Object.keys(zeek.parse(JSON.stringify(fullRecord(l)), CTX)!)));
      for (const [sigma, ecs] of Object.entries(mapping.fields)) {
        if (log === 'dns' && !ecs.startsWith('zeek.')) continue;
        expect(written.has(ecs), `${log}: ${sigma} -> ${ecs}`).toBe(true);
      }
    }
  });
});
