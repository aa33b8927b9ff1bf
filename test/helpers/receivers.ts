// Real receivers for notification tests: an SMTP server (smtp-server, with
// STARTTLS or implicit TLS on a self-signed certificate) that keeps the mail
// it gets, and an HTTP server that keeps every request and answers with a
// status the test chooses.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate as selfsigned } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  secure: boolean;
}

export interface SmtpReceiver {
  port: number;
  /** PEM of the server's self-signed certificate, for the channel to trust. */
  certificate: string;
  mails: ReceivedMail[];
  /** Refuse every recipient with this SMTP reply (e.g. 550) from now on; null accepts again. */
  refuse(code: number | null): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port`: channels take only the SMTP ports 25, 465 and 587, so tests bind those (CI runs as root). */
export async function startSmtpReceiver(mode: 'starttls' | 'tls', port: number): Promise<SmtpReceiver> {
  const pems = await selfsigned([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }] });
  const mails: ReceivedMail[] = [];
  let refusing: number | null = null;
  const server = new SMTPServer({
    secure: mode === 'tls',
    key: pems.private,
    cert: pems.cert,
    authOptional: true,
    disabledCommands: mode === 'starttls' ? [] : ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refusing !== null) {
        const err = new Error(`mailbox ${address.address} unavailable`) as Error & { responseCode: number };
        err.responseCode = refusing;
        callback(err);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          // Long headers fold onto continuation lines (RFC 5322): unfold before reading.
          subject: /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '',
          secure: session.secure,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', (err: Error) => reject(new Error(`SMTP receiver cannot listen on 127.0.0.1:${port} (root, and the port free, are needed): ${err.message}`)));
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port,
    certificate: pems.cert,
    mails,
    refuse(code) {
      refusing = code;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** The status every request gets from now on (default 200). */
  answer(status: number): void;
  close(): Promise<void>;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  let status = 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'ok' : 'receiver failing on purpose');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      status = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
