// TLS certificates (SPEC 4.11, 2.13; docs/tls.md): upload a certificate and
// its key (multipart), list, delete, activate (a cairn extension), and the
// HTTPS status of the process that answers. The key is sealed under
// CAIRN_MASTER_KEY before it is stored and never leaves the server again:
// no answer, audit entry, event or log line holds it.
import type { Context } from 'koa';
import { z } from 'zod';
import { newId } from '../../lib/ids.js';
import {
  activateCertificate,
  activeCertificate,
  deleteCertificate,
  findCertificateByFingerprint,
  getCertificate,
  listCertificates,
  saveCertificate,
  type StoredCertificate,
} from '../../clickhouse/tables/tls-certificates.js';
import { CertificateProblem, checkCertificatePair, daysToExpiry, type CheckedPair } from '../../ops/tls/certificate.js';
import { httpsServing, MIN_TLS_VERSION, POLL_MS, refreshHttpsListeners } from '../../ops/tls/listener.js';
import { MAX_PART_BYTES, readCertificateUpload, UploadError, type CertificateUpload } from '../../ops/tls/upload.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, codeForStatus, HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { raiseConfigChanged } from '../system-events.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

const DaysToExpiry = z.number().int().describe('whole days until not_after, rounded down; negative once expired');

const CertificateSchema = z.object({
  id: z.string(),
  subject: z.string().describe('subject of the leaf certificate, e.g. "CN=cairn.example.com, O=Example"'),
  sans: z.array(z.string()).describe('subject alternative names of the leaf, each with its kind: "DNS:cairn.example.com", "IP Address:10.0.0.5"'),
  issuer: z.string().describe('issuer of the leaf (the subject again for a self-signed certificate)'),
  serial: z.string().describe('serial number of the leaf, hexadecimal'),
  fingerprint_sha256: z.string().describe('SHA-256 of the leaf in DER form, colon-separated upper-case hex'),
  not_before: Timestamp.describe('start of the leaf\'s validity'),
  not_after: Timestamp.describe('end of the leaf\'s validity'),
  days_to_expiry: DaysToExpiry,
  chain_length: z.number().int().describe('certificates stored and served: the leaf and the intermediates uploaded after it'),
  active: z.boolean().describe('whether HTTPS serves this certificate (at most one per organization)'),
  activated_at: Timestamp.nullable().describe('when it was last activated; null if never'),
  created_at: Timestamp,
  created_by: z.string().describe('who uploaded it: the user\'s email, or the token subject'),
});
type PublicCertificate = z.input<typeof CertificateSchema>;

const StatusSchema = z.object({
  https_enabled: z.boolean().describe('whether the API process that answered serves HTTPS now (CAIRN_TLS_PORT is set and a certificate is active)'),
  port: z.number().int().nullable().describe('the port that process serves HTTPS on; null while it does not'),
  active_certificate: z
    .object({ id: z.string(), subject: z.string(), not_after: Timestamp, days_to_expiry: DaysToExpiry })
    .nullable()
    .describe('the organization\'s active certificate; null when none is active'),
  served_certificate_id: z
    .string()
    .nullable()
    .describe(`the certificate that process presents to new connections; after an activation made through another process it follows active_certificate within ${POLL_MS / 1000} s`),
  min_tls_version: z.literal(MIN_TLS_VERSION).describe('the oldest TLS version the listener accepts'),
});

