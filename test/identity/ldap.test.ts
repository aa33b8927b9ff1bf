// LDAP login and the settings page's connection test against a real slapd
// (Debian packages slapd and ldap-utils), including StartTLS and ldaps://
// with a private CA made by the openssl CLI.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeFilterValue, ldapLogin, testLdap, userFilterFor, type LdapConfig, type LdapIdentity, type LdapLoginResult } from '../../identity/ldap.js';
import { freePort } from '../services/process.js';
import { startSlapd, type RunningSlapd } from '../services/slapd.js';

const PEOPLE = 'ou=people,dc=cairn,dc=test';
const GROUPS = 'ou=groups,dc=cairn,dc=test';
const SERVICE_DN = 'cn=cairn-svc,ou=services,dc=cairn,dc=test';
const SERVICE_PASSWORD = 'svc-Secret-1';
const ALICE_PASSWORD = 'alice-Secret-1';
const BOB_PASSWORD = 'bob-Secret-1';
const ALICE_DN = `uid=alice,${PEOPLE}`;
const ANALYSTS = `cn=analysts,${GROUPS}`;

function person(dn: string, attributes: Record<string, string>): string {
  const lines = Object.entries(attributes).map(([key, value]) =>
    // LDIF wants base64 (key:: value) for anything that is not plain ASCII.
    /^[\x20-\x7e]*$/.test(value) ? `${key}: ${value}` : `${key}:: ${Buffer.from(value).toString('base64')}`,
  );
  return [`dn: ${dn}`, 'objectClass: inetOrgPerson', ...lines].join('\n');
}

const SEED = [
  `dn: ou=people,dc=cairn,dc=test\nobjectClass: organizationalUnit\nou: people`,
  `dn: ou=others,dc=cairn,dc=test\nobjectClass: organizationalUnit\nou: others`,
  `dn: ${GROUPS}\nobjectClass: organizationalUnit\nou: groups`,
  `dn: ou=services,dc=cairn,dc=test\nobjectClass: organizationalUnit\nou: services`,
  `dn: ${SERVICE_DN}\nobjectClass: applicationProcess\nobjectClass: simpleSecurityObject\ncn: cairn-svc\nuserPassword: ${SERVICE_PASSWORD}`,
  // slapadd bypasses the memberof overlay, so alice's memberOf is seeded by hand.
  `${person(ALICE_DN, { uid: 'alice', cn: 'Alice Analyst', sn: 'Analyst', mail: 'alice@example.com', userPassword: ALICE_PASSWORD })}\nmemberOf: ${ANALYSTS}`,
  person(`uid=bob,${PEOPLE}`, { uid: 'bob', cn: 'Bob Builder', sn: 'Builder', mail: 'bob@example.com', userPassword: BOB_PASSWORD }),
  person(`uid=dave,${PEOPLE}`, { uid: 'dave', cn: 'Dave', sn: 'NoMail', userPassword: 'dave-Secret-1' }),
  person(`uid=erin@example.com,${PEOPLE}`, { uid: 'erin@example.com', cn: 'Erin', sn: 'NoMail', userPassword: 'erin-Secret-1' }),
  person(`uid=j\\C3\\BCrgen,${PEOPLE}`, { uid: 'jürgen', cn: 'Jürgen Größe', sn: 'Größe', mail: 'juergen@example.com', userPassword: 'jürgen-Secret-1' }),
  // A comma inside an RDN value: the DN reaches group filters with a backslash.
  person(`cn=Smith\\, Pat,${PEOPLE}`, { uid: 'pat', cn: 'Smith, Pat', sn: 'Smith', mail: 'pat@example.com', userPassword: 'pat-Secret-1' }),
  person(`uid=twin,${PEOPLE}`, { uid: 'twin', cn: 'Twin One', sn: 'One', mail: 'twin1@example.com', userPassword: 'twin-Secret-1' }),
  person(`uid=twin,ou=others,dc=cairn,dc=test`, { uid: 'twin', cn: 'Twin Two', sn: 'Two', mail: 'twin2@example.com', userPassword: 'twin-Secret-1' }),
  `dn: ${ANALYSTS}\nobjectClass: groupOfNames\ncn: analysts\nmember: ${ALICE_DN}`,
  `dn: cn=auditors,${GROUPS}\nobjectClass: groupOfUniqueNames\ncn: auditors\nuniqueMember: ${ALICE_DN}\nuniqueMember: cn=Smith\\, Pat,${PEOPLE}`,
  `dn: cn=ops,${GROUPS}\nobjectClass: posixGroup\ncn: ops\ngidNumber: 5000\nmemberUid: alice`,
].join('\n\n');

