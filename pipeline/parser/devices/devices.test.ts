// Every vendor in the device catalogue, on the lines it carries: each line
// goes through the parser's real entry point and must give the fields its
// file expects. Adding a vendor file adds its cases here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import { DeviceCatalogue } from './index.js';
import { csvFields, headerFields, unescapeOctal } from './read.js';
import { DeviceCatalogueError, loadVendors } from './spec.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);
const vendors = loadVendors();

describe('device catalogue', () => {
  for (const vendor of vendors) {
    describe(vendor.file, () => {
      vendor.spec.tests.forEach((test, i) => {
        it(`line ${i + 1}: ${test.line.slice(0, 90)}`, () => {
          const source = test.source ?? vendor.spec.sources[0] ?? 'syslog';
          const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
          expect(fields['cairn.decoder'], 'read by a device format').toMatch(new RegExp(`^${vendor.spec.vendor}/`));
          for (const [name, value] of Object.entries(test.expect)) {
            if (value === null) expect(fields[name], name).toBeUndefined();
            else expect(fields[name], name).toEqual(value);
          }
        });
      });
    });
  }
});

describe('device catalogue loading', () => {
  function loadOne(yaml: string): void {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
    fs.writeFileSync(path.join(dir, 'broken.yaml'), yaml);
    loadVendors(dir);
  }
  const base = "vendor: x\ndescription: d\ntests: [{ line: 'a', expect: {} }]\n";

  it('names the file and the format of a pattern that does not compile', () => {
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: '(', layout: kv }]`)).toThrow(/broken\.yaml: format f: start: .*Invalid regular expression/);
  });
  it('refuses unknown keys, unknown value kinds and layouts without what they need', () => {
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: kv, typo: 1 }]`)).toThrow(/broken\.yaml: formats\.0/);
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: kv, fields: { a: { to: b, as: nope } } }]`)).toThrow(DeviceCatalogueError);
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: csv }]`)).toThrow(/needs csv\.variants/);
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: text }]`)).toThrow(/needs messages/);
  });
});

describe('device format engine', () => {
  function catalogue(yaml: string): DeviceCatalogue {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
    fs.writeFileSync(path.join(dir, 'v.yaml'), yaml);
    return new DeviceCatalogue(loadVendors(dir));
  }
  const ctx = { source: 'x', receivedAt: RECEIVED };

  it('applies a field mapping only where its condition holds, and several mappings of one key', () => {
    const parser = catalogue(`vendor: v
description: d
fields:
  misc:
    - { to: url, as: url, if: { kind: url } }
    - { to: file.name, if: { kind: [file, virus] } }
  who: [{ to: user, as: identity }, { to: source.user, as: identity }]
formats: [{ name: f, markers: ['kind='], start: '(?=kind=)', layout: kv }]
tests: [{ line: 'kind=url', expect: {} }]
`);
    expect(parser.parse('kind=url misc=www.example.com/a/b?c=1 who=CORP\\ann', ctx)).toMatchObject({ 'url.domain': 'www.example.com', 'url.path': '/a/b', 'url.query': 'c=1', 'user.name': 'ann', 'source.user.domain': 'CORP' });
    const file = parser.parse('kind=virus misc=setup.exe', ctx)!;
    expect(file['file.name']).toBe('setup.exe');
    expect(file['url.original']).toBeUndefined();
  });

  it('reads values with spaces up to a separator other than a space, quoted values as before', () => {
    const parser = catalogue(`vendor: v
