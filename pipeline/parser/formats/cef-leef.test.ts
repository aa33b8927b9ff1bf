// CEF and LEEF on lines written in each format, escaping and hostile input included.
import { describe, expect, it } from 'vitest';
import type { ParseContext } from '../types.js';
import { cef, parseExtension } from './cef.js';
import { leef } from './leef.js';
import { ecsViolations } from '../ecs-values.js';

const ctx: ParseContext = { source: 'firewall', receivedAt: Date.UTC(2026, 10, 23) };

describe('CEF', () => {
  it('maps the header and the dictionary keys to ECS', () => {
    const f = cef.parse('CEF:0|Acme|NGFW|7.1|4002|Blocked inbound connection|8|src=203.0.113.5 spt=4444 dst=10.0.0.8 dpt=22 proto=TCP suser=bob act=blocked outcome=failure rt=1795400000000 cs1Label=zone cs1=dmz deviceExternalId=FW-01 customThing=x', ctx)!;
    expect(f).toMatchObject({
      'observer.vendor': 'Acme',
      'observer.product': 'NGFW',
      'observer.version': '7.1',
      'event.code': '4002',
      'rule.name': 'Blocked inbound connection',
      'event.severity': 8,
      'source.ip': '203.0.113.5',
      'source.port': 4444,
      'destination.ip': '10.0.0.8',
      'destination.port': 22,
      'network.transport': 'tcp',
      'user.name': 'bob',
      'event.action': 'blocked',
      'event.outcome': 'failure',
      '@timestamp': '2026-11-23T02:13:20.000Z',
      'cef.extensions.zone': 'dmz',
      'observer.serial_number': 'FW-01',
      'cef.extensions.customThing': 'x',
    });
  });

  it('reads escaped pipes and backslashes in header fields', () => {
    expect(cef.parse('CEF:0|V|P|1|id|Name with \\| pipe and \\\\ slash|5|src=203.0.113.6', ctx)).toMatchObject({ 'rule.name': 'Name with | pipe and \\ slash', 'source.ip': '203.0.113.6' });
  });

  it('keeps values with spaces and escapes', () => {
    expect(Object.fromEntries(parseExtension('msg=disk full on /var request=http://x.example/?a\\=1 cs2=C:\\\\temp note=line1\\nline2'))).toEqual({
      msg: 'disk full on /var',
      request: 'http://x.example/?a=1',
      cs2: 'C:\\temp',
      note: 'line1\nline2',
    });
    const f = cef.parse('CEF:1|Ven\\|dor|Pro\\\\duct|2.0|100|Login failed|Low|suser=ann src=198.51.100.7 outcome=Failure msg=bad password for ann', ctx)!;
    expect(f).toMatchObject({ 'observer.vendor': 'Ven|dor', 'observer.product': 'Pro\\duct', 'event.severity': 3, 'event.outcome': 'failure', message: 'bad password for ann' });
  });

  it('reads the syslog header in front', () => {
    const f = cef.parse('<134>Nov 22 06:01:02 waf01 CEF:0|Vendor|WAF|1|942100|SQL injection|9|src=203.0.113.9 request=/login?id=1 OR 1=1 requestMethod=GET rt=Nov 22 2026 06:01:02 UTC', ctx)!;
    expect(f).toMatchObject({ 'host.hostname': 'waf01', 'log.syslog.priority': 134, 'source.ip': '203.0.113.9', 'url.original': '/login?id=1 OR 1=1', 'http.request.method': 'GET', '@timestamp': '2026-11-22T06:01:02.000Z' });
  });

  it('refuses broken headers with an error and ignores what is not CEF', () => {
    expect(() => cef.parse('CEF:0|only|three', ctx)).toThrow(/7 pipe-separated fields/);
    expect(() => cef.parse('CEF:x|a|b|c|d|e|f|', ctx)).toThrow(/version/);
    expect(cef.parse('the word XCEF:0 inside', ctx)).toBeNull();
    const long = `CEF:0|a|b|c|d|e|5|msg=${'x'.repeat(200_000)}`;
    expect(cef.parse(long, ctx)!.message).toBe('x'.repeat(200_000));
  });
});