let slapd: RunningSlapd;
let tlsDir: string;
let caPem: string;

function config(overrides: Partial<LdapConfig> = {}): LdapConfig {
  return {
    serverUrl: slapd.url,
    bindDn: SERVICE_DN,
    bindPassword: SERVICE_PASSWORD,
    searchBase: PEOPLE,
    userFilter: '(uid=%s)',
    startTls: false,
    tlsRejectUnauthorized: true,
    emailAttribute: 'mail',
    nameAttribute: 'cn',
    groupAttribute: 'memberOf',
    timeoutMs: 3000,
    ...overrides,
  };
}

function expectFailure(result: LdapLoginResult, reason: string): string {
  expect(result.ok, JSON.stringify(result)).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.reason, result.detail).toBe(reason);
  return result.detail;
}

function identityOf(result: LdapLoginResult): LdapIdentity {
  expect(result.ok, JSON.stringify(result)).toBe(true);
  if (!result.ok) throw new Error('unreachable');
  return result.identity;
}

/** A private CA and a server certificate for 127.0.0.1 signed by it. */
function makeCertificates(dir: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=cairn test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
}

beforeAll(async () => {
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-ldap-tls-'));
  makeCertificates(tlsDir);
  caPem = fs.readFileSync(path.join(tlsDir, 'ca.pem'), 'utf8');
  slapd = await startSlapd(SEED, { tls: { certFile: path.join(tlsDir, 'server.pem'), keyFile: path.join(tlsDir, 'server.key') } });
});

afterAll(async () => {
  await slapd?.stop();
  if (tlsDir) fs.rmSync(tlsDir, { recursive: true, force: true });
});