description: d
formats: [{ name: f, markers: ['act='], start: '(?=act=)', layout: kv, kv: { separator: '|' }, fields: { product: observer.product, src: source.ip, msg: message } }]
tests: [{ line: 'act=1', expect: {} }]
`);
    expect(parser.parse('act=accept|product=VPN-1 & FireWall-1|msg="a|b"|src=10.0.0.1', ctx)).toMatchObject({ 'observer.product': 'VPN-1 & FireWall-1', message: 'a|b', 'source.ip': '10.0.0.1' });
  });

  it('splits CSV with quoted fields, doubled quotes and quotes inside bare fields, up to the fields it needs', () => {
    expect(csvFields('a,"b,c",,"say ""hi""",x"y', ',', 10)).toEqual(['a', 'b,c', '', 'say "hi"', 'x"y']);
    expect(csvFields('a,b,c,d', ',', 2)).toEqual(['a', 'b']);
    expect(csvFields('a,b,', ',', 5)).toEqual(['a', 'b', '']);
    expect(csvFields('"open,never closed', ',', 5)).toEqual(['open,never closed']);
    const started = performance.now();
    expect(csvFields(','.repeat(100_000), ',', 80)).toHaveLength(80);
    expect(csvFields('"'.repeat(100_001), ',', 80).length).toBeLessThan(80);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('takes any of several separator characters', () => {
    const parser = catalogue(`vendor: v
description: d
formats: [{ name: f, markers: ['act='], start: '(?=act=)', layout: kv, kv: { separator: ';,)' }, fields: { t: event.reason, src: source.ip, last: message } }]
tests: [{ line: 'act=1', expect: {} }]
`);
    expect(parser.parse('act=permit;t=2024/3/10 10:00:00, src=10.0.0.2,last=x y)', ctx)).toMatchObject({ 'event.reason': '2024/3/10 10:00:00', 'source.ip': '10.0.0.2', message: 'x y' });
  });

  it('takes the zone of an RFC 3339 header time for a device time written without one, and drops NAT to 0.0.0.0', () => {
    const parser = catalogue(`vendor: v
description: d
time: { from: [t] }
fields: { natsrc: source.nat.ip, natport: source.nat.port, src: source.ip }
formats: [{ name: f, markers: ['t='], start: '(?=t=)', layout: kv, kv: { separator: ',' } }]
tests: [{ line: 't=1', expect: {} }]
`);
    const fields = parser.parse('<14>1 2022-09-01T08:15:02+02:00 fw - - - - t="2022/09/01 08:15:02",src=10.0.0.1,natsrc=0.0.0.0,natport=0', ctx)!;
    expect(fields['@timestamp']).toBe('2022-09-01T06:15:02.000Z');
    expect(fields['source.nat.ip']).toBeUndefined();
    expect(fields['source.nat.port']).toBeUndefined();
  });
});

describe('device formats and text someone else wrote', () => {
  const ctx = { source: 'syslog', receivedAt: RECEIVED };

  it('reads a payload only right after the header, never from inside a message', () => {
    const hostile = 'Nov 22 06:01:02 srv sshd[4242]: Invalid user date=2026-01-01 time=10:00:00 logid="0100032002" type="event" subtype="system" srcip=9.9.9.9 action="login" status="success" from 203.0.113.7 port 4242';
    const { fields } = parseRaw(hostile, ctx);
    expect(fields['cairn.decoder'] ?? '').not.toMatch(/^fortinet\//);
    expect(fields['source.ip']).not.toBe('9.9.9.9');
  });

  it('refuses a line that has the markers but not the keys every line of the format has', () => {
    const { fields } = parseRaw('<13>date=2026-01-01 time=10:00:00 note=logid= srcip=9.9.9.9', ctx);
    expect(fields['cairn.decoder'] ?? '').not.toMatch(/^fortinet\//);
  });

  it('takes a relay header, a bare priority and an ISO time with a host as headers', () => {
    const payload = 'date=2026-04-02 time=17:31:09 logid="0100032002" type="event" subtype="system" srcip=172.16.1.2 action="login" status="failed"';
    for (const prefix of ['', '<189>', '2026-04-03T00:31:09.976660+00:00 192.168.2.1 ', 'Apr  3 00:31:09 relay1 Apr  3 00:31:09 fw1 ']) {
      const { fields } = parseRaw(prefix + payload, ctx);
      expect(fields['cairn.decoder'], prefix).toBe('fortinet/fortigate');
      expect(fields['source.ip'], prefix).toBe('172.16.1.2');
    }
  });
});

describe('device format layouts and value kinds', () => {
  const ctx = { source: 'test', receivedAt: RECEIVED };
  // One vendor file written for these tests: each format exercises one layout.
  const yaml = String.raw`