describe('LEEF', () => {
  it('reads LEEF 1.0 with tabs and maps the predefined keys', () => {
    const f = leef.parse('LEEF:1.0|Acme|IPS|3.2|Deny|src=203.0.113.10\tdst=10.0.0.5\tsrcPort=51000\tdstPort=443\tusrName=carol\tsev=7\tproto=TCP\tdevTime=Nov 22 2026 06:01:02\tdevTimeFormat=MMM dd yyyy HH:mm:ss\taction=blocked\tcustomKey=v', ctx)!;
    expect(f).toMatchObject({ 'observer.vendor': 'Acme', 'event.code': 'Deny', 'source.ip': '203.0.113.10', 'source.port': 51000, 'user.name': 'carol', 'event.severity': 7, '@timestamp': '2026-11-22T06:01:02.000Z', 'event.outcome': 'failure', 'leef.customKey': 'v' });
  });

  it('reads LEEF 2.0 with a declared delimiter, as a character or in hex', () => {
    expect(leef.parse('LEEF:2.0|Acme|App|1|login|^|src=203.0.113.11^usrName=dan^action=success', ctx)).toMatchObject({ 'source.ip': '203.0.113.11', 'user.name': 'dan', 'event.outcome': 'success' });
    expect(leef.parse('LEEF:2.0|Acme|App|1|login|x7C|src=203.0.113.12|usrName=eve', ctx)).toMatchObject({ 'source.ip': '203.0.113.12', 'user.name': 'eve' });
  });

  it('reads a syslog header in front and refuses a bad version or delimiter', () => {
    expect(leef.parse('<13>Nov 22 06:01:02 qr1 LEEF:1.0|V|P|1|E|src=198.51.100.1', ctx)).toMatchObject({ 'host.hostname': 'qr1', 'source.ip': '198.51.100.1' });
    expect(() => leef.parse('LEEF:3.0|V|P|1|E|src=1.2.3.4', ctx)).toThrow(/version/);
    expect(() => leef.parse('LEEF:2.0|V|P|1|E|abc|src=1.2.3.4', ctx)).toThrow(/delimiter/);
  });
});