describe('escapeFilterValue and userFilterFor', () => {
  it('escapes the RFC 4515 specials and non-ASCII bytes, and nothing else', () => {
    expect(escapeFilterValue('alice.smith-2@example.com')).toBe('alice.smith-2@example.com');
    expect(escapeFilterValue('*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue('a\\b')).toBe('a\\5cb');
    expect(escapeFilterValue('a\u0000b')).toBe('a\\00b');
    expect(escapeFilterValue('jürgen')).toBe('j\\c3\\bcrgen');
    expect(escapeFilterValue('€')).toBe('\\e2\\82\\ac');
    expect(escapeFilterValue('')).toBe('');
  });

  it('replaces every %s, and `$` patterns in the name stay literal', () => {
    expect(userFilterFor('(|(uid=%s)(mail=%s))', 'a*')).toBe('(|(uid=a\\2a)(mail=a\\2a))');
    expect(userFilterFor('(uid=%s)', "$&$'")).toBe("(uid=$&$')");
  });
});

describe('ldapLogin', () => {
  it('logs alice in with her DN, email, name and memberOf groups (lower-cased)', async () => {
    const result = await ldapLogin(config(), 'alice', ALICE_PASSWORD);
    expect(result).toEqual({
      ok: true,
      identity: { dn: ALICE_DN, email: 'alice@example.com', name: 'Alice Analyst', groups: [ANALYSTS] },
    });
  });

  it('adds groupOfNames, groupOfUniqueNames and posixGroup groups from groupSearchBase, once each', async () => {
    const { groups } = identityOf(await ldapLogin(config({ groupSearchBase: GROUPS }), 'alice', ALICE_PASSWORD));
    expect([...groups].sort()).toEqual([ANALYSTS, `cn=auditors,${GROUPS}`, `cn=ops,${GROUPS}`]);
  });

  it('logs bob in with no groups', async () => {
    const result = await ldapLogin(config({ groupSearchBase: GROUPS }), 'bob', BOB_PASSWORD);
    expect(result).toEqual({ ok: true, identity: { dn: `uid=bob,${PEOPLE}`, email: 'bob@example.com', name: 'Bob Builder', groups: [] } });
  });

  it('reads memberOf that the overlay maintains for a group added at run time', async () => {
    const admin = new Client({ url: slapd.url });
    const responders = `cn=Responders,${GROUPS}`;
    try {
      await admin.bind(slapd.adminDn, slapd.adminPassword);
      await admin.add(responders, { objectClass: 'groupOfNames', cn: 'Responders', member: `uid=bob,${PEOPLE}` });
      expect(identityOf(await ldapLogin(config(), 'bob', BOB_PASSWORD)).groups).toEqual([responders.toLowerCase()]);
    } finally {
      await admin.del(responders).catch(() => {});
      await admin.unbind();
    }
  });

  it('matches a group member whose DN has an escaped comma', async () => {
    expect(identityOf(await ldapLogin(config({ groupSearchBase: GROUPS }), 'pat', 'pat-Secret-1'))).toMatchObject({ name: 'Smith, Pat', groups: [`cn=auditors,${GROUPS}`] });
  });

  it('finds and binds a user whose name is not ASCII (escaped bytes survive ldapts)', async () => {
    expect(identityOf(await ldapLogin(config(), 'jürgen', 'jürgen-Secret-1'))).toMatchObject({ email: 'juergen@example.com', name: 'Jürgen Größe' });
  });

  it('refuses a wrong password as invalid_credentials without echoing it', async () => {
    const result = await ldapLogin(config(), 'alice', 'not-Her-Password');
    const detail = expectFailure(result, 'invalid_credentials');
    expect(detail).toContain(ALICE_DN);
    expect(JSON.stringify(result)).not.toContain('not-Her-Password');
  });

  it('refuses an unknown user as invalid_credentials', async () => {
    expect(expectFailure(await ldapLogin(config(), 'mallory', 'whatever-1'), 'invalid_credentials')).toContain('no entry matches');
  });

  it('refuses a name that matches two entries, saying so only in the detail', async () => {
    expect(expectFailure(await ldapLogin(config({ searchBase: 'dc=cairn,dc=test' }), 'twin', 'twin-Secret-1'), 'invalid_credentials')).toContain(
      'more than one entry',
    );
  });

  it('treats filter syntax in the user name as plain text', async () => {
    // Unescaped, `alic*` would select alice and this password would log in.
    expect(expectFailure(await ldapLogin(config(), 'alic*', ALICE_PASSWORD), 'invalid_credentials')).toContain('(uid=alic\\2a)');
    expect(expectFailure(await ldapLogin(config(), '*)(uid=*', ALICE_PASSWORD), 'invalid_credentials')).toContain('no entry matches');
    expect(expectFailure(await ldapLogin(config(), '*', ALICE_PASSWORD), 'invalid_credentials')).toContain('no entry matches');
    expect(expectFailure(await ldapLogin(config(), 'alice)(|(uid=*', ALICE_PASSWORD), 'invalid_credentials')).toContain('no entry matches');
  });

  it('refuses an empty password or user name before contacting the server', async () => {
    const down = config({ serverUrl: `ldap://127.0.0.1:${await freePort()}` });
    expect(expectFailure(await ldapLogin(down, 'alice', ''), 'invalid_credentials')).toBe('empty password refused');
    expect(expectFailure(await ldapLogin(down, '', ALICE_PASSWORD), 'invalid_credentials')).toBe('empty user name');
    expect(expectFailure(await ldapLogin(down, '   ', ALICE_PASSWORD), 'invalid_credentials')).toBe('empty user name');
  });

  it('uses the user name as email when the entry has none and the name is an address', async () => {
    expect(identityOf(await ldapLogin(config(), 'erin@example.com', 'erin-Secret-1')).email).toBe('erin@example.com');
  });

  it('reports misconfigured when there is no email to use', async () => {
    expect(expectFailure(await ldapLogin(config(), 'dave', 'dave-Secret-1'), 'misconfigured')).toContain('has no mail');
  });

  it('reports a refused service account, a missing %s and a bad search base as misconfigured', async () => {
    const refused = await ldapLogin(config({ bindPassword: 'wrong-Service-pw' }), 'alice', ALICE_PASSWORD);
    expect(expectFailure(refused, 'misconfigured')).toContain('service account was refused');
    expect(JSON.stringify(refused)).not.toMatch(/wrong-Service-pw|alice-Secret/);
    expect(expectFailure(await ldapLogin(config({ userFilter: '(uid=alice)' }), 'alice', ALICE_PASSWORD), 'misconfigured')).toContain('no %s');
    expect(expectFailure(await ldapLogin(config({ userFilter: '(uid=%s' }), 'alice', ALICE_PASSWORD), 'misconfigured')).toContain('invalid LDAP filter (uid=alice');
    expect(expectFailure(await ldapLogin(config({ searchBase: 'ou=nowhere,dc=cairn,dc=test' }), 'alice', ALICE_PASSWORD), 'misconfigured')).toContain(
      'no such object',
    );
  });

  it('reports unavailable when nothing listens on the port', async () => {
    const port = await freePort();
    expect(expectFailure(await ldapLogin(config({ serverUrl: `ldap://127.0.0.1:${port}` }), 'alice', ALICE_PASSWORD), 'unavailable')).toContain(
      'ECONNREFUSED',
    );
    // localhost can resolve to ::1 and 127.0.0.1; Node then fails with an
    // AggregateError whose own message is empty.
    expect(expectFailure(await ldapLogin(config({ serverUrl: `ldap://localhost:${port}` }), 'alice', ALICE_PASSWORD), 'unavailable')).toContain(
      'ECONNREFUSED',
    );
  });

  it('reports unavailable once the server has stopped', async () => {
    const doomed = await startSlapd(SEED);
    const settings = config({ serverUrl: doomed.url });
    try {
      expect(identityOf(await ldapLogin(settings, 'alice', ALICE_PASSWORD)).dn).toBe(ALICE_DN);
    } finally {
      await doomed.stop();
    }
    expectFailure(await ldapLogin(settings, 'alice', ALICE_PASSWORD), 'unavailable');
  });

  it('gives up after timeoutMs on a server that accepts but never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const detail = expectFailure(await ldapLogin(config({ serverUrl: `ldap://127.0.0.1:${port}`, timeoutMs: 300 }), 'alice', ALICE_PASSWORD), 'unavailable');
      expect(detail).toContain('timed out');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('logs in over StartTLS and over ldaps:// when given the private CA', async () => {
    expect(identityOf(await ldapLogin(config({ startTls: true, caCertificate: caPem }), 'alice', ALICE_PASSWORD)).dn).toBe(ALICE_DN);
    expect(identityOf(await ldapLogin(config({ serverUrl: slapd.ldapsUrl!, caCertificate: caPem }), 'alice', ALICE_PASSWORD)).dn).toBe(ALICE_DN);
  });

  it('refuses a certificate it cannot verify unless told not to', async () => {
    expect(expectFailure(await ldapLogin(config({ startTls: true }), 'alice', ALICE_PASSWORD), 'unavailable')).toMatch(/certificate/i);
    expect(expectFailure(await ldapLogin(config({ serverUrl: slapd.ldapsUrl! }), 'alice', ALICE_PASSWORD), 'unavailable')).toMatch(/certificate/i);
    expect(identityOf(await ldapLogin(config({ startTls: true, tlsRejectUnauthorized: false }), 'alice', ALICE_PASSWORD)).dn).toBe(ALICE_DN);
  });
});

describe('testLdap', () => {
  it('passes all three steps with good settings, with and without a user name', async () => {
    const base = await testLdap(config());
    expect(base.success).toBe(true);
    expect(base.steps.map((s) => [s.name, s.passed])).toEqual([
      ['connect', true],
      ['service_bind', true],
      ['search', true],
    ]);
    expect(base.steps[2]!.message).toBe(`${PEOPLE} answers searches`);
    const withUser = await testLdap(config({ startTls: true, caCertificate: caPem }), 'alice');
    expect(withUser.success).toBe(true);
    expect(withUser.steps[0]!.message).toContain('StartTLS');
    expect(withUser.steps[2]!.message).toContain(`found 1 entry: ${ALICE_DN}`);
    const ldaps = await testLdap(config({ serverUrl: slapd.ldapsUrl!, caCertificate: caPem }), 'alice');
    expect(ldaps.success).toBe(true);
    expect(ldaps.steps[0]!.message).toBe(`connected to ${slapd.ldapsUrl} over TLS`);
  });

  it('fails the search step when the user name does not find exactly one entry', async () => {
    const result = await testLdap(config(), 'mallory');
    expect(result.success).toBe(false);
    expect(result.steps[2]).toEqual({ name: 'search', passed: false, message: `(uid=mallory) under ${PEOPLE} found no entry; login needs exactly one` });
  });

  it('fails service_bind on a wrong bind password and does not run the search', async () => {
    const result = await testLdap(config({ bindPassword: 'wrong-Service-pw' }), 'alice');
    expect(result.success).toBe(false);
    expect(result.steps).toEqual([
      { name: 'connect', passed: true, message: `connected to ${slapd.url}` },
      { name: 'service_bind', passed: false, message: 'invalid credentials (LDAP result 49)' },
      { name: 'search', passed: false, message: 'not run: service_bind failed' },
    ]);
  });

  it('fails connect on a bad URL, an unused port or an unverifiable certificate', async () => {
    for (const serverUrl of ['http://127.0.0.1:389', 'not a url']) {
      const result = await testLdap(config({ serverUrl }));
      expect(result.success).toBe(false);
      expect(result.steps[0]).toMatchObject({ name: 'connect', passed: false });
      expect(result.steps[0]!.message).toContain(serverUrl);
      expect(result.steps.slice(1)).toEqual([
        { name: 'service_bind', passed: false, message: 'not run: connect failed' },
        { name: 'search', passed: false, message: 'not run: connect failed' },
      ]);
    }
    const refused = await testLdap(config({ serverUrl: `ldap://127.0.0.1:${await freePort()}` }));
    expect(refused.steps[0]!.message).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    const refusedTls = await testLdap(config({ serverUrl: `ldaps://127.0.0.1:${await freePort()}`, caCertificate: caPem }));
    expect(refusedTls.steps[0]!.message).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    for (const untrustedConfig of [config({ startTls: true }), config({ serverUrl: slapd.ldapsUrl! })]) {
      const untrusted = await testLdap(untrustedConfig);
      expect(untrusted.steps[0]).toMatchObject({ passed: false, message: expect.stringMatching(/certificate/i) });
      expect(untrusted.steps[0]!.message).not.toContain('\n');
    }
  });

  it('fails the search step on a search base that does not exist or a broken user filter', async () => {
    const result = await testLdap(config({ searchBase: 'ou=nowhere,dc=cairn,dc=test' }));
    expect(result.steps.map((s) => s.passed)).toEqual([true, true, false]);
    expect(result.steps[2]!.message).toContain('no such object (LDAP result 32)');
    const noPlaceholder = await testLdap(config({ userFilter: '(objectClass=inetOrgPerson)' }));
    expect(noPlaceholder.steps[2]).toEqual({ name: 'search', passed: false, message: 'user filter (objectClass=inetOrgPerson) has no %s for the user name' });
  });
});