vendor: t
description: test formats
formats:
  - name: json
    markers: ['"kind"']
    start: '(?=\{)'
    layout: json
    unwrap: event
    require: { kind: t }
  - name: cef
    markers: ['CEF:0|T|']
    start: 'CEF:0\|T\|(?<cef_name>[^|]*)\|'
    layout: cef
  - name: text
    markers: ['TXT ']
    start: 'TXT '
    layout: text
    pairs: true
    messages:
      - { name: first, match: '^(?<verb>[a-z]+) {IP:peer}', continue: true }
      - { name: second, match: '\bport (?<peer_port>\d+)', continue: true }
      - { name: third, match: '\b(?<word>zzz)\b' }
      - { name: never, match: '\b(?<never>port)\b' }
  - name: tabs
    markers: ["\tb="]
    start: '(?=a=)'
    layout: kv
    kv: { separator: "\t" }
fields:
  src: source.ip
  n: labels.n
  ext_src: source.ip
  msg: message
  peer: source.ip
  peer_port: source.port
  code: [event.code, { to: event.action, map: { '7': seven } }]
  a: labels.a
  b: labels.b
  proto: { to: network.transport, as: transport }
  ep: { to: destination, as: endpoint }
  path: url.original
rules:
  - set: { event.category: [network], event.type: [info] }
  - if: { host: { present: true } }
    set: { url.original: 'http://$host$path' }
tests: [{ line: 'TXT x', expect: {} }]
`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
  fs.writeFileSync(path.join(dir, 't.yaml'), yaml);
  const catalogue = new DeviceCatalogue(loadVendors(dir));
  const read = (line: string) => catalogue.parse(line, ctx);

  it('json: nested keys by dotted names, an envelope key unwrapped, lists joined; not an object is not the format', () => {
    const fields = read('{"kind":"t","event":{"src":"192.0.2.1","n":[1,2],"code":7}}');
    expect(fields?.['source.ip']).toBe('192.0.2.1');
    expect(fields?.['labels.n']).toBe('1,2');
    expect(fields?.['event.code']).toBe('7');
    expect(read('{"kind":"t" broken')).toBeNull();
  });

  it('a record key may feed several fields, one through a table', () => {
    expect(read('{"kind":"t","code":"7"}')).toMatchObject({ 'event.code': '7', 'event.action': 'seven' });
    expect(read('{"kind":"t","code":"8"}')?.['event.action']).toBeUndefined();
  });

  it('cef: extension values run to the next key and unescape "\\="', () => {
    const fields = read('CEF:0|T|name|src=192.0.2.2 msg=two words a\\=b proto=TCP');
    expect(fields).toMatchObject({ 'source.ip': '192.0.2.2', message: 'two words a=b', 'network.transport': 'tcp' });
  });

  it('text: continued messages each add their captures, until one that does not continue', () => {
    const fields = read('TXT open 192.0.2.3 port 4242 zzz port b=x');
    expect(fields).toMatchObject({ 'source.ip': '192.0.2.3', 'source.port': 4242, 'labels.b': 'x' });
    expect(fields?.['cairn.decoder']).toBe('t/text');
  });

  it('kv with a separator other than a space keeps the spaces of a bare value', () => {
    expect(read('a=one two\tb=three')).toMatchObject({ 'labels.a': 'one two', 'labels.b': 'three' });
  });

  it('transport and application pairs, portless endpoints, URL templates', () => {
    expect(read('TXT x proto=tcp/http')).toMatchObject({ 'network.transport': 'tcp', 'network.protocol': 'http' });
    expect(read('TXT x proto=HTTP/tcp')).toMatchObject({ 'network.transport': 'tcp', 'network.protocol': 'http' });
    const numbered = read('TXT x proto=tcp/443');
    expect(numbered?.['network.transport']).toBe('tcp');
    expect(numbered?.['network.protocol']).toBeUndefined();
    const endpoint = read('TXT x ep=192.0.2.4::X1');
    expect(endpoint).toMatchObject({ 'destination.ip': '192.0.2.4', 'destination.interface.name': 'X1' });
    expect(endpoint?.['destination.port']).toBeUndefined();
    expect(read('TXT x host=www.example.com path=/a/b?c=d')).toMatchObject({ 'url.original': 'http://www.example.com/a/b?c=d', 'url.domain': 'www.example.com', 'url.path': '/a/b', 'url.query': 'c=d' });
  });
});

describe('device engine features, on a vendor file of their own', () => {
  const yaml = String.raw`
