import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { login, sessionNotice } from '../session.ts';

export function LoginPage() {
  const email = useSignal('');
  const password = useSignal('');
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const emailInput = useRef<HTMLInputElement>(null);

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
        <label for="email">Email</label>
        <input id="email" ref={emailInput} type="email" autoComplete="username" required value={email.value} onInput={(e) => (email.value = e.currentTarget.value)} />
        <label for="password">Password</label>
        <input id="password" type="password" autoComplete="current-password" required value={password.value} onInput={(e) => (password.value = e.currentTarget.value)} />
        {error.value && (
          <p class="error" role="alert">
            {error.value}
          </p>
        )}
        <button type="submit" disabled={busy.value}>
          {busy.value ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
