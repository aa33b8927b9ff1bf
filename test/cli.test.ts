// The `cairn` command as users run it: a separate process, real files, real HTTP.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, stopProcess } from './services/process.js';
import { eventually } from './helpers/buses.js';
import { sigmaSampleDir } from './helpers/samples.js';

const BIN = path.join(import.meta.dirname, '..', 'bin', 'cairn.mjs');
const SECRET = 'cli-test-secret-cli-test-secret-cli-test-secret';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-cli-'));
}

function cairn(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000 });
}

/** `cairn <args>` without blocking the event loop, for commands that talk to a server the test started. */
function cairnAsync(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) await stopProcess(child, 30_000);
});

/** `cairn start` as a child process, its stdout and stderr gathered; the test's end stops it. */
async function spawnCairn(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start'], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  const printedWaits: { text: string; resolve: () => void }[] = [];
  const gather = (d: Buffer) => {
    output += d.toString();
    for (const wait of printedWaits.filter((w) => output.includes(w.text))) wait.resolve();
  };
  child.stdout!.on('data', gather);
  child.stderr!.on('data', gather);
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    exited,
    output: () => output,
    /** Resolves the moment `text` is printed, not at the next poll (a test may need to act between two lines); fails if cairn exits first. */
    printed: (text: string) =>
      Promise.race([
        new Promise<void>((resolve) => (output.includes(text) ? resolve() : printedWaits.push({ text, resolve }))),
        exited.then(([code, signal]) => {
          if (!output.includes(text)) throw new Error(`cairn start exited (${code ?? signal}) before printing "${text}":\n${output}`);
        }),
      ]),
  };
}

