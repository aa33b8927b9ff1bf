// The login session in the browser. The session itself is the HttpOnly
// cookie cairn sets at login (Path=/api, SameSite=Strict; docs/identity.md);
// the access token lives in this module's memory only, never in
// localStorage, sessionStorage or a URL, and is renewed from the cookie with
// POST /api/v1/auth/token before it expires. A reload renews it the same way.
import { computed, signal } from '@preact/signals';
import { navigate, place, safeReturnPath, withParams } from './router.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  role_name: string;
}

export interface Session {
  token: string;
  /** Sent as X-CSRF-Token on every write (the cookie's CSRF defence; the bearer token alone would pass too). */
  csrfToken: string | null;
  user: User | null;
  permissions: ReadonlySet<string>;
}

interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
  error?: { code: string; details: unknown };
}

/** 'unknown' until the first renewal at page load has answered. */
export const session = signal<Session | null | 'unknown'>('unknown');
export const sessionNotice = signal<string | null>(null);

export const currentSession = computed(() => (typeof session.value === 'object' ? session.value : null));

/** Whether the user's role holds a permission (SPEC 5): write controls are shown only then; the API refuses them anyway. */
export function can(permission: string): boolean {
  return currentSession.value?.permissions.has(permission) ?? false;
}

let renewTimer: ReturnType<typeof setTimeout> | undefined;

async function post<T>(path: string, body?: unknown, token?: string): Promise<{ status: number; body: Envelope<T> | null }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const parsed = (await response.json().catch(() => null)) as Envelope<T> | null;
  return { status: response.status, body: parsed };
}

function scheduleRenewal(expiresInSeconds: number): void {
  clearTimeout(renewTimer);
  // A minute early (or at half the lifetime when it is short), so a request never carries an expired token.
  const lead = Math.min(60, expiresInSeconds / 2);
  renewTimer = setTimeout(() => void renew(), Math.max(1, expiresInSeconds - lead) * 1000);
}

interface TokenAnswer {
  token: string;
  expires_in: number;
}

interface MeAnswer {
  user: User | null;
  permissions: string[];
  csrf_token: string | null;
}

/** A fresh token from the session cookie; false when there is no live session. */
export async function renew(): Promise<boolean> {
  const answer = await post<TokenAnswer>('/api/v1/auth/token').catch(() => null);
  if (!answer || answer.status !== 200 || !answer.body) {
    if (session.value !== 'unknown' && session.value !== null) sessionLost();
    else session.value = null;
    return false;
  }
  const { token, expires_in } = answer.body.data;
  const existing = currentSession.value;
  if (existing) {
    session.value = { ...existing, token };
  } else {
    const me = await fetch('/api/v1/auth/me', { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    if (!me.ok) {
      session.value = null;
      return false;
    }
    const { data } = (await me.json()) as Envelope<MeAnswer>;
    session.value = { token, csrfToken: data.csrf_token, user: data.user, permissions: new Set(data.permissions) };
  }
  scheduleRenewal(expires_in);
  return true;
}

interface LoginAnswer extends TokenAnswer {
  csrf_token: string;
  user: User;
  permissions: string[];
}

/** Logs in; answers the API's message when it refuses. */
export async function login(email: string, password: string): Promise<string | null> {
  const answer = await post<LoginAnswer>('/api/v1/auth/login', { email, password });
  if (answer.status !== 200 || !answer.body?.success) return answer.body?.message ?? `login failed (HTTP ${answer.status})`;
  const { token, csrf_token, user, permissions, expires_in } = answer.body.data;
  session.value = { token, csrfToken: csrf_token, user, permissions: new Set(permissions) };
  sessionNotice.value = null;
  scheduleRenewal(expires_in);
  return null;
}

function forget(): void {
  clearTimeout(renewTimer);
  session.value = null;
}

export async function logout(): Promise<void> {
  const current = currentSession.value;
  if (current) {
    await fetch('/api/v1/auth/logout', {
      method: 'POST',
      headers: { authorization: `Bearer ${current.token}`, ...(current.csrfToken ? { 'x-csrf-token': current.csrfToken } : {}) },
    }).catch(() => undefined);
  }
  forget();
  sessionNotice.value = 'You are logged out.';
  navigate('/login');
}

/** The session ended (expired, revoked, user deactivated): back to login, remembering the place to return to. */
export function sessionLost(): void {
  // Once is enough: several requests may find the session gone at the same moment.
  if (!currentSession.value) return;
  const wasAt = place.value.path + (place.value.params.size ? `?${place.value.params.toString()}` : '');
  forget();
  sessionNotice.value = 'Your session has ended. Log in again to continue where you were.';
  navigate(withParams('/login', { next: safeReturnPath(wasAt) }), { replace: true });
}
