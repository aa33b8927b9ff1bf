// The one HTTP client for every URL a user configures (IdP metadata, webhooks,
// threat feeds, AI providers). Private, loopback, link-local, cloud metadata
// and other reserved addresses are refused unless the deployment allows them
// (CAIRN_OUTBOUND_ALLOW); the check runs on the address actually connected
// to, after DNS, so a name that resolves to an internal address (DNS
// rebinding) is refused too. Every request has a deadline and a response
// size cap, and follows redirects only within the same host.
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/** Hosts (exact names) and CIDRs the client may reach although they are private or loopback. */
export interface OutboundPolicy {
  allowHosts: string[];
  allowCidrs: string[];
}

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole request, connect to last byte. Default 10 s. */
  timeoutMs?: number;
  /** Largest response body read. Default 5 MiB. */
  maxBytes?: number;
  /** Default 3; each must stay on the same host. */
  maxRedirects?: number;
  /** Extra trusted CA certificates (PEM) for HTTPS, e.g. a private CA. */
  ca?: string | string[];
  /** Ends the request (and frees its socket) when the caller gives up; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
  text(): string;
}

export type OutboundErrorCode = 'invalid_url' | 'blocked_address' | 'timeout' | 'too_large' | 'redirect_refused' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

const DEFAULTS = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 3 };

/** Parses CAIRN_OUTBOUND_ALLOW-style entries: CIDRs and bare addresses go to the address list, names to the host list. */
export function outboundPolicy(entries: string[]): OutboundPolicy {
  const policy: OutboundPolicy = { allowHosts: [], allowCidrs: [] };
  for (const raw of entries.map((e) => e.trim().toLowerCase()).filter(Boolean)) {
    if (raw.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(raw); // throws on a malformed CIDR
      policy.allowCidrs.push(`${address.toString()}/${bits}`);
    } else if (ipaddr.isValid(raw.replace(/^\[|\]$/g, ''))) {
      const address = ipaddr.parse(raw.replace(/^\[|\]$/g, ''));
      policy.allowCidrs.push(`${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`);
    } else {
      policy.allowHosts.push(raw);
    }
  }
  return policy;
}

/** An http or https URL without user info: what a user may configure as an outbound destination (credentials go in their own, sealed fields). */
export function isPlainHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

export class OutboundClient {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly policy: OutboundPolicy) {}

  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const settings = { ...DEFAULTS, ...request };
    const deadline = Date.now() + settings.timeoutMs;
    let url = parseUrl(request.url);
    const origin = url.hostname;
    for (let redirects = 0; ; redirects++) {
      const response = await this.once(url, settings, deadline);
      const location = response.headers.location;
      if (response.status < 300 || response.status >= 400 || !location) return response;
      if (redirects >= settings.maxRedirects) throw new OutboundError('redirect_refused', `more than ${settings.maxRedirects} redirects from ${request.url}`);
      const next = parseUrl(new URL(location, url).toString());
      if (next.hostname !== origin) throw new OutboundError('redirect_refused', `redirect from ${origin} to another host (${next.hostname}) refused`);
      url = next;
    }
  }

  private agentFor(url: URL, ca: OutboundRequest['ca']): http.Agent {
    const allowPrivate = this.policy.allowHosts.includes(url.hostname.toLowerCase());
    const key = `${url.protocol}|${allowPrivate}|${ca ? JSON.stringify(ca) : ''}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options = { allowPrivateIPAddress: allowPrivate, allowIPAddressList: this.policy.allowCidrs, keepAlive: false, ...(ca ? { ca } : {}) };
      agent = url.protocol === 'https:' ? new RequestFilteringHttpsAgent(options) : new RequestFilteringHttpAgent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  private once(url: URL, settings: OutboundRequest & typeof DEFAULTS, deadline: number): Promise<OutboundResponse> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new OutboundError('timeout', `no answer from ${url.host} within ${settings.timeoutMs} ms`));
    const { signal } = settings;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method: settings.method ?? 'GET', headers: settings.headers, agent: this.agentFor(url, settings.ca) }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > settings.maxBytes) {
            req.destroy(new OutboundError('too_large', `response from ${url.host} is larger than ${settings.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, url: url.toString(), text: () => body.toString('utf8') });
        });
        res.on('error', (err) => reject(describe(err, url)));
      });
      const timer = setTimeout(() => req.destroy(new OutboundError('timeout', `no answer from ${url.host} within ${settings.timeoutMs} ms`)), remaining);
      const onAbort = () => {
        reject(signal!.reason);
        req.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      });
      req.on('error', (err) => reject(describe(err, url)));
      req.end(settings.body);
    });
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError('invalid_url', `not a URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalid_url', `only http and https URLs are allowed, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundError('invalid_url', 'credentials in the URL are not allowed; configure them as a secret');
  return url;
}

function describe(err: Error, url: URL): OutboundError {
  if (err instanceof OutboundError) return err;
  // request-filtering-agent's refusal: "DNS lookup 127.0.0.1(...) is not allowed. Because, It is private IP address."
  if (/is not allowed/.test(err.message)) {
    return new OutboundError('blocked_address', `${url.hostname} resolves to an address cairn does not call (private, loopback, link-local or reserved); allow it with CAIRN_OUTBOUND_ALLOW`, { cause: err });
  }
  const code = (err as NodeJS.ErrnoException).code;
  return new OutboundError('network', `cannot reach ${url.host}: ${code ? `${code} ` : ''}${err.message}`.trim(), { cause: err });
}
