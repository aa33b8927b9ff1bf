// Zeek's logs beyond dns.log, as JSON lines written for cairn from Zeek's
// documentation of each log's fields: one record per log, mapped field by
// field, then how the log is told (_path, the source, the fields), the forms
// records arrive in, and lines that are not Zeek's.
import { describe, expect, it } from 'vitest';
import { ecsViolations } from '../ecs-values.js';
import { parseRaw } from '../registry.js';
import type { EventFields, ParseContext } from '../types.js';
import { zeek } from './index.js';

const CTX: ParseContext = { source: 'zeek', receivedAt: Date.UTC(2025, 5, 1) };
const ID = '"uid":"CHhAvVGS1DHFjwGM9","id.orig_h":"192.0.2.10","id.orig_p":49152,"id.resp_h":"198.51.100.20","id.resp_p":';

/** One record of each log, as Zeek's JSON writer writes it. */
const LINES = {
  conn: `{"ts":1700000000.5,${ID}443,"proto":"tcp","service":"ssl","duration":2.25,"orig_bytes":517,"resp_bytes":4400,"conn_state":"SF","local_orig":true,"local_resp":false,"missed_bytes":0,"history":"ShADadFf","orig_pkts":12,"orig_ip_bytes":1153,"resp_pkts":10,"resp_ip_bytes":4932,"tunnel_parents":[],"community_id":"1:LQU9qZlK+B5F3KDmev6m5PMibrg="}`,
  connRejected: `{"ts":1700000001.0,${ID}23,"proto":"tcp","conn_state":"REJ","local_orig":false,"local_resp":false,"history":"Sr","orig_pkts":1,"orig_ip_bytes":44,"resp_pkts":1,"resp_ip_bytes":40}`,
  http: `{"ts":1700000002.25,${ID}80,"trans_depth":1,"method":"PUT","host":"files.example.com","uri":"/dav/report.exe?x=1","referrer":"http://files.example.com/","version":"1.1","user_agent":"Microsoft-WebDAV-MiniRedir/10.0.19045","request_body_len":73802,"response_body_len":0,"status_code":201,"status_msg":"Created","tags":[],"username":"alice","orig_fuids":["FbkDQc3ZhK4kRTnXG4"],"orig_mime_types":["application/x-dosexec"]}`,
  httpNotFound: `{"ts":1700000002.5,${ID}80,"trans_depth":2,"method":"GET","host":"files.example.com","uri":"/missing","version":"1.1","status_code":404,"status_msg":"Not Found"}`,
  ssl: `{"ts":1700000003.0,${ID}443,"version":"TLSv13","cipher":"TLS_AES_256_GCM_SHA384","curve":"x25519","server_name":"www.example.org","resumed":false,"established":true,"ssl_history":"CsiI","subject":"CN=www.example.org,O=Example\\\\, Inc.,C=US","issuer":"CN=Example CA,O=Example CA Ltd,C=GB","validation_status":"ok","ja3":"771,4865-4866,0-23,29-23,0"}`,
  x509: '{"ts":1700000003.1,"id":"FkB6vw1xPrC3ztJ1Bk","certificate.version":3,"certificate.serial":"8BB00EE","certificate.subject":"CN=Major Cobalt Strike,OU=AdvancedPenTesting,O=cobaltstrike,L=Somewhere,ST=Cyberspace,C=Earth","certificate.issuer":"CN=Major Cobalt Strike,O=cobaltstrike","certificate.not_valid_before":1431820800.0,"certificate.not_valid_after":1747440000.0,"certificate.key_alg":"rsaEncryption","certificate.sig_alg":"sha256WithRSAEncryption","certificate.key_type":"rsa","certificate.key_length":2048,"certificate.exponent":"65537","san.dns":["c2.example.net"]}',
  ssh: `{"ts":1700000004.0,${ID}22,"version":2,"auth_success":false,"auth_attempts":6,"direction":"INBOUND","client":"SSH-2.0-libssh_0.9.6","server":"SSH-2.0-OpenSSH_8.9p1","cipher_alg":"chacha20-poly1305@openssh.com","kex_alg":"curve25519-sha256","host_key_alg":"ssh-ed25519","host_key":"4d:1b:1e:6c:de:ad"}`,
  files: '{"ts":1700000005.0,"fuid":"FbkDQc3ZhK4kRTnXG4","uid":"CHhAvVGS1DHFjwGM9","id.orig_h":"192.0.2.10","id.orig_p":49152,"id.resp_h":"198.51.100.20","id.resp_p":80,"source":"HTTP","depth":0,"analyzers":["MD5","SHA1","PE"],"mime_type":"application/x-dosexec","filename":"report.exe","duration":0.01,"is_orig":true,"seen_bytes":73802,"total_bytes":73802,"missing_bytes":0,"overflow_bytes":0,"timedout":false,"md5":"0f343b0931126a20f133d67c2b018a3b","sha1":"2e5f9c1a2b7a5d4b8c3e8f5d9a0b1c2d3e4f5a6b"}',
  filesBeforeZeek5: '{"ts":1700000005.5,"fuid":"FJpXmZ1ba0pTt6dUy2","tx_hosts":["198.51.100.20"],"rx_hosts":["192.0.2.10"],"conn_uids":["CHhAvVGS1DHFjwGM9"],"source":"SSL","depth":0,"analyzers":["X509","MD5","SHA1"],"mime_type":"application/x-x509-user-cert","seen_bytes":1180,"md5":"aa7f4b9c1d2e3f405162738495a6b7c8"}',
  notice: '{"ts":1700000006.0,"note":"SSH::Password_Guessing","msg":"203.0.113.7 appears to be guessing SSH passwords (seen in 30 connections).","sub":"Sampled servers:  192.0.2.10","src":"203.0.113.7","peer_descr":"worker-1","actions":["Notice::ACTION_LOG"],"suppress_for":3600.0}',
  weird: `{"ts":1700000007.0,${ID}53,"name":"dns_unmatched_reply","notice":false,"peer":"worker-1","source":"DNS"}`,
  dceRpc: `{"ts":1700000008.0,${ID}445,"rtt":0.000912,"named_pipe":"\\\\pipe\\\\atsvc","endpoint":"atsvc","operation":"JobAdd"}`,
  smbFiles: `{"ts":1700000009.0,${ID}445,"fuid":"Fo4r2P1M0lPXZ0Xda6","action":"SMB::FILE_OPEN","path":"\\\\\\\\dc01\\\\ADMIN$","name":"PSEXESVC.exe","size":145568,"times.modified":1699999000.0,"times.accessed":1699999000.0,"times.created":1699999000.0,"times.changed":1699999000.0}`,
  smbMapping: `{"ts":1700000009.5,${ID}445,"path":"\\\\\\\\dc01\\\\IPC$","share_type":"PIPE"}`,
  kerberos: `{"ts":1700000010.0,${ID}88,"request_type":"TGS","client":"alice/CORP.EXAMPLE","service":"MSSQLSvc/sql01.corp.example:1433","success":true,"till":2136422885.0,"cipher":"rc4-hmac","forwardable":true,"renewable":true}`,
  kerberosFailed: `{"ts":1700000010.5,${ID}88,"request_type":"AS","client":"bob/CORP.EXAMPLE","service":"krbtgt/CORP.EXAMPLE","success":false,"error_msg":"KDC_ERR_PREAUTH_FAILED"}`,
  ntlm: `{"ts":1700000011.0,${ID}445,"username":"alice","hostname":"WS042","domainname":"CORP","server_nb_computer_name":"DC01","server_dns_computer_name":"dc01.corp.example","server_tree_name":"corp.example","success":true}`,
  rdp: `{"ts":1700000012.0,${ID}3389,"cookie":"alice","result":"encrypted","security_protocol":"HYBRID","cert_count":0,"ssl":true}`,
  dhcp: '{"ts":1700000013.0,"uids":["C6Tt1Y3xBHOCBeJDSa","CKeXg52sa2CH2d5WT3"],"client_addr":"192.0.2.77","server_addr":"192.0.2.1","mac":"00:0c:29:03:df:ad","host_name":"ws077","domain":"corp.example","assigned_addr":"192.0.2.77","lease_time":86400.0,"msg_types":["REQUEST","ACK"],"duration":0.000161}',
} as const;

