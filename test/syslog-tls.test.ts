// Syslog over TLS (RFC 5425) from rsyslog with rsyslog-gnutls, presenting a
// client certificate that CAIRN_SYSLOG_TLS_CLIENT_CA checks; a sender
// without one is refused. The listener serves the TLS settings' active
// certificate and takes a newly activated one without a restart, as HTTPS
// does. The CA and certificates are made with the openssl CLI.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './helpers/buses.js';
import { startCairn, type CairnProcess } from './helpers/cairn-process.js';
import { startRsyslog, writeLines, type Rsyslog } from './helpers/rsyslog.js';
import { freePort } from './services/process.js';

let dir: string;
let cairn: CairnProcess;
let tlsPort: number;
const senders: Rsyslog[] = [];

/** A private CA; two server certificates for 127.0.0.1 and a client certificate, all signed by it. */
function makeCertificates(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=cairn syslog test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  const sign = (name: string, subject: string, extensions: string) => {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    fs.writeFileSync(path.join(dir, `${name}.cnf`), extensions);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.cnf`);
  };
  for (const server of ['server1', 'server2']) sign(server, `/CN=${server}.syslog.test`, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  sign('client', '/CN=sensor01.syslog.test', 'extendedKeyUsage=clientAuth\n');
}

const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

async function activate(server: string): Promise<void> {
  const form = new FormData();
  form.append('cert', new Blob([read(`${server}.pem`)]), 'cert.pem');
  form.append('key', new Blob([read(`${server}.key`)]), 'key.pem');
  form.append('activate', 'true');
  const res = await fetch(`${cairn.url}/api/v1/tls/certificates`, { method: 'POST', headers: { authorization: `Bearer ${cairn.token}` }, body: form });
  expect(res.status, await res.text()).toBe(201);
}

/** The certificate the listener serves, seen by a client presenting `client` (or none). */
function handshake(client?: string): Promise<{ subject: string; sent: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: tlsPort,
      ca: read('ca.pem'),
      ...(client ? { cert: read(`${client}.pem`), key: read(`${client}.key`) } : {}),
    });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const subject = new X509Certificate(socket.getPeerX509Certificate()!.raw).subject;
      resolve({
        subject,
        // TLS 1.3 tells a client its certificate was refused only after the handshake: on the first read or write.
        sent: () =>
          new Promise<void>((done, failed) => {
            socket.once('error', failed);
            socket.once('close', () => failed(new Error('closed by the server')));
            socket.write('<13>probe\n', () => setTimeout(() => (socket.end(), done()), 300));
          }),
      });
    });
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-syslog-tls-'));
  makeCertificates();
  tlsPort = await freePort();
  cairn = await startCairn({ CAIRN_SYSLOG_TLS_PORT: String(tlsPort), CAIRN_SYSLOG_TLS_CLIENT_CA: path.join(dir, 'ca.pem') });
  await activate('server1');
  await eventually(() => expect(cairn.output()).toContain('syslog TLS listening'), 30_000, 100);
}, 120_000);

afterAll(async () => {
  for (const sender of senders) await sender.stop();
  await cairn?.stop();
});

describe('syslog over TLS', () => {
  it('takes rsyslog (gnutls) with a client certificate; each line arrives searchable', async () => {
    const run = `tls${Date.now()}`;
    const file = writeLines(dir, 'app.log', Array.from({ length: 200 }, (_, i) => `${run} line ${i}`));
    senders.push(
      startRsyslog(`
global(DefaultNetstreamDriverCAFile="${dir}/ca.pem" DefaultNetstreamDriverCertFile="${dir}/client.pem" DefaultNetstreamDriverKeyFile="${dir}/client.key")
module(load="imfile")
input(type="imfile" File="${file}" Tag="tlstest:" ruleset="forward")
ruleset(name="forward") {
  action(type="omfwd" target="127.0.0.1" port="${tlsPort}" protocol="tcp" StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/certvalid"
         TCP_Framing="octet-counted" template="RSYSLOG_SyslogProtocol23Format" action.resumeRetryCount="-1" action.resumeInterval="1")
}
`),
    );
    await eventually(async () => expect((await cairn.search(run, 1)).total).toBe(200), 60_000, 250);
    const { artifacts } = await cairn.search(`"${run} line 42"`, 2);
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]!.raw).toMatch(new RegExp(`^<133>1 \\S+ \\S+ tlstest - - - ${run} line 42$`));
    expect(artifacts[0]!.source).toBe('syslog');
    expect(artifacts[0]!.metadata).toEqual({ 'syslog.sender': '127.0.0.1', 'syslog.listener': `tls/${tlsPort}` });
    expect(artifacts[0]!.timestamp).toBe(new Date(/^<133>1 (\S+)/.exec(artifacts[0]!.raw)![1]!).toISOString());
  }, 90_000);

  it('refuses a sender without a client certificate, and counts it', async () => {
    const failures = async () => (await cairn.get<{ ingest: { syslog: { refused: Record<string, number> } } }>('/api/v1/appliance/stats')).body.data.ingest.syslog.refused.tls_handshake_failed ?? 0;
    const before = await failures();
    await expect(handshake().then((c) => c.sent())).rejects.toThrow();
    await eventually(async () => expect(await failures()).toBe(before + 1), 10_000, 100);
    // The same with the client certificate goes through.
    await (await handshake('client')).sent();
  }, 30_000);

  it('serves a newly activated certificate without a restart', async () => {
    expect((await handshake('client')).subject).toContain('CN=server1.syslog.test');
    await activate('server2');
    // The listener looks at the active certificate every 5 s, as HTTPS does.
    await eventually(async () => expect((await handshake('client')).subject).toContain('CN=server2.syslog.test'), 15_000, 500);
  }, 30_000);
});
