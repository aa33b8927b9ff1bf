// Redaction of secrets in anything written to the audit log or a log line:
// values under keys that name a secret are replaced by the placeholder.
import { REDACTED } from './secret-box.js';

const SECRET_KEY = /pass(word)?|secret|private_key|token|api_key|certificate|credential|authorization|cookie|hash/i;

export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] = SECRET_KEY.test(key) && inner !== null && inner !== '' && inner !== undefined ? REDACTED : redactSecrets(inner);
  }
  return copy;
}

/** Query parameters that carry credentials in feed and webhook URLs (`?apikey=`, `?auth-key=`, `?sig=`). */
const SECRET_PARAM = /key|pass|secret|token|auth|sig|credential/i;

/** A URL with the values of credential-like query parameters and any user info replaced by the placeholder, for answers and logs. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username || parsed.password) {
    parsed.username = REDACTED;
    parsed.password = '';
  }
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, REDACTED);
  return parsed.toString();
}
