// Header-less Zeek TSV lines: each log told by its column count and the shape
// of its columns (tsv.ts), on lines written for cairn in the default field
// sets of Zeek's logs, including the widths two logs share.
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import type { ParseContext } from '../types.js';
import { zeek } from './index.js';
import { LAYOUTS, readTsv } from './tsv.js';

const CTX: ParseContext = { source: 'zeek', receivedAt: Date.UTC(2025, 5, 1) };
const tsv = (...values: (string | number)[]) => values.join('\t');
const ID = ['1700000000.123456', 'CHhAvVGS1DHFjwGM9', '192.0.2.10', '49152', '198.51.100.20'];

const LINES = {
  conn: tsv(...ID, 443, 'tcp', 'ssl', '2.250000', 517, 4400, 'SF', 'T', 'F', 0, 'ShADadFf', 12, 1153, 10, 4932, '(empty)'),
  connCommunityId: tsv(...ID, 53, 'udp', 'dns', '0.010000', 40, 80, 'SF', 'T', 'T', 0, 'Dd', 1, 68, 1, 108, '-', '1:LQU9qZlK+B5F3KDmev6m5PMibrg='),
  dns: tsv(...ID, 53, 'udp', 31337, '0.021500', 'www.example.com', 1, 'C_INTERNET', 1, 'A', 0, 'NOERROR', 'F', 'F', 'T', 'T', 0, 'edge.example.net,203.0.113.80', '300.000000,30.000000', 'F'),
  http: tsv(...ID, 80, 1, 'GET', 'www.example.com', '/index.php?id=1', '-', '1.1', 'curl/8.4.0', '-', 0, 612, 200, 'OK', '-', '-', '(empty)', '-', '-', '-', '-', '-', '-', 'FbkDQc3ZhK4kRTnXG4', '-', 'text/html'),
  ssh: tsv(...ID, 22, 2, 'F', 6, 'INBOUND', 'SSH-2.0-libssh_0.9.6', 'SSH-2.0-OpenSSH_8.9p1', 'chacha20-poly1305@openssh.com', 'hmac-sha2-256', 'none', 'curve25519-sha256', 'ssh-ed25519', '4d:1b:1e:6c'),
  smbMapping: tsv(...ID, 445, '\\\\dc01\\IPC$', '-', '-', 'PIPE'),
  dceRpc: tsv(...ID, 445, '0.000912', '\\pipe\\ntsvcs', 'svcctl', 'CreateServiceW'),
  weirdBeforeZeek3: tsv(...ID, 53, 'dns_unmatched_reply', '-', 'F', 'worker-1'),
  weird: tsv(...ID, 53, 'dns_unmatched_reply', '-', 'F', 'worker-1', 'DNS'),
  smbFiles: tsv(...ID, 445, 'Fo4r2P1M0lPXZ0Xda6', 'SMB::FILE_OPEN', '\\\\dc01\\ADMIN$', 'PSEXESVC.exe', 145568, '-', '1699999000.000000', '1699999000.000000', '1699999000.000000', '1699999000.000000'),
  dhcp: tsv('1700000013.000000', 'C6Tt1Y3xBHOCBeJDSa,CKeXg52sa2CH2d5WT3', '192.0.2.77', '192.0.2.1', '00:0c:29:03:df:ad', 'ws077', '-', 'corp.example', '-', '192.0.2.77', '86400.000000', '-', '-', 'REQUEST,ACK', '0.000161'),
  kerberos: tsv(...ID, 88, 'TGS', 'alice/CORP.EXAMPLE', 'MSSQLSvc/sql01.corp.example:1433', 'T', '-', '-', '2136422885.000000', 'rc4-hmac', 'T', 'T', '-', '-', '-', '-'),
  x509: tsv('1700000003.100000', 'FkB6vw1xPrC3ztJ1Bk', 3, '8BB00EE', 'CN=Major Cobalt Strike', 'CN=Major Cobalt Strike', '1431820800.000000', '1747440000.000000', 'rsaEncryption', 'sha256WithRSAEncryption', 'rsa', 2048, 65537, '-', 'c2.example.net', '-', '-', '-', '-', '-'),
} as const;