async function startCairn(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string; url: string }> {
  const started = await spawnCairn(env);
  await eventually(async () => {
    if (started.child.exitCode !== null) throw new Error(`cairn start exited early:\n${started.output()}`);
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
  }, 60_000, 200);
  return started;
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('cairn command', () => {
  it('mints a token with the configured secret, permissions and ttl', () => {
    const result = cairn(['token', '--permissions', 'signals:read,graph:read', '--sub', 'alice', '--ttl', '2h'], { CAIRN_JWT_SECRET: SECRET });
    expect(result.status).toBe(0);
    const claims = jwt.verify(result.stdout.trim(), SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: 'alice', org_id: 'default', permissions: ['signals:read', 'graph:read'] });
    expect(claims.exp! - claims.iat!).toBe(7200);
  });

  it('refuses unknown permissions by name, as a usage error', () => {
    const result = cairn(['token', '--permissions', 'signals:read,root'], { CAIRN_JWT_SECRET: SECRET });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^cairn: .*unknown permission\(s\): root/);
    expect(result.stderr).toMatch(/Usage: cairn token/);
  });

  it('answers --help on every command with its usage and exit code 0', () => {
    const top = cairn(['--help'], {});
    expect(top.status).toBe(0);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z-]+)(?: |$)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['start', 'api', 'worker', 'migrate', 'ingest', 'token']));
    for (const command of commands) {
      const result = cairn([command, '--help'], {});
      expect(result.status, command).toBe(0);
      expect(result.stdout, command).toMatch(new RegExp(`^Usage: cairn ${command} `));
      expect(result.stderr, command).toBe('');
    }
  });

  it('answers a usage error with one line and the usage, exit code 2', () => {
    for (const args of [['nope'], ['ingest'], ['ingest', 'auth.log'], ['ingest', 'auth.log', '--source', 'auth', '--bogus'], ['worker', 'nope'], ['ingest', 'x', '--source', 'a', '--batch-size', '0'], []]) {
      const result = cairn(args, {});
      expect(result.status, args.join(' ')).toBe(2);
      const [first, ...rest] = result.stderr.split('\n');
      expect(first, args.join(' ')).toMatch(/^cairn: \S/);
      expect(rest.join('\n'), args.join(' ')).toMatch(/Usage: cairn/);
      expect(result.stderr, args.join(' ')).not.toMatch(/\s+at \S+ \(|"level":/); // no stack, no log line
    }
  });

  it('answers an operational error with one readable line and exit code 1, the stack only when debugging', () => {
    const env = { CAIRN_JWT_SECRET: SECRET };
    const missing = cairn(['ingest', '/nonexistent/auth.log', '--source', 'auth'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('cairn: cannot read /nonexistent/auth.log: no such file\n');
    const debug = cairn(['ingest', '/nonexistent/auth.log', '--source', 'auth'], { ...env, CAIRN_LOG_LEVEL: 'debug' });
    expect(debug.status).toBe(1);
    expect(debug.stderr).toMatch(/^cairn: cannot read \/nonexistent\/auth.log: no such file\nError: .*\n\s+at /);
  });

  it('finds the server started with the same environment: the URL comes from PORT, or CAIRN_URL', async () => {
    const file = path.join(tempDir(), 'one.log');
    fs.writeFileSync(file, 'one line\n');
    const port = String(await freePort()); // nothing listens there
    const settings: Record<string, string>[] = [{ PORT: port }, { CAIRN_URL: `http://127.0.0.1:${port}`, PORT: '8080' }];
    for (const env of settings) {
      const result = cairn(['ingest', file, '--source', 'auth', '--batch-size', '1'], { CAIRN_JWT_SECRET: SECRET, ...env });
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^cairn: cannot reach http://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`, 'm'));
    }
  }, 120_000);

  it('stops on a bad variable with a message naming it', () => {
    const result = cairn(['start'], { PORT: 'eighty', CAIRN_DATA_DIR: tempDir() });
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(/PORT:/);
  });

  it('applies migrations once and says so', () => {
    const env = { CAIRN_DATA_DIR: tempDir() };
    const first = cairn(['migrate'], env);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/applied: 001_lead_rules/);
    const second = cairn(['migrate'], env);
    expect(second.stdout).toMatch(/schema is up to date/);
  });

  it('starts embedded with a secret it creates, serves lead rules, and keeps them across a restart (CAIRN_DEFAULT_RULES=off: no rule pack)', async () => {
    const dataDir = tempDir();
    const first = await startCairn({ CAIRN_DATA_DIR: dataDir, CAIRN_DEFAULT_RULES: 'off' });
    expect(first.output()).toMatch(/created a JWT secret/);
    expect(first.output()).toMatch(/cairn token --permissions all/);
    const secretFile = path.join(dataDir, 'jwt-secret');
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);

    const token = cairn(['token', '--permissions', 'signals:read,signals:manage'], { CAIRN_DATA_DIR: dataDir }).stdout.trim();
    const weak = cairn(['token', '--permissions', 'graph:read'], { CAIRN_DATA_DIR: dataDir }).stdout.trim();
    const get = (t?: string) => fetch(`${first.url}/api/v1/lead-rules`, { headers: t ? { authorization: `Bearer ${t}` } : {} });
    expect((await get()).status).toBe(401);
    expect((await get(weak)).status).toBe(403);
    const ok = await get(token);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ success: true, data: { rules: [], total: 0, limit: 50, offset: 0 } });

    const created = await fetch(`${first.url}/api/v1/lead-rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept', conditions: { pattern: 'Failed password' } }),
    });
    expect(created.status).toBe(201);
    expect(await stop(first.child)).toBe(0);

    const second = await startCairn({ CAIRN_DATA_DIR: dataDir, CAIRN_DEFAULT_RULES: 'off' });
    expect(second.output()).not.toMatch(/created a JWT secret/);
    const list = (await (await fetch(`${second.url}/api/v1/lead-rules`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { rules: { name: string }[] } };
    expect(list.data.rules.map((r) => r.name)).toEqual(['kept']);
  });

  it('creates the first admin on an empty data dir, prints its password once, and `cairn user create|reset` work from the shell', async () => {
    const dataDir = tempDir();
    const login = (url: string, email: string, password: string) =>
      fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    const first = await startCairn({ CAIRN_DATA_DIR: dataDir });
    const printed = /created the first admin: (\S+), password (\S+)/.exec(first.output());
    expect(printed, first.output()).not.toBeNull();
    const [, email, password] = printed!;
    expect(email).toBe('admin@cairn.local');
    const answer = await login(first.url, email!, password!);
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as { data: { token: string; user: { role_name: string } } };
    expect(data.user.role_name).toBe('admin');
    expect((await fetch(`${first.url}/api/v1/users`, { headers: { authorization: `Bearer ${data.token}` } })).status).toBe(200);
    expect(await stop(first.child)).toBe(0);

    // The embedded engine belongs to one process: the shell commands run while cairn is stopped.
    const reset = cairn(['user', 'reset', '--email', email!], { CAIRN_DATA_DIR: dataDir });
    expect(reset.status, reset.stderr).toBe(0);
    const newPassword = /password: (\S+)/.exec(reset.stdout)![1]!;
    const created = spawnSync(process.execPath, [BIN, 'user', 'create', '--email', 'Ana@Example.com', '--role', 'analyst', '--password-stdin'], {
      env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', CAIRN_DATA_DIR: dataDir },
      input: 'analyst passphrase 1\n',
      encoding: 'utf8',
    });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('created analyst ana@example.com');
    expect(created.stdout).not.toContain('analyst passphrase 1');
    expect(cairn(['user', 'create', '--email', 'x@example.com', '--role', 'superuser'], { CAIRN_DATA_DIR: dataDir }).stderr).toMatch(/unknown role "superuser"/);

    const second = await startCairn({ CAIRN_DATA_DIR: dataDir });
    expect(second.output()).not.toMatch(/created the first admin/);
    expect((await login(second.url, email!, password!)).status).toBe(401);
    expect((await login(second.url, email!, newPassword)).status).toBe(200);
    expect((await login(second.url, 'ana@example.com', 'analyst passphrase 1')).status).toBe(200);
  });

  /** `cairn start` on an empty data dir, resolved the moment `ready` is printed. */
  async function startedUntil(ready: string, env: Record<string, string>) {
    const started = await spawnCairn({ CAIRN_DATA_DIR: tempDir(), ...env });
    await started.printed(ready);
    return started;
  }

  it('stops cleanly on a signal that arrives while it is still starting', async () => {
    // The first admin is announced before the server listens and the stages start: the signal lands mid-start-up.
    const cairnStart = await startedUntil('created the first admin', {});
    cairnStart.child.kill('SIGTERM');
    expect(await cairnStart.exited, cairnStart.output()).toEqual([0, null]);
  });

  it('exits at once on a second signal while start-up waits on a broker that does not answer', async () => {
    const closedPort = await freePort();
    const cairnStart = await startedUntil('Failed to connect to seed broker', {
      CAIRN_KAFKA_BROKERS: `127.0.0.1:${closedPort}`,
      CAIRN_JWT_SECRET: SECRET,
      CAIRN_MASTER_KEY: 'ab'.repeat(32),
    });
    cairnStart.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    expect(cairnStart.child.exitCode, 'the first signal waits for start-up (kafkajs retries for about a minute)').toBeNull();
    const secondAt = Date.now();
    cairnStart.child.kill('SIGTERM');
    expect(await cairnStart.exited).toEqual([1, null]);
    expect(Date.now() - secondAt).toBeLessThan(5000);
    expect(cairnStart.output()).toMatch(/second signal: exiting without closing cleanly/);
  });

  it('ingests a log file line by line through the API and reports accepted and rejected lines', async () => {
    const dataDir = tempDir();
    const server = await startCairn({ CAIRN_DATA_DIR: dataDir, CAIRN_STORE_BATCH_WAIT_MS: '20' });
    const fixture = path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log');
    const lines = fs.readFileSync(fixture, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const file = path.join(dataDir, 'mixed.log');
    fs.writeFileSync(file, [...lines, '', 'x'.repeat(300_000)].join('\n'));

    const port = new URL(server.url).port;
    const result = await cairnAsync(['ingest', file, '--source', 'auth', '--batch-size', '300'], { CAIRN_DATA_DIR: dataDir, PORT: port });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${lines.length + 1} lines in [\\d.]+ s: ${lines.length} accepted, 1 rejected`));
    expect(result.stdout).toMatch(new RegExp(`line ${lines.length + 2}: raw must be at most 262144 bytes`));
    expect(result.stderr).toMatch(/100%/);

    const token = cairn(['token', '--permissions', 'signals:read'], { CAIRN_DATA_DIR: dataDir }).stdout.trim();
    const expected = lines.filter((l) => l.includes('Failed password')).length;
    await eventually(async () => {
      const res = await fetch(`${server.url}/api/v1/artifacts?source=auth&limit=1&query=${encodeURIComponent('"Failed password"')}`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await res.json()) as { data: { total: number } }).data.total).toBe(expected);
    }, 30_000, 200);
  });

  it('re-parses the artifacts of a range through the API, following the job to its end', async () => {
    const dataDir = tempDir();
    const server = await startCairn({ CAIRN_DATA_DIR: dataDir, CAIRN_STORE_BATCH_WAIT_MS: '20', CAIRN_REPROCESS_SLICE: '200' });
    const env = { CAIRN_DATA_DIR: dataDir, PORT: new URL(server.url).port };
    const file = path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
    expect((await cairnAsync(['ingest', file, '--source', 'auth'], env)).code).toBe(0);
    const token = cairn(['token', '--permissions', 'signals:read'], env).stdout.trim();
    await eventually(async () => {
      const res = await fetch(`${server.url}/api/v1/artifacts?limit=1&exact_total=true&query=source.ip:*`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await res.json()) as { data: { total: number } }).data.total).toBeGreaterThan(0);
    }, 30_000, 200);
    // Ingested a moment ago: events the pipeline had not written yet would be left to it, so wait for them all.
    await new Promise((r) => setTimeout(r, 2000));

    const result = await cairnAsync(['reprocess', '--since', '1d', '--source', 'auth'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^job [0-9a-f-]{36}: ${lines} artifact\\(s\\) from .* of source auth`));
    expect(result.stdout).toMatch(new RegExp(`job [0-9a-f-]{36} succeeded: ${lines} artifact\\(s\\): 0 changed, 0 added, 0 removed, \\d+ unchanged`));
    expect(result.stderr).toMatch(/100%/);

    const usage = cairn(['reprocess', '--source', 'auth'], env);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/give --since or --start/);
  });

  it('imports a folder of Sigma rules through the API, then again as updates, and names what it skipped', async () => {
    const dataDir = tempDir();
    const server = await startCairn({ CAIRN_DATA_DIR: dataDir });
    const env = { CAIRN_DATA_DIR: dataDir, PORT: new URL(server.url).port };
    const rules = path.join(sigmaSampleDir(), 'rules');
    const files = fs.readdirSync(rules, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yml')).length;
    const first = await cairnAsync(['rules', 'import', rules, '--disabled'], env);
    expect(first.code, first.stderr).toBe(0);
    const summary = new RegExp(`^${files} file\\(s\\), ${files} rule\\(s\\): (\\d+) created, 0 updated, (\\d+) skipped`).exec(first.stdout);
    expect(summary, first.stdout).not.toBeNull();
    expect(Number(summary![1]) + Number(summary![2])).toBe(files);
    // What the sample's rules lack: a field cairn has no counterpart for (all their log sources map).
    expect(first.stdout).toMatch(/skipped ".+": field \S+ has no cairn field for this log source/);

    const again = await cairnAsync(['rules', 'import', path.join(rules, 'linux')], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/: 0 created, \d+ updated, 0 skipped/);

    const missing = cairn(['rules', 'import', path.join(dataDir, 'nothing-here')], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^cairn: cannot read .*nothing-here: no such file or folder/);
  });
});

describe('cairn start log lines', () => {
  const LISTENING = 'API listening on http://';
  // eslint-disable-next-line no-control-regex
  const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');

  /**
   * `cairn start` with standard output on a pseudo-terminal (util-linux `script`), until it listens;
   * then SIGTERM to cairn itself (the shell `script` runs prints its pid, then becomes cairn).
   */
  async function onTerminal(env: Record<string, string>): Promise<string> {
    const port = await freePort();
    const command = `echo "cairn pid $$"; exec '${process.execPath}' '${BIN}' start`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, CAIRN_LOG_LEVEL: 'info', CAIRN_DATA_DIR: tempDir(), PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await eventually(() => {
      if (child.exitCode !== null) throw new Error(`cairn start exited early:\n${output}`);
      expect(output).toContain(LISTENING);
    }, 60_000, 100);
    const pid = Number(/cairn pid (\d+)/.exec(output)![1]);
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(pid, 'SIGTERM');
    await exited;
    return plain(output);
  }

  it('prints readable lines on a terminal: time, level, message, fields', async () => {
    const output = await onTerminal({});
    expect(output).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}API listening on http:\/\/\S+ port=\d+$/m);
    expect(output).toMatch(/^\S+ INFO {2}runtime ready store="embedded chdb" bus=local state=local topology=fused$/m);
    expect(output).not.toMatch(/^\{"level"/m);
  }, 90_000);

  it('prints JSON on a terminal with CAIRN_LOG_FORMAT=json, and through a pipe', async () => {
    const forced = await onTerminal({ CAIRN_LOG_FORMAT: 'json' });
    const piped = await spawnCairn({ CAIRN_LOG_LEVEL: 'info', CAIRN_DATA_DIR: tempDir() });
    await piped.printed(LISTENING);
    for (const output of [forced, piped.output()]) {
      const listening = output.split('\n').find((l) => l.includes(LISTENING));
      expect(JSON.parse(listening!)).toMatchObject({ level: 30, service: 'cairn', msg: expect.stringContaining(LISTENING), port: expect.any(Number) });
    }
  }, 90_000);

  it('refuses an unknown CAIRN_LOG_FORMAT', () => {
    const result = cairn(['start'], { CAIRN_LOG_FORMAT: 'colourful', CAIRN_DATA_DIR: tempDir() });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/CAIRN_LOG_FORMAT: must be one of: json, pretty/);
  });
});
