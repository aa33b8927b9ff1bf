import { render } from 'preact';
import { App } from './app.tsx';
import { renew } from './session.ts';
import './styles.css';

// The session cookie (if any) gives a fresh in-memory token; until it answers the app shows that it is loading.
void renew();
render(<App />, document.getElementById('app')!);
