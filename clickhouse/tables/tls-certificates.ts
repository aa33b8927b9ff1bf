// The tls_certificates table: certificates for the HTTPS listener, with the
// chain as uploaded and the private key sealed (callers seal it before it
// gets here and open it only to serve it; see ops/tls/).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export interface StoredCertificate {
  id: string;
  org_id: string;
  subject: string;
  sans: string[];
  issuer: string;
  serial: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
  chain_pem: string;
  /** Sealed with the master key; never answered, never logged. */
  key_sealed: string;
  active: boolean;
  activated_at: string | null;
  created_at: string;
  created_by: string;
}

const CertificateRow = z.object({
  id: z.string(),
  org_id: z.string(),
  subject: z.string(),
  sans: z.array(z.string()),
  issuer: z.string(),
  serial: z.string(),
  fingerprint_sha256: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  chain_pem: z.string(),
  key_sealed: z.string(),
  active: z.boolean(),
  activated_at: z.string().nullable(),
  created_at: z.string(),
  created_by: z.string(),
});

const COLUMNS = 'id, org_id, subject, sans, issuer, serial, fingerprint_sha256, not_before, not_after, chain_pem, key_sealed, active, activated_at, created_at, created_by';

function fromRow(row: unknown): StoredCertificate {
  const r = CertificateRow.parse(row);
  return {
    ...r,
    not_before: toIsoTimestamp(r.not_before),
    not_after: toIsoTimestamp(r.not_after),
    activated_at: r.activated_at ? toIsoTimestamp(r.activated_at) : null,
    created_at: toIsoTimestamp(r.created_at),
  };
}

function rowOf(cert: StoredCertificate, isDeleted: boolean) {
  return { ...cert, version: nextVersion(), is_deleted: isDeleted ? 1 : 0 };
}

export async function saveCertificate(store: Store, cert: StoredCertificate): Promise<void> {
  await store.insert({ table: 'tls_certificates', format: 'JSONEachRow', values: [rowOf(cert, false)] });
}

export async function deleteCertificate(store: Store, cert: StoredCertificate): Promise<void> {
  await store.insert({ table: 'tls_certificates', format: 'JSONEachRow', values: [rowOf({ ...cert, active: false }, true)] });
}

/**
 * Makes `cert` the active certificate of its organization and clears the flag
 * on the others, in one insert. Should two activations race, both rows may
 * end up flagged; activeCertificate then serves the later one.
 */
export async function activateCertificate(store: Store, cert: StoredCertificate, at = new Date()): Promise<StoredCertificate> {
  const activated = { ...cert, active: true, activated_at: at.toISOString() };
  const others = (await flaggedActive(store, cert.org_id)).filter((c) => c.id !== cert.id);
  await store.insert({ table: 'tls_certificates', format: 'JSONEachRow', values: [rowOf(activated, false), ...others.map((c) => rowOf({ ...c, active: false }, false))] });
  return activated;
}

async function flaggedActive(store: Store, orgId: string): Promise<StoredCertificate[]> {
  const params = new SqlParams();
  const query = `SELECT ${COLUMNS} FROM tls_certificates FINAL WHERE org_id = ${params.add(orgId, 'String')} AND active ORDER BY activated_at DESC, id DESC`;
  return (await queryRows(store, query, params)).map(fromRow);
}

/** The certificate an organization serves: the most recently activated of those flagged active. */
export async function activeCertificate(store: Store, orgId: string): Promise<StoredCertificate | null> {
  return (await flaggedActive(store, orgId))[0] ?? null;
}

export async function getCertificate(store: Store, orgId: string, id: string): Promise<StoredCertificate | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM tls_certificates FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')}`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function findCertificateByFingerprint(store: Store, orgId: string, fingerprint: string): Promise<StoredCertificate | null> {
  const params = new SqlParams();
  const query = `SELECT ${COLUMNS} FROM tls_certificates FINAL WHERE org_id = ${params.add(orgId, 'String')} AND fingerprint_sha256 = ${params.add(fingerprint, 'String')} LIMIT 1`;
  const rows = await queryRows(store, query, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Newest first. */
export async function listCertificates(store: Store, orgId: string, page: Page): Promise<{ certificates: StoredCertificate[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM tls_certificates FINAL WHERE org_id = ${params.add(orgId, 'String')}`,
    params,
    orderBy: 'created_at DESC, id DESC',
    page,
  });
  return { certificates: rows.map(fromRow), total };
}

/** Certificates of every organization whose validity ends before `before` (the expiry check). */
export async function certificatesExpiringBefore(store: Store, before: Date): Promise<StoredCertificate[]> {
  const params = new SqlParams();
  const query = `SELECT ${COLUMNS} FROM tls_certificates FINAL WHERE not_after < ${params.add(toClickHouseTime(before.toISOString()), "DateTime64(3, 'UTC')")} ORDER BY org_id, not_after`;
  return (await queryRows(store, query, params)).map(fromRow);
}
