// The one place the console talks to the API: the bearer token from the
// session, the CSRF header on every write, the API's envelope unpacked, and
// its error message kept in its own words for the page to show.
import { currentSession, renew, sessionLost } from './session.ts';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: unknown,
  ) {
    super(message);
  }
}

type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
  /**
   * Authenticate with the session cookie alone, without the bearer token: the notifications routes of
   * family B take only that (SPEC 5.4; docs/notifications.md). Writes still carry the CSRF header.
   */
  cookieOnly?: boolean;
  /** A multipart/form-data body (a file upload, e.g. a TLS certificate); the browser sets its content type. */
  form?: FormData;
  /** The answer asked for; JSON unless said (server-sent events for a streamed answer). */
  accept?: string;
}

interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
  error?: { code: string; details: unknown };
}

function urlOf(path: string, query: Record<string, QueryValue> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return `/api${path}${text ? `?${text}` : ''}`;
}

async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const current = currentSession.value;
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (current && !options.cookieOnly) headers.authorization = `Bearer ${current.token}`;
  if (method !== 'GET' && method !== 'HEAD' && current?.csrfToken) headers['x-csrf-token'] = current.csrfToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(urlOf(path, options.query), {
    method,
    headers,
    body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    signal: options.signal,
    credentials: 'same-origin',
  });
}

/** The API's refusal in its own words. */
function refusal(response: Response, envelope: Envelope<unknown> | null): ApiError {
  return new ApiError(envelope?.message ?? `The server answered HTTP ${response.status}`, response.status, envelope?.error?.code ?? 'unknown', envelope?.error?.details ?? null);
}

/** Sends, renewing an expired token from the session cookie once; a dead session goes back to login. */
async function sendRenewing(method: string, path: string, options: RequestOptions): Promise<Response> {
  const response = await send(method, path, options);
  if (response.status !== 401 || !currentSession.value) return response;
  // renew() has sent the user to login, keeping their place, when it fails.
  if (!(await renew())) throw new ApiError('Your session has ended', 401, 'unauthorized', null);
  return send(method, path, options);
}

/** Calls /api<path> and answers `data` with the API's message; throws ApiError in the API's words. */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ data: T; message: string }> {
  const response = await sendRenewing(method, path, options);
  const body = (await response.json().catch(() => null)) as Envelope<T> | null;
  if (!response.ok || !body?.success) {
    if (response.status === 401) sessionLost();
    throw refusal(response, body);
  }
  return { data: body.data, message: body.message };
}

/**
 * Asks /api<path> for a file (a report as CSV, a rule as Sigma YAML) and hands it to the browser as a download,
 * under the name the API gives it: a plain link would carry no bearer token.
 */
export async function download(path: string, query: Record<string, QueryValue> = {}): Promise<string> {
  let response = await send('GET', path, { query });
  if (response.status === 401 && currentSession.value && (await renew())) response = await send('GET', path, { query });
  if (!response.ok) {
    throw refusal(response, (await response.json().catch(() => null)) as Envelope<unknown> | null);
  }
  const filename = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'cairn-download';
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  anchor.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return filename;
}

/**
 * POSTs to /api<path> asking for server-sent events (the assistant's streamed answer): a POST with the bearer
 * token and CSRF header, which EventSource cannot send. Answers the open event stream; a refusal before it
 * starts (404, 409, 429, ...) throws ApiError in the API's words.
 */
export async function postForEvents(path: string, body: unknown, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const response = await sendRenewing('POST', path, { body, signal, accept: 'text/event-stream' });
  if (!response.ok || !response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const envelope = (await response.json().catch(() => null)) as Envelope<unknown> | null;
    if (response.status === 401) sessionLost();
    throw refusal(response, envelope);
  }
  return response.body;
}