vendor: acme
description: a vendor file that uses each engine feature once
sources: [acme]
patterns:
  SIDE: '(?<iface>[^:]+):(?<addr>[^\s/]+)/(?<port>\d+)(?:\((?<who>[^)]*)\))?'
formats:
  - name: pairs
    markers: ['ACME-KV ']
    start: 'ACME-KV '
    layout: kv
    kv: { assign: ': ', separator: ',' }
    fields:
      Source IP: [source.ip, acme.source]
      Zone: observer.ingress.zone
    rules:
      - set: { event.category: [network], event.type: [info] }
  - name: text
    markers: ['ACME-TXT ']
    start: 'ACME-TXT '
    layout: text
    messages:
      - name: flow
        match: '^flow {SIDE:src} -> {SIDE:dst} took (?<took>\S+)(?: mac (?<mac>\S+))?'
        set: &flow { event.category: [network], event.type: [connection, end] }
      - name: other
        match: '^other'
        set: { <<: *flow, event.type: [info] }
    fields:
      src_addr: source.ip
      src_port: source.port
      src_who: { to: source, as: user_or_host }
      dst_addr: { to: destination.ip, as: ip }
      dst_who: { to: destination, as: user_or_host }
      took: { to: event.duration, as: duration_ended }
      mac: { to: source.mac, as: mac }
  - name: bare
    start: '^(?=ACME )'
    layout: text
    messages:
      - name: any
        match: '^ACME (?<word>\w+)'
    rules:
      - set: { event.category: [host], event.type: [info] }
