// Checks an uploaded certificate and private key before cairn stores them:
// the cert part is one or more PEM X.509 certificates (the leaf first, then
// its intermediates, each issued by the next), the leaf is valid now, and the
// key is a PEM private key that belongs to the leaf. Every refusal is a
// CertificateProblem whose message tells the uploader what to fix.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

export class CertificateProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateProblem';
  }
}

/** What is stored of a checked pair; `key_pem` is PKCS#8 and must be sealed before it is stored. */
export interface CheckedPair {
  subject: string;
  sans: string[];
  issuer: string;
  serial: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
  /** The certificates as re-encoded PEM, leaf first: text around the blocks (bag attributes, comments) is dropped. */
  chain_pem: string;
  key_pem: string;
}

/** More than this is not a chain a server sends. */
const MAX_CHAIN = 10;

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----/;

/** "CN=a\nO=b" (how Node renders a name) as "CN=a, O=b". */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

/** "DNS:a, IP Address:10.0.0.1" as ["DNS:a", "IP Address:10.0.0.1"]; a comma inside a quoted name does not split it. */
export function splitSans(subjectAltName: string | undefined): string[] {
  if (!subjectAltName) return [];
  return subjectAltName.split(/, (?=[A-Za-z][A-Za-z ]*:)/).map((s) => s.trim()).filter(Boolean);
}

function dateOf(text: string, what: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new CertificateProblem(`the certificate's ${what} date (${text}) cannot be read`);
  return date;
}

function parseCertificates(certPem: string): X509Certificate[] {
  if (PRIVATE_KEY_BLOCK.test(certPem)) {
    throw new CertificateProblem('the cert part holds a private key: send only certificates as cert, and the private key as the key part');
  }
  const blocks = certPem.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) {
    const hint = certPem.includes('-----BEGIN') ? '' : ' (a DER file converts with: openssl x509 -inform der -in cert.der -out cert.pem)';
    throw new CertificateProblem(`the cert part is not a PEM certificate: expected a -----BEGIN CERTIFICATE----- block${hint}`);
  }
  if (blocks.length > MAX_CHAIN) throw new CertificateProblem(`the cert part holds ${blocks.length} certificates; a chain has at most ${MAX_CHAIN}`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new CertificateProblem(`certificate ${i + 1} of the cert part is not a valid X.509 certificate (its PEM block does not decode)`);
    }
  });
}

/** Each certificate must be issued, and signed, by the next: the order a server sends them in. */
function checkChainOrder(certs: X509Certificate[]): void {
  for (let i = 0; i + 1 < certs.length; i++) {
    const [cert, issuer] = [certs[i]!, certs[i + 1]!];
    if (!cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) {
      throw new CertificateProblem(
        `certificate ${i + 1} of the cert part (${oneLine(cert.subject)}) is not issued by certificate ${i + 2} (${oneLine(issuer.subject)}): send the leaf first, then each issuer in order`,
      );
    }
  }
}

function checkValidity(certs: X509Certificate[], now: Date): void {
  certs.forEach((cert, i) => {
    const what = i === 0 ? 'the certificate' : `certificate ${i + 1} of the chain (${oneLine(cert.subject)})`;
    const notBefore = dateOf(cert.validFrom, 'not-before');
    const notAfter = dateOf(cert.validTo, 'not-after');
    if (now < notBefore) throw new CertificateProblem(`${what} is not valid yet: its validity starts ${notBefore.toISOString()}`);
    if (now > notAfter) throw new CertificateProblem(`${what} expired on ${notAfter.toISOString()}`);
  });
}

function parseKey(keyPem: string): KeyObject {
  const block = PRIVATE_KEY_BLOCK.exec(keyPem);
  if (!block) throw new CertificateProblem('the key part is not a PEM private key: expected a -----BEGIN PRIVATE KEY----- (or RSA/EC PRIVATE KEY) block');
  if (block[1] === 'ENCRYPTED ' || /Proc-Type:\s*4,ENCRYPTED/.test(keyPem)) {
    throw new CertificateProblem('the private key is encrypted with a passphrase: upload it unencrypted (openssl pkey -in key.pem -out plain-key.pem)');
  }
  try {
    return createPrivateKey({ key: keyPem, format: 'pem' });
  } catch {
    throw new CertificateProblem('the key part is not a valid PEM private key (its block does not decode)');
  }
}

export function checkCertificatePair(certPem: string, keyPem: string, now = new Date()): CheckedPair {
  const certs = parseCertificates(certPem);
  checkChainOrder(certs);
  checkValidity(certs, now);
  const key = parseKey(keyPem);
  const leaf = certs[0]!;
  let matches = false;
  try {
    matches = leaf.checkPrivateKey(key);
  } catch {
    // A key of another type than the certificate's (e.g. EC for an RSA certificate) throws rather than answering false.
  }
  if (!matches) throw new CertificateProblem('the private key does not match the certificate (the first certificate of the cert part)');
  return {
    subject: oneLine(leaf.subject),
    sans: splitSans(leaf.subjectAltName),
    issuer: oneLine(leaf.issuer),
    serial: leaf.serialNumber,
    fingerprint_sha256: leaf.fingerprint256,
    not_before: dateOf(leaf.validFrom, 'not-before').toISOString(),
    not_after: dateOf(leaf.validTo, 'not-after').toISOString(),
    chain_pem: certs.map((c) => c.toString()).join(''),
    key_pem: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/** Whole days from `now` to `notAfter`, rounded down; negative once expired. */
export function daysToExpiry(notAfter: string, now = new Date()): number {
  return Math.floor((Date.parse(notAfter) - now.getTime()) / 86_400_000);
}