describe('CEF and LEEF events are categorised from what the device says', () => {
  const cases: [string, Record<string, unknown>][] = [
    [
      '<164>Mar 10 09:12:00 nx01 CEF:0|FireEye|MPS|9.0.3.936|MC|malware-callback|9|requestClientApplication=Mozilla/5.0 cn1Label=vlan cn1=0 cn2Label=sid cn2=84012345 proto=tcp spt=49721 smac=00:50:56:a1:b2:c3 src=192.0.2.44 dpt=80 dst=203.0.113.45 dhost=update.bad.example cs1Label=sname cs1=Trojan.Generic.CallHome act=notified request=/gate.php',
      { 'event.kind': 'alert', 'event.category': ['malware'], 'event.type': ['info'], 'source.ip': '192.0.2.44', 'destination.ip': '203.0.113.45' },
    ],
    [
      'LEEF:1.0|FireEye|MPS|9.0.3.936|infection-match|sev=8\tsrc=192.0.2.46\tdst=203.0.113.47\tdstPort=443\tproto=tcp',
      { 'event.kind': 'alert', 'event.category': ['malware'] },
    ],
    [
      'CEF:0|FireEye|CMS|9.0.3|DM|domain-match|4|src=192.0.2.48 dst=198.51.100.53 dhost=odd.example',
      { 'event.kind': 'alert', 'event.category': ['malware'] },
    ],
    [
      '<13>Mar 10 09:13:00 epo01 CEF:0|McAfee|Endpoint Security|10.7.0|1092|Access Protection rule violation detected and blocked|8|src=192.0.2.50 shost=WS-050 suser=CORP\\\\kim act=blocked fname=C:\\\\Windows\\\\System32\\\\cmd.exe',
      { 'event.kind': 'alert', 'event.category': ['intrusion_detection', 'network'], 'event.type': ['denied'], 'event.outcome': 'failure' },
    ],
    [
      'CEF:0|McAfee|ePolicy Orchestrator|5.10.0|1027|Infected file deleted|8|src=192.0.2.51 suser=ana fname=eicar.com act=deleted',
      { 'event.kind': 'alert', 'event.category': ['malware'] },
    ],
    [
      'LEEF:1.0|Panda Security|paps|02.47.00.0000|ProcessOps|sev=1\tdevTime=2026-03-10 09:14:00.000\tdevTimeFormat=yyyy-MM-dd HH:mm:ss.SSS\tusrName=CORP\\lee\tdomain=CORP\tidentHostName=WS-052\tsrc=192.0.2.52',
      { 'event.kind': 'event', 'event.category': ['process'], 'event.type': ['start'], 'user.name': 'CORP\\lee' },
    ],
    [
      'LEEF:1.0|Panda Security|paps|02.47.00.0000|Socket|sev=1\tsrc=192.0.2.53\tdst=203.0.113.54\tdstPort=443\tproto=TCP',
      { 'event.category': ['network'], 'event.type': ['connection'] },
    ],
    [
      'CEF:0|KasperskyLab|SecurityCenter|14.2.0.26967|GNRL_EV_VIRUS_FOUND|Virus found|4|msg=Result: Detected: EICAR-Test-File\\nObject: C:\\\\Users\\\\ana\\\\eicar.com rt=1773130000000 dhost=WS-055 dst=192.0.2.55 cs2Label=KLCSAK_EVENT_TASK_DISPLAY_NAME cs2=File Threat Protection',
      { 'event.kind': 'alert', 'event.category': ['malware'] },
    ],
    [
      'CEF:0|KasperskyLab|SecurityCenter|14.2.0.26967|KLSRV_EV_LICENSE_CHECK_90|License expires soon|1|dhost=KSC01',
      { 'event.kind': 'event', 'event.category': ['host'], 'event.type': ['info'] },
    ],
    [
      'CEF:0|Trend Micro|Deep Security Agent|20.0.0|1008610|Block Administrative Share|6|cn1=12 cn1Label=Host ID dvchost=web01 act=Reset src=203.0.113.56 dst=192.0.2.57 spt=51000 dpt=445 proto=TCP cat=Intrusion Prevention',
      { 'event.kind': 'alert', 'event.category': ['intrusion_detection', 'network'], 'event.type': ['denied'] },
    ],
    [
      "CEF:0|sophos|sophos central|1.0|Event::Endpoint::Threat::Detected|Malware detected: 'EICAR-AV-Test' at 'C:\\\\Users\\\\ana\\\\eicar.com'|1|rt=2026-03-10T09:15:00.000Z dhost=WS-058 suser=CORP\\\\ana",
      { 'event.kind': 'alert', 'event.category': ['malware'] },
    ],
    [
      'CEF:0|sophos|sophos central|1.0|Event::Endpoint::UserAutoCreated|New user created: CORP\\\\bo|1|dhost=WS-059',
      { 'event.category': ['iam'], 'event.type': ['user', 'creation'] },
    ],
    [
      'CEF:0|Acme|SSO|2.1|100|User login failed|5|suser=bob src=203.0.113.60 outcome=failure',
      { 'event.category': ['authentication'], 'event.type': ['start'], 'event.outcome': 'failure' },
    ],
    [
      'CEF:0|Acme|Gizmo|1.0|4711|Something unusual|3|src=203.0.113.61 dst=192.0.2.62',
      { 'event.category': ['network'], 'event.type': ['info'] },
    ],
    ['CEF:0|Acme|Gizmo|1.0|4712|Heartbeat|1|', { 'event.category': ['host'], 'event.type': ['info'] }],
  ];
  it.each(cases)('%s', (line, expected) => {
    const f = (line.includes('CEF:') ? cef : leef).parse(line, ctx)!;
    expect(f).toMatchObject(expected);
    expect(ecsViolations(f)).toEqual([]);
    expect(f['event.category']).toBeDefined();
    expect(f['event.type']).toBeDefined();
  });
});