tests: [{ line: 'ACME-TXT other', expect: {} }]
`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
  fs.writeFileSync(path.join(dir, 'acme.yaml'), yaml);
  const catalogue = new DeviceCatalogue(loadVendors(dir));
  const read = (line: string, source = 'syslog') => catalogue.parse(line, { source, receivedAt: RECEIVED });

  it('puts named pattern pieces in with their captures renamed per use, and reads the value kinds', () => {
    const fields = read('Mar  1 18:48:50 fw1 ACME-TXT flow in side:10.0.0.1/4000(CORP\\ann) -> out:198.51.100.9/443(www.example.com) took 1h:02m:03s mac 001e.0b80.13b5');
    expect(fields).toMatchObject({
      'source.ip': '10.0.0.1',
      'source.port': 4000,
      'source.user.name': 'ann',
      'source.user.domain': 'CORP',
      'destination.ip': '198.51.100.9',
      'destination.domain': 'www.example.com',
      'source.mac': '00-1E-0B-80-13-B5',
      'event.duration': 3723e9,
      'event.end': '2026-03-01T18:48:50.000Z',
      'event.start': '2026-03-01T17:46:47.000Z',
    });
    expect(fields).not.toHaveProperty('destination.user.name');
    // An address in the identity's place names no one; a name that is no IP is no destination.ip.
    expect(read('ACME-TXT flow a:10.0.0.1/1(10.0.0.7) -> b:pool-a/2')).not.toHaveProperty('source.user.name');
    expect(read('ACME-TXT flow a:10.0.0.1/1 -> b:pool-a/2')).not.toHaveProperty('destination.domain');
  });

  it('shares a set through a YAML merge key', () => {
    expect(read('ACME-TXT other')).toMatchObject({ 'event.category': ['network'], 'event.type': ['info'] });
  });

  it('reads comma-separated pairs whose keys hold spaces and whose values run to the separator, into several fields', () => {
    expect(read('ACME-KV Zone: Outside Zone, Source IP: 192.0.2.5 ,Other: x')).toMatchObject({ 'observer.ingress.zone': 'Outside Zone', 'source.ip': '192.0.2.5', 'acme.source': '192.0.2.5' });
  });

  it('tries a format without markers only for its vendor sources', () => {
    expect(read('ACME hello')).toBeNull();
    expect(read('ACME hello', 'acme')?.['cairn.decoder']).toBe('acme/bare');
  });

  it('refuses a pattern piece that would shadow a catalogue macro', () => {
    const shadow = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
    fs.writeFileSync(path.join(shadow, 'x.yaml'), yaml.replace('  SIDE:', '  IP:'));
    expect(() => loadVendors(shadow)).toThrow(/\{IP\} is a catalogue macro/);
  });
});

describe('device headers', () => {
  const ctx = { source: 'x', receivedAt: RECEIVED };
  it.each([
    ['<189>123: router1: *Mar  1 18:48:50.483 UTC: ', { '@timestamp': '2026-03-01T18:48:50.483Z', 'host.hostname': 'router1', 'log.syslog.priority': 189 }],
    ['000123: Mar  1 18:48:50.483: ', { '@timestamp': '2026-03-01T18:48:50.483Z' }],
    ['<189>387448: host-01: May 6 16:13:09.123 UTC+1: ', { '@timestamp': '2026-05-06T15:13:09.123Z', 'host.hostname': 'host-01' }],
    ['<190>3352436: 3352457: Aug 12 2023 12:14:24.412 mdt: ', { '@timestamp': '2023-08-12T18:14:24.412Z' }],
    ['<189>: 2024 Jan  6 20:52:12 UTC: ', { '@timestamp': '2024-01-06T20:52:12.000Z' }],
    ['<166>2024-06-26T01:35:42Z: ', { '@timestamp': '2024-06-26T01:35:42.000Z' }],
    ['<166>May 01 2026 09:24:32Z  ', { '@timestamp': '2026-05-01T09:24:32.000Z' }],
    ['Sep 25 15:47:07 relay.example.com : Sep 25 15:47:07 EDT: ', { '@timestamp': '2026-09-25T19:47:07.000Z', 'host.hostname': 'relay.example.com' }],
    ['<190>Oct 7 07:19:44 edge-mgmt RP/0/RP0/CPU0:Oct 7 07:19:43.630 UTC: ipv4_acl_mgr[310]: ', { '@timestamp': '2026-10-07T07:19:43.630Z', 'host.hostname': 'edge-mgmt', 'process.name': 'ipv4_acl_mgr', 'process.pid': 310 }],
    ['<166>:: ', { 'log.syslog.priority': 166 }],
    ['<29>Jun 11 08:20:41 gm01.corp.example 192.0.2.50 ', { '@timestamp': '2026-06-11T08:20:41.000Z', 'host.hostname': 'gm01.corp.example', 'host.ip': '192.0.2.50' }],
    ['<141>Jun 11 08:20:41  gm01.corp.example 2001:db8::50 ', { 'host.hostname': 'gm01.corp.example', 'host.ip': '2001:db8::50' }],
  ])('reads %s', (prefix, expected) => {
    expect(headerFields(prefix, ctx)).toMatchObject(expected);
  });

  it('takes a short word after the time that names no zone for a host, and text before a clock for no header', () => {
    expect(headerFields('Mar 12 08:23:00 fw:', ctx)).toMatchObject({ 'host.hostname': 'fw' });
    expect(headerFields('Nov 22 06:01:02 srv sshd[4242]: Failed password for Mar 12 2024 08:21:00:', ctx)).toBeNull();
  });
});

describe('device values', () => {
  it('decodes octal escapes, and leaves text without them or with other backslashes alone', () => {
    expect(unescapeOctal('Session\\040Expiration')).toBe('Session Expiration');
    expect(unescapeOctal('2001\\072db8\\072\\0721')).toBe('2001:db8::1');
    expect(unescapeOctal('DOMAIN\\user')).toBe('DOMAIN\\user');
    expect(unescapeOctal('plain')).toBe('plain');
  });
});