describe('zeek TSV layouts', () => {
  it('are each a distinct field list, with Zeek 4-6 and older variants', () => {
    const keys = LAYOUTS.map((l) => `${l.log}:${l.columns.map((c) => c.name).join(',')}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(LAYOUTS.map((l) => l.log))).toEqual(new Set(['conn', 'dns', 'http', 'ssl', 'x509', 'ssh', 'files', 'notice', 'weird', 'dce_rpc', 'smb_files', 'smb_mapping', 'kerberos', 'ntlm', 'rdp', 'dhcp']));
  });

  it('tell every line its log, widths two logs share by the shape of their columns', () => {
    const logs = Object.fromEntries(Object.entries(LINES).map(([name, line]) => [name, readTsv(line)?.log]));
    expect(logs).toEqual({
      conn: 'conn',
      connCommunityId: 'conn',
      dns: 'dns',
      http: 'http',
      ssh: 'ssh',
      smbMapping: 'smb_mapping',
      dceRpc: 'dce_rpc',
      weirdBeforeZeek3: 'weird',
      weird: 'weird',
      smbFiles: 'smb_files',
      dhcp: 'dhcp',
      kerberos: 'kerberos',
      x509: 'x509',
    });
  });

  it('read values as Zeek JSON has them: numbers, T/F, sets, unset and empty left out', () => {
    expect(readTsv(LINES.dns)?.record).toEqual({
      ts: 1700000000.123456,
      uid: 'CHhAvVGS1DHFjwGM9',
      'id.orig_h': '192.0.2.10',
      'id.orig_p': 49152,
      'id.resp_h': '198.51.100.20',
      'id.resp_p': 53,
      proto: 'udp',
      trans_id: 31337,
      rtt: 0.0215,
      query: 'www.example.com',
      qclass: 1,
      qclass_name: 'C_INTERNET',
      qtype: 1,
      qtype_name: 'A',
      rcode: 0,
      rcode_name: 'NOERROR',
      AA: false,
      TC: false,
      RD: true,
      RA: true,
      Z: 0,
      answers: ['edge.example.net', '203.0.113.80'],
      TTLs: [300, 30],
      rejected: false,
    });
    expect(readTsv(LINES.conn)?.record).toMatchObject({ tunnel_parents: [], local_orig: true });
    expect(readTsv(LINES.connCommunityId)?.record).toMatchObject({ community_id: '1:LQU9qZlK+B5F3KDmev6m5PMibrg=' });
    expect(readTsv(LINES.http)?.record).not.toHaveProperty('referrer');
  });

  it('undoes \\x escapes in strings', () => {
    const line = tsv(...ID, 80, 1, 'GET', 'www.example.com', '/a\\x09b', '-', '1.1', 'curl', '-', 0, 0, 200, 'OK', '-', '-', '(empty)', '-', '-', '-', '-', '-', '-', '-', '-', '-');
    expect(readTsv(line)?.record.uri).toBe('/a\tb');
  });

  it('map like the JSON records, through the registry', () => {
    expect(parseRaw(LINES.conn, CTX)).toMatchObject({
      parser: 'zeek',
      fields: { 'event.dataset': 'zeek.connection', 'source.ip': '192.0.2.10', 'destination.port': 443, 'event.type': ['connection', 'start', 'end'], 'network.direction': 'outbound', 'network.bytes': 6085 },
    });
    expect(parseRaw(LINES.dceRpc, { ...CTX, source: 'ids' }).fields).toMatchObject({ 'event.action': 'CreateServiceW', 'zeek.dce_rpc.endpoint': 'svcctl' });
    expect(parseRaw(LINES.smbFiles, CTX).fields).toMatchObject({ 'zeek.smb_files.path': '\\\\dc01\\ADMIN$', 'file.name': 'PSEXESVC.exe' });
    expect(parseRaw(LINES.dhcp, CTX).fields).toMatchObject({ 'source.ip': '192.0.2.77', 'zeek.session_id': ['C6Tt1Y3xBHOCBeJDSa', 'CKeXg52sa2CH2d5WT3'] });
  });

  it('leave header lines and lines of no known shape to the other parsers', () => {
    expect(zeek.parse('#fields\tts\tuid\tid.orig_h\tid.orig_p', CTX)).toBeNull();
    expect(zeek.parse('#separator \\x09', CTX)).toBeNull();
    // conn.log's width with a conn_state Zeek does not write.
    expect(zeek.parse(LINES.conn.replace('\tSF\t', '\tXX\t'), CTX)).toBeNull();
    expect(zeek.parse(tsv('1700000000.123456', 'a', 'b'), CTX)).toBeNull();
  });

  it('stays linear on a hostile line', () => {
    const hostile = `1700000000.123456\t${'C'.repeat(50_000)}\t${'1.'.repeat(25_000)}`;
    const start = performance.now();
    for (let i = 0; i < 20; i++) zeek.parse(hostile, CTX);
    expect(performance.now() - start).toBeLessThan(500);
  });
});