function parse(line: string, ctx: ParseContext = CTX): EventFields {
  const fields = zeek.parse(line, ctx);
  if (!fields) throw new Error(`not read as Zeek: ${line}`);
  return fields;
}

const CONNECTION = { 'source.ip': '192.0.2.10', 'source.port': 49152, 'destination.ip': '198.51.100.20', 'zeek.session_id': 'CHhAvVGS1DHFjwGM9', 'event.id': 'CHhAvVGS1DHFjwGM9' };

describe('zeek logs', () => {
  it('conn.log: volumes per side, the state in words, the direction, Community ID', () => {
    expect(parse(LINES.conn)).toEqual({
      ...CONNECTION,
      '@timestamp': '2023-11-14T22:13:20.500Z',
      'event.kind': 'event',
      'event.module': 'zeek',
      'event.dataset': 'zeek.connection',
      'event.category': ['network'],
      'event.type': ['connection', 'start', 'end'],
      'event.duration': 2_250_000_000,
      'destination.port': 443,
      'network.transport': 'tcp',
      'network.protocol': 'ssl',
      'network.community_id': '1:LQU9qZlK+B5F3KDmev6m5PMibrg=',
      'network.direction': 'outbound',
      'network.bytes': 6085,
      'network.packets': 22,
      'source.bytes': 1153,
      'source.packets': 12,
      'destination.bytes': 4932,
      'destination.packets': 10,
      'zeek.connection.state_message': 'Normal establishment and termination.',
      'zeek.connection.conn_state': 'SF',
      'zeek.connection.orig_bytes': 517,
      'zeek.connection.resp_bytes': 4400,
      'zeek.connection.local_orig': true,
      'zeek.connection.local_resp': false,
      'zeek.connection.missed_bytes': 0,
      'zeek.connection.history': 'ShADadFf',
      'zeek.connection.duration': 2.25,
      'zeek.connection.service': 'ssl',
    });
  });

  it('conn.log: a rejected attempt is denied and a failure, between two outside hosts', () => {
    expect(parse(LINES.connRejected)).toMatchObject({ 'event.type': ['connection', 'start', 'denied'], 'event.outcome': 'failure', 'network.direction': 'external', 'destination.port': 23 });
  });

  it('http.log: method, URL parts, user agent, status and outcome, the basic-auth user', () => {
    expect(parse(LINES.http)).toMatchObject({
      'event.dataset': 'zeek.http',
      'event.category': ['network', 'web'],
      'event.type': ['connection', 'protocol', 'info'],
      'event.action': 'PUT',
      'event.outcome': 'success',
      'http.request.method': 'PUT',
      'http.response.status_code': 201,
      'http.request.body.bytes': 73802,
      'http.response.body.bytes': 0,
      'http.request.referrer': 'http://files.example.com/',
      'http.version': '1.1',
      'url.domain': 'files.example.com',
      'url.original': '/dav/report.exe?x=1',
      'url.path': '/dav/report.exe',
      'url.query': 'x=1',
      'user_agent.original': 'Microsoft-WebDAV-MiniRedir/10.0.19045',
      'user.name': 'alice',
      'network.transport': 'tcp',
      'zeek.http.status_msg': 'Created',
      'zeek.http.orig_mime_types': ['application/x-dosexec'],
    });
    expect(parse(LINES.httpNotFound)).toMatchObject({ 'event.outcome': 'failure', 'http.response.status_code': 404 });
  });

  it('ssl.log: TLS version and cipher, SNI, the certificate names read into their parts, JA3', () => {
    expect(parse(LINES.ssl)).toMatchObject({
      'event.dataset': 'zeek.ssl',
      'event.type': ['connection', 'protocol'],
      'tls.version': '1.3',
      'tls.version_protocol': 'tls',
      'tls.cipher': 'TLS_AES_256_GCM_SHA384',
      'tls.curve': 'x25519',
      'tls.client.server_name': 'www.example.org',
      'tls.established': true,
      'tls.resumed': false,
      'tls.server.subject': 'CN=www.example.org,O=Example\\, Inc.,C=US',
      'tls.server.x509.subject.common_name': 'www.example.org',
      'tls.server.x509.subject.organization': 'Example, Inc.',
      'tls.server.x509.issuer.country': 'GB',
      'tls.client.ja3': '771,4865-4866,0-23,29-23,0',
      'zeek.ssl.validation_status': 'ok',
      'zeek.ssl.ssl_history': 'CsiI',
    });
  });

  it('x509.log: the certificate into file.x509, named by its file id', () => {
    const fields = parse(LINES.x509);
    expect(fields).toMatchObject({
      'event.dataset': 'zeek.x509',
      'event.type': ['info'],
      'event.id': 'FkB6vw1xPrC3ztJ1Bk',
      'file.x509.serial_number': '8BB00EE',
      'file.x509.version_number': '3',
      'file.x509.subject.common_name': 'Major Cobalt Strike',
      'file.x509.subject.organizational_unit': 'AdvancedPenTesting',
      'file.x509.issuer.organization': 'cobaltstrike',
      'file.x509.not_before': '2015-05-17T00:00:00.000Z',
      'file.x509.not_after': '2025-05-17T00:00:00.000Z',
      'file.x509.public_key_size': 2048,
      'file.x509.public_key_exponent': 65537,
      'file.x509.alternative_names': ['c2.example.net'],
      'zeek.x509.certificate.key_type': 'rsa',
    });
    expect(fields).not.toHaveProperty(['event.category']);
  });

  it('ssh.log: a failed login is a failure, the direction lower-case', () => {
    expect(parse(LINES.ssh)).toMatchObject({
      'event.dataset': 'zeek.ssh',
      'network.protocol': 'ssh',
      'event.outcome': 'failure',
      'network.direction': 'inbound',
      'zeek.ssh.auth_attempts': 6,
      'zeek.ssh.client': 'SSH-2.0-libssh_0.9.6',
    });
  });

  it('files.log: the file and its hashes; before Zeek 5, the hosts that sent and received it', () => {
    expect(parse(LINES.files)).toMatchObject({
      'event.dataset': 'zeek.files',
      'event.category': ['file'],
      'file.name': 'report.exe',
      'file.mime_type': 'application/x-dosexec',
      'file.size': 73802,
      'file.hash.md5': '0f343b0931126a20f133d67c2b018a3b',
      'source.ip': '192.0.2.10',
      'zeek.files.fuid': 'FbkDQc3ZhK4kRTnXG4',
      'zeek.files.analyzers': ['MD5', 'SHA1', 'PE'],
    });
    expect(parse(LINES.filesBeforeZeek5)).toMatchObject({ 'server.ip': '198.51.100.20', 'client.ip': '192.0.2.10', 'zeek.session_id': 'CHhAvVGS1DHFjwGM9' });
  });

  it('notice.log: an alert named by its note, the addresses from src', () => {
    expect(parse(LINES.notice)).toMatchObject({
      'event.kind': 'alert',
      'event.dataset': 'zeek.notice',
      'event.category': ['intrusion_detection'],
      'event.type': ['info'],
      'rule.name': 'SSH::Password_Guessing',
      'rule.description': '203.0.113.7 appears to be guessing SSH passwords (seen in 30 connections).',
      'source.ip': '203.0.113.7',
      'zeek.notice.sub': 'Sampled servers:  192.0.2.10',
    });
  });

  it('weird.log, dce_rpc.log, smb_files.log, smb_mapping.log: Zeek names kept for rules', () => {
    expect(parse(LINES.weird)).toMatchObject({ 'event.dataset': 'zeek.weird', 'event.type': ['info'], 'zeek.weird.name': 'dns_unmatched_reply', 'zeek.weird.notice': false });
    expect(parse(LINES.dceRpc)).toMatchObject({
      'event.dataset': 'zeek.dce_rpc',
      'event.action': 'JobAdd',
      'network.protocol': 'dce_rpc',
      'network.transport': 'tcp',
      'zeek.dce_rpc.endpoint': 'atsvc',
      'zeek.dce_rpc.operation': 'JobAdd',
      'zeek.dce_rpc.named_pipe': '\\pipe\\atsvc',
    });
    expect(parse(LINES.smbFiles)).toMatchObject({
      'event.category': ['network', 'file'],
      'event.action': 'SMB::FILE_OPEN',
      'file.name': 'PSEXESVC.exe',
      'file.path': '\\\\dc01\\ADMIN$\\PSEXESVC.exe',
      'file.size': 145568,
      'file.mtime': '2023-11-14T21:56:40.000Z',
      'zeek.smb_files.path': '\\\\dc01\\ADMIN$',
      'zeek.smb_files.name': 'PSEXESVC.exe',
      'zeek.smb_files.action': 'SMB::FILE_OPEN',
    });
    expect(parse(LINES.smbMapping)).toMatchObject({ 'event.dataset': 'zeek.smb_mapping', 'network.protocol': 'smb', 'zeek.smb_mapping.share_type': 'PIPE' });
  });

  it('kerberos.log and ntlm.log: the client is the user, success the outcome', () => {
    expect(parse(LINES.kerberos)).toMatchObject({
      'event.category': ['network', 'authentication'],
      'event.action': 'TGS',
      'event.outcome': 'success',
      'user.name': 'alice',
      'user.domain': 'CORP.EXAMPLE',
      'zeek.kerberos.cipher': 'rc4-hmac',
      'zeek.kerberos.service': 'MSSQLSvc/sql01.corp.example:1433',
    });
    expect(parse(LINES.kerberos)).not.toHaveProperty(['network.transport']);
    expect(parse(LINES.kerberosFailed)).toMatchObject({ 'event.action': 'AS', 'event.outcome': 'failure', 'zeek.kerberos.error_msg': 'KDC_ERR_PREAUTH_FAILED' });
    expect(parse(LINES.ntlm)).toMatchObject({ 'event.dataset': 'zeek.ntlm', 'user.name': 'alice', 'user.domain': 'CORP', 'event.outcome': 'success', 'zeek.ntlm.hostname': 'WS042' });
  });

  it('rdp.log and dhcp.log', () => {
    expect(parse(LINES.rdp)).toMatchObject({ 'event.dataset': 'zeek.rdp', 'event.type': ['protocol', 'info'], 'tls.established': true, 'zeek.rdp.cookie': 'alice', 'zeek.rdp.security_protocol': 'HYBRID' });
    expect(parse(LINES.dhcp)).toMatchObject({
      'event.dataset': 'zeek.dhcp',
      'source.ip': '192.0.2.77',
      'source.port': 68,
      'destination.ip': '192.0.2.1',
      'destination.port': 67,
      'network.transport': 'udp',
      'source.mac': '00-0C-29-03-DF-AD',
      'zeek.session_id': ['C6Tt1Y3xBHOCBeJDSa', 'CKeXg52sa2CH2d5WT3'],
      'zeek.dhcp.assigned_addr': '192.0.2.77',
      'zeek.dhcp.msg_types': ['REQUEST', 'ACK'],
    });
  });

  it('writes every record with ECS categorisation values and the parser conventions', () => {
    for (const [name, line] of Object.entries(LINES)) {
      const fields = parse(line);
      expect(ecsViolations(fields), name).toEqual([]);
      expect(fields['@timestamp'], name).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      for (const [field, value] of Object.entries(fields)) {
        expect(value, `${name} ${field}`).not.toBe('');
        if (field.endsWith('.port')) expect(typeof value, `${name} ${field}`).toBe('number');
      }
    }
  });
});

