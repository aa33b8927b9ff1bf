// Reads a certificate upload: multipart/form-data with the parts `cert` and
// `key` (PEM files, or plain fields holding the PEM text) and the optional
// field `activate`. The JSON body parser leaves multipart alone, so this reads
// the request stream itself, with busboy, and bounds what it keeps: a PEM
// chain or key is a few KiB, so anything past MAX_PART_BYTES is a mistake or
// an attack and is refused before it is buffered.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

/** Largest `cert` or `key` part. */
export const MAX_PART_BYTES = 256 * 1024;
/** Largest whole request: both parts, the field and the multipart framing. */
const MAX_REQUEST_BYTES = 2 * MAX_PART_BYTES + 64 * 1024;

const PARTS = ['cert', 'key', 'activate'] as const;
type PartName = (typeof PARTS)[number];

export class UploadError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

export interface CertificateUpload {
  cert: string;
  key: string;
  /** Absent when the form does not say. */
  activate?: boolean;
}

const isPart = (name: string): name is PartName => (PARTS as readonly string[]).includes(name);

function parseActivate(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new UploadError(400, 'activate must be true or false');
}

export async function readCertificateUpload(req: IncomingMessage): Promise<CertificateUpload> {
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
    throw new UploadError(415, 'send multipart/form-data with the parts cert (PEM certificate, leaf first, then intermediates) and key (PEM private key)');
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fileSize: MAX_PART_BYTES, fieldSize: MAX_PART_BYTES, files: PARTS.length, fields: PARTS.length, parts: PARTS.length + 1, headerPairs: 20 } });
  } catch (err) {
    throw new UploadError(400, `the multipart body cannot be read: ${(err as Error).message}`);
  }

  const values = await new Promise<Map<PartName, string>>((resolve, reject) => {
    const values = new Map<PartName, string>();
    let settled = false;
    let received = 0;
    const fail = (status: UploadError['status'], message: string) => {
      if (settled) return;
      settled = true;
      // Stop parsing, and let the rest of the request drain so the answer reaches the client.
      req.unpipe(parser);
      req.resume();
      reject(new UploadError(status, message));
    };
    const keep = (name: string, value: string) => {
      if (!isPart(name)) return fail(400, `unknown part "${name.slice(0, 100)}": send cert, key and optionally activate`);
      if (values.has(name)) return fail(400, `the part ${name} is given twice`);
      values.set(name, value);
    };
    const tooLarge = (name: string) => fail(413, `the part ${name.slice(0, 100)} is larger than ${MAX_PART_BYTES / 1024} KiB; a PEM certificate chain or key is a few KiB`);

    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_REQUEST_BYTES) fail(413, `the upload is larger than ${MAX_REQUEST_BYTES / 1024} KiB; a PEM certificate chain and key are a few KiB`);
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => tooLarge(name));
      stream.on('end', () => {
        if (!(stream as { truncated?: boolean }).truncated) keep(name, Buffer.concat(chunks).toString('utf8'));
      });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) tooLarge(name);
      else keep(name, value);
    });
    const tooMany = () => fail(400, 'too many parts: send cert, key and optionally activate');
    // busboy says filesLimit and fieldsLimit when a part goes past the limit, but partsLimit when one reaches it: hence one more than allowed.
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', (err: Error) => fail(400, `the multipart body cannot be read: ${err.message}`));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve(values);
    });
    req.on('error', (err) => fail(400, `the upload was interrupted: ${err.message}`));
    // A client that goes away mid-upload ends the request without ending the form: settle rather than wait forever.
    req.on('close', () => {
      if (!req.complete) fail(400, 'the upload was interrupted');
    });
    req.pipe(parser);
  });

  const cert = values.get('cert');
  const key = values.get('key');
  const missing = [cert === undefined ? 'cert' : null, key === undefined ? 'key' : null].filter(Boolean);
  if (missing.length) throw new UploadError(400, `missing part(s): ${missing.join(', ')}; send cert (PEM certificate, leaf first, then intermediates) and key (PEM private key)`);
  return { cert: cert!, key: key!, activate: parseActivate(values.get('activate')) };
}