/** Never holds the key or the chain: what answers and the audit log show. */
function publicCertificate(cert: StoredCertificate, active: boolean, now = new Date()): PublicCertificate {
  return {
    id: cert.id,
    subject: cert.subject,
    sans: cert.sans,
    issuer: cert.issuer,
    serial: cert.serial,
    fingerprint_sha256: cert.fingerprint_sha256,
    not_before: cert.not_before,
    not_after: cert.not_after,
    days_to_expiry: daysToExpiry(cert.not_after, now),
    chain_length: (cert.chain_pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length,
    active,
    activated_at: cert.activated_at,
    created_at: cert.created_at,
    created_by: cert.created_by,
  };
}

async function readUpload(ctx: Context): Promise<CertificateUpload> {
  try {
    return await readCertificateUpload(ctx.req);
  } catch (err) {
    if (err instanceof UploadError) throw new HttpError(err.status, codeForStatus(err.status), err.message);
    throw err;
  }
}

function checked(upload: CertificateUpload): CheckedPair {
  try {
    return checkCertificatePair(upload.cert, upload.key);
  } catch (err) {
    if (err instanceof CertificateProblem) throw badRequest(err.message);
    throw err;
  }
}

async function findCertificate(deps: ApiDeps, orgId: string, id: string): Promise<StoredCertificate> {
  const cert = await getCertificate(deps.store, orgId, id);
  if (!cert) throw notFound('TLS certificate');
  return cert;
}

/**
 * Whether the organization's active certificate is (or is about to be) what
 * HTTPS serves: this process serves it, or CAIRN_TLS_PORT is set, so API
 * processes serve the deployment organization's certificate.
 */
function httpsServedFor(deps: ApiDeps, orgId: string): boolean {
  return httpsServing(orgId) !== null || (deps.config.operations.tlsPort !== undefined && orgId === deps.config.orgId);
}

const certificateDetails = (cert: StoredCertificate) => ({ certificate_id: cert.id, subject: cert.subject, fingerprint_sha256: cert.fingerprint_sha256 });

export const tlsRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/tls/certificates',
    summary: 'List the stored TLS certificates, newest first (never their keys)',
    tag: 'TLS',
    permission: 'settings:read',
    query: Pagination,
    response: listData('certificates', CertificateSchema),
    async handler({ query, auth, deps }) {
      const [{ certificates, total }, active] = await Promise.all([listCertificates(deps.store, auth.orgId, query), activeCertificate(deps.store, auth.orgId)]);
      const now = new Date();
      return {
        message: `${total} certificate(s)`,
        data: { certificates: certificates.map((c) => publicCertificate(c, c.id === active?.id, now)), total, limit: query.limit, offset: query.offset },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/tls/certificates',
    summary: 'Upload a TLS certificate and its private key (multipart/form-data: parts cert and key, optional field activate)',
    description:
      `multipart/form-data with the parts \`cert\` (PEM: the leaf certificate first, then its intermediates, each issued by the next) and \`key\` (PEM private key, unencrypted: PKCS#8, PKCS#1 or SEC1), each at most ${MAX_PART_BYTES / 1024} KiB (413 past it); ` +
      'optional field `activate` (true or false; default true when no certificate is active). Refused with 400: a cert part that is not PEM X.509 or whose chain is out of order, ' +
      'a leaf (or intermediate) that is expired or not yet valid, a key that is not a PEM private key or does not match the leaf. Another content type is 415; a certificate already stored is 409. ' +
      'The key is sealed with CAIRN_MASTER_KEY and never answered. Example: curl -F cert=@fullchain.pem -F key=@privkey.pem -F activate=true -H "Authorization: Bearer $TOKEN" .../api/v1/tls/certificates',
    tag: 'TLS',
    permission: 'settings:manage',
    multipart: {
      parts: {
        cert: 'PEM certificate file: the leaf first, then its intermediates',
        key: 'PEM private key file (unencrypted), matching the leaf',
        activate: 'true or false (default true when no certificate is active)',
      },
      required: ['cert', 'key'],
    },
    response: CertificateSchema,
    successStatus: 201,
    errors: [409, 413, 415, 503],
    async handler({ auth, deps, ctx }) {
      const upload = await readUpload(ctx);
      const pair = checked(upload);
      const existing = await findCertificateByFingerprint(deps.store, auth.orgId, pair.fingerprint_sha256);
      if (existing) throw new HttpError(409, 'conflict', `this certificate is already stored, as ${existing.id}${existing.active ? ' (the active one)' : `; activate it with PUT /api/v1/tls/certificates/${existing.id}/activate`}`);
      const current = await activeCertificate(deps.store, auth.orgId);
      const activate = upload.activate ?? current === null;
      const { key_pem: keyPem, ...fields } = pair;
      const stored: StoredCertificate = {
        ...fields,
        id: newId(),
        org_id: auth.orgId,
        key_sealed: deps.identity.box.seal(keyPem),
        active: false,
        activated_at: null,
        created_at: new Date().toISOString(),
        created_by: auth.email ?? auth.subject,
      };
      let cert = stored;
      if (activate) {
        cert = await activateCertificate(deps.store, stored);
        await refreshHttpsListeners();
      } else {
        await saveCertificate(deps.store, stored);
      }
      await raiseConfigChanged(deps, ctx, auth, { setting: 'tls', summary: `TLS certificate ${cert.subject} uploaded${activate ? ' and activated' : ''}`, details: certificateDetails(cert) });
      const data = publicCertificate(cert, activate);
      const next = activate ? ' and activated' : `; activate it with PUT /api/v1/tls/certificates/${data.id}/activate`;
      return { message: `TLS certificate ${data.subject} stored${next}`, data, audit: { after: data } };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/tls/certificates/:id/activate',
    summary: 'Make a stored certificate the one HTTPS serves (cairn extension)',
    description: `Takes effect without a restart: at once on the API process that answers, within ${POLL_MS / 1000} s on the others (they poll the active certificate). An expired certificate cannot be activated (409).`,
    tag: 'TLS',
    permission: 'settings:manage',
    params: IdParams,
    response: CertificateSchema,
    errors: [404, 409, 503],
    async handler({ params, auth, deps, ctx }) {
      const cert = await findCertificate(deps, auth.orgId, params.id);
      const previous = await activeCertificate(deps.store, auth.orgId);
      if (previous?.id === cert.id) return { message: `TLS certificate ${cert.subject} is already active`, data: publicCertificate(cert, true) };
      if (Date.parse(cert.not_after) < Date.now()) {
        throw new HttpError(409, 'conflict', `TLS certificate ${cert.id} expired on ${cert.not_after}; upload a current certificate instead`);
      }
      const activated = await activateCertificate(deps.store, cert);
      await refreshHttpsListeners();
      await raiseConfigChanged(deps, ctx, auth, { setting: 'tls', summary: `TLS certificate ${cert.subject} activated`, details: certificateDetails(activated) });
      const data = publicCertificate(activated, true);
      const replaced = previous ? `; it replaces ${previous.subject} (${previous.id})` : '';
      return { message: `TLS certificate ${cert.subject} activated${replaced}`, data, audit: { before: publicCertificate(cert, false), after: data } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/tls/certificates/:id',
    summary: 'Delete a stored certificate and its key; the active one only while HTTPS is not served',
    tag: 'TLS',
    permission: 'settings:manage',
    params: IdParams,
    response: z.null(),
    errors: [404, 409, 503],
    async handler({ params, auth, deps, ctx }) {
      const cert = await findCertificate(deps, auth.orgId, params.id);
      const active = (await activeCertificate(deps.store, auth.orgId))?.id === cert.id;
      if (active && httpsServedFor(deps, auth.orgId)) {
        throw new HttpError(409, 'conflict', `TLS certificate ${cert.id} is the active certificate and HTTPS is served with it: activate another certificate first (PUT /api/v1/tls/certificates/{id}/activate), then delete this one`);
      }
      await deleteCertificate(deps.store, cert);
      await raiseConfigChanged(deps, ctx, auth, { setting: 'tls', summary: `TLS certificate ${cert.subject} deleted`, details: certificateDetails(cert) });
      return { message: `TLS certificate ${cert.subject} (${cert.id}) deleted`, data: null, audit: { before: publicCertificate(cert, active) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/tls/status',
    summary: 'Whether the API process that answers serves HTTPS, on which port, and the active certificate',
    tag: 'TLS',
    permission: 'settings:read',
    response: StatusSchema,
    async handler({ auth, deps }) {
      const listener = httpsServing();
      const active = await activeCertificate(deps.store, auth.orgId);
      const port = listener?.port() ?? null;
      const configured = deps.config.operations.tlsPort;
      const message = port !== null ? `HTTPS is served on port ${port}` : configured !== undefined ? `HTTPS on port ${configured} starts once a certificate is activated` : 'HTTPS is off: set CAIRN_TLS_PORT and activate a certificate';
      return {
        message,
        data: {
          https_enabled: port !== null,
          port,
          active_certificate: active ? { id: active.id, subject: active.subject, not_after: active.not_after, days_to_expiry: daysToExpiry(active.not_after) } : null,
          served_certificate_id: listener && listener.orgId === auth.orgId ? listener.servedCertificateId() : null,
          min_tls_version: MIN_TLS_VERSION,
        },
      };
    },
  }),
];