describe('which log a record is', () => {
  it('takes _path, then the fields, then the log the source names', () => {
    const weirdByPath = `{"_path":"weird","ts":1700000007.0,${ID}53,"name":"x"}`;
    expect(parse(weirdByPath)['event.dataset']).toBe('zeek.weird');
    // A record whose fields name no log of Zeek's defaults: the source says it is an smb_mapping record.
    const sparse = `{"ts":1700000009.5,${ID}445,"path":"\\\\\\\\dc01\\\\C$"}`;
    expect(parse(sparse)['event.dataset']).toBe('zeek.other');
    expect(parse(sparse, { ...CTX, source: 'zeek_smb_mapping' })['event.dataset']).toBe('zeek.smb_mapping');
    // The fields win over a source that names another log.
    expect(parse(LINES.http, { ...CTX, source: 'zeek.conn' })['event.dataset']).toBe('zeek.http');
  });

  it('reads sip.log and smtp.log records as connections, not as http.log', () => {
    const sip = `{"ts":1700000014.0,${ID}5060,"trans_depth":0,"method":"REGISTER","uri":"sip:example.com","call_id":"abc@192.0.2.10","status_code":200}`;
    expect(parse(sip)).toMatchObject({ 'event.dataset': 'zeek.other', 'event.category': ['network'], 'zeek.other.method': 'REGISTER' });
  });

  it('reads the connection id nested by a shipper, and a Zeek line exported from Splunk', () => {
    const nested = '{"ts":1700000000.5,"uid":"CHhAvVGS1DHFjwGM9","id":{"orig_h":"192.0.2.10","orig_p":49152,"resp_h":"198.51.100.20","resp_p":445},"endpoint":"svcctl","operation":"CreateServiceW"}';
    expect(parse(nested)).toMatchObject({ 'source.ip': '192.0.2.10', 'destination.port': 445, 'zeek.dce_rpc.operation': 'CreateServiceW' });
    const splunk = JSON.stringify({ preview: false, offset: 0, result: { _raw: LINES.rdp, host: 'sensor-1', sourcetype: 'bro:rdp:json' } });
    expect(parse(splunk)).toMatchObject({ 'event.dataset': 'zeek.rdp', 'source.ip': '192.0.2.10' });
  });

  it('is chosen by content and for the zeek source; other JSON and text are left alone', () => {
    expect(parseRaw(LINES.kerberos, { ...CTX, source: 'sensor-9' }).parser).toBe('zeek');
    expect(parseRaw(LINES.conn, { ...CTX, source: 'bro' }).parser).toBe('zeek');
    expect(zeek.parse('{"ts":1700000000,"level":"info","msg":"started"}', CTX)).toBeNull();
    expect(zeek.parse('{"ts":1700000000,"uid":"u-1","action":"login"}', CTX)).toBeNull();
    expect(zeek.parse('#fields\tts\tuid\tid.orig_h', CTX)).toBeNull();
    expect(zeek.detect('Nov 23 11:00:01 host sshd[1]: Accepted password for bob')).toBe(false);
  });

  it('throws for a broken Zeek line and a record whose ts is no time', () => {
    expect(() => zeek.parse(LINES.conn.slice(0, 80), CTX)).toThrow(/broken Zeek JSON/);
    expect(() => zeek.parse(LINES.weird.replace('1700000007.0', '"soon"'), CTX)).toThrow(/bad ts/);
  });
});
