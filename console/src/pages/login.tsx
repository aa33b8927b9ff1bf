import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { login, sessionNotice } from '../session.ts';
import { place, safeReturnPath, withParams } from '../router.ts';
import { ErrorLine } from '../messages.tsx';

interface Methods {
  methods: string[];
  saml_login_url: string | null;
}

/** How this cairn lets users log in, asked without a session (GET /api/v1/auth/methods); null until it answers (or when it cannot). */
function useMethods() {
  const methods = useSignal<Methods | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/v1/auth/methods', { headers: { accept: 'application/json' }, signal: controller.signal })
      .then((res) => (res.ok ? (res.json() as Promise<{ data: Methods }>) : null))
      .then((body) => (methods.value = body?.data ?? null))
      .catch(() => undefined);
    return () => controller.abort();
  }, []);
  return methods.value;
}

export function LoginPage() {
  const email = useSignal('');
  const password = useSignal('');
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const emailInput = useRef<HTMLInputElement>(null);
  const methods = useMethods();
  // SAML login comes back to the page the user was going to (only a path on this site).
  const samlHref = methods?.saml_login_url ? withParams(methods.saml_login_url, { return_to: safeReturnPath(place.value.params.get('next')) ?? '/search' }) : null;

  useEffect(() => emailInput.current?.focus(), []);

  async function submit(event: Event) {
    event.preventDefault();
    busy.value = true;
    error.value = null;
    try {
      // LDAP users log in with the same form: the API picks the method its settings name.
      error.value = await login(email.value.trim(), password.value);
    } catch {
      error.value = 'The server could not be reached.';
    } finally {
      busy.value = false;
    }
    if (!error.value) password.value = '';
  }

  return (
    <main class="login" id="main">
      <form onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Log in to cairn</h1>
        {sessionNotice.value && <p class="notice" role="status">{sessionNotice.value}</p>}
        {samlHref && (
          <>
            <a class="button sso" href={samlHref}>
              Log in with SSO
            </a>
            <p class="or" aria-hidden="true">
              or with a password
            </p>
          </>
        )}
        <label for="email">{methods?.methods.includes('ldap') ? 'Email or directory user name' : 'Email'}</label>
        <input id="email" ref={emailInput} type="text" inputMode="email" autoComplete="username" required value={email.value} onInput={(e) => (email.value = e.currentTarget.value)} />
        <label for="password">Password</label>
        <input id="password" type="password" autoComplete="current-password" required value={password.value} onInput={(e) => (password.value = e.currentTarget.value)} />
        <ErrorLine message={error.value} />
        <button type="submit" disabled={busy.value}>
          {busy.value ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
