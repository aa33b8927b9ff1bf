// An OpenLDAP server for tests: the local Debian `slapd` binary (packages
// slapd and ldap-utils), one throw-away instance per call, so each test file
// gets its own directory contents and can stop its server to test outages.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import { freePort, spawnLogged, stopProcess, waitFor } from './process.js';

export interface RunningSlapd {
  /** ldap://127.0.0.1:<port> */
  url: string;
  /** ldaps://127.0.0.1:<port>, only when started with `tls`. */
  ldapsUrl?: string;
  baseDn: string;
  adminDn: string;
  adminPassword: string;
  stop(): Promise<void>;
}

export interface SlapdOptions {
  /** PEM files for StartTLS on `url` and for an extra ldaps:// listener. */
  tls?: { certFile: string; keyFile: string };
}

const BASE_DN = 'dc=cairn,dc=test';

// Non-root PATHs usually lack /usr/sbin, where Debian puts slapd and slapadd.
function sbin(command: string): string {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'];
  const found = dirs.find((dir) => dir && fs.existsSync(path.join(dir, command)));
  if (!found) throw new Error(`LDAP tests need ${command} (apt-get install slapd ldap-utils)`);
  return path.join(found, command);
}

async function slapdAnswers(url: string, adminDn: string, adminPassword: string): Promise<void> {
  const client = new Client({ url, connectTimeout: 1000, timeout: 1000 });
  try {
    await client.bind(adminDn, adminPassword);
  } finally {
    await client.unbind().catch(() => {});
  }
}

/**
 * Starts slapd with `seedLdif` loaded. The helper creates the base entry
 * (dc=cairn,dc=test) itself; the LDIF holds the entries under it. The
 * memberof overlay is loaded, so `memberOf` is a known attribute: seed it
 * explicitly on users (slapadd bypasses overlays), while groups added over
 * LDAP after start get it maintained by the overlay. Anonymous clients can
 * only bind; any bound DN can read everything but passwords.
 */
export async function startSlapd(seedLdif: string, options: SlapdOptions = {}): Promise<RunningSlapd> {
  const slapd = sbin('slapd');
  const slapadd = sbin('slapadd');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-slapd-'));
  try {
    const adminDn = `cn=admin,${BASE_DN}`;
    const adminPassword = crypto.randomBytes(12).toString('hex');
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(dataDir);
    const conf = path.join(dir, 'slapd.conf');
    fs.writeFileSync(
      conf,
      [
        ...['core', 'cosine', 'nis', 'inetorgperson'].map((schema) => `include /etc/ldap/schema/${schema}.schema`),
        'modulepath /usr/lib/ldap',
        'moduleload back_mdb',
        'moduleload memberof',
        `pidfile ${path.join(dir, 'slapd.pid')}`,
        `argsfile ${path.join(dir, 'slapd.args')}`,
        ...(options.tls ? [`TLSCertificateFile ${options.tls.certFile}`, `TLSCertificateKeyFile ${options.tls.keyFile}`] : []),
        'database mdb',
        `suffix "${BASE_DN}"`,
        `rootdn "${adminDn}"`,
        `rootpw ${adminPassword}`,
        `directory ${dataDir}`,
        'maxsize 16777216',
        // As on a real directory: anonymous clients may only bind, so a
        // search that works proves the service account's bind was used.
        'access to attrs=userPassword by self write by anonymous auth by * none',
        'access to * by users read by * none',
        'overlay memberof',
        '',
      ].join('\n'),
    );
    const seed = path.join(dir, 'seed.ldif');
    fs.writeFileSync(seed, `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\ndc: cairn\no: cairn\n\n${seedLdif.trim()}\n`);
    try {
      execFileSync(slapadd, ['-f', conf, '-l', seed], { stdio: 'pipe' });
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new Error(`slapadd rejected the seed LDIF: ${stderr.trim() || (err as Error).message}`);
    }

    const port = await freePort();
    const url = `ldap://127.0.0.1:${port}`;
    const ldapsUrl = options.tls ? `ldaps://127.0.0.1:${await freePort()}` : undefined;
    const logFile = path.join(dir, 'slapd.log');
    // -d keeps slapd in the foreground (it forks away otherwise), so the pid
    // we hold is the server's and stopProcess can end it.
    const child = spawnLogged(slapd, ['-f', conf, '-h', [url, ldapsUrl].filter(Boolean).map((u) => `${u}/`).join(' '), '-d', '0'], logFile);
    try {
      await waitFor('slapd', () => slapdAnswers(url, adminDn, adminPassword), 15_000, child, logFile);
    } catch (err) {
      await stopProcess(child);
      throw err;
    }
    return {
      url,
      ...(ldapsUrl ? { ldapsUrl } : {}),
      baseDn: BASE_DN,
      adminDn,
      adminPassword,
      async stop() {
        await stopProcess(child);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
