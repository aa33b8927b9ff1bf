// Threat feeds for tests: a local HTTP server that serves documents the test
// sets (and changes) at paths, records each request, and can require a
// bearer token; and the calls a test makes to follow sync jobs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { TestApi } from './api.js';
import { eventually } from './buses.js';

export interface FeedAnswer {
  status?: number;
  body: string | object;
  headers?: Record<string, string>;
}

export interface FeedServer {
  url: string;
  /** Serves `body` at `path` from now on. */
  set(path: string, body: string | object, contentType?: string): void;
  /** Answers requests for `path` with what `answer` says for the URL (query included). */
  route(path: string, answer: (url: URL) => FeedAnswer): void;
  /** Request URLs (path and query) in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFeedServer(options: { bearer?: string } = {}): Promise<FeedServer> {
  const documents = new Map<string, { body: string; contentType: string }>();
  const routes = new Map<string, (url: URL) => FeedAnswer>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (options.bearer && req.headers.authorization !== `Bearer ${options.bearer}`) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const route = routes.get(url.pathname);
    if (route) {
      const answer = route(url);
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json', ...answer.headers }).end(text);
      return;
    }
    const doc = documents.get(url.pathname);
    if (!doc) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': doc.contentType }).end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set(path, body, contentType = typeof body === 'string' ? 'text/plain' : 'application/json') {
      documents.set(path, { body: typeof body === 'string' ? body : JSON.stringify(body), contentType });
    },
    route(path, answer) {
      routes.set(path, answer);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export interface JobView {
  id: string;
  status: string;
  fetched: number;
  added: number;
  updated: number;
  expired: number;
  removed: number;
  rejected: number;
  retro_sightings: number;
  error: string | null;
  cursor: string;
}

/** Waits until the subscription has `count` jobs and the newest is finished; returns that one. */
export async function finishedJob(api: TestApi, token: string, subscriptionId: string, count = 1): Promise<JobView> {
  return eventually(
    async () => {
      const res = await api.request('GET', `/api/v1/threatfeed/jobs?subscription_id=${subscriptionId}`, { token });
      expect(res.status, res.text).toBe(200);
      const { jobs } = res.body.data as { jobs: JobView[] };
      expect(jobs.length).toBeGreaterThanOrEqual(count);
      expect(['succeeded', 'failed']).toContain(jobs[0]!.status);
      return jobs[0]!;
    },
    30_000,
    100,
  );
}

/** Runs a sync of one subscription now and waits for it to finish. */
export async function syncNow(api: TestApi, token: string, subscriptionId: string): Promise<JobView> {
  const before = await api.request('GET', `/api/v1/threatfeed/jobs?subscription_id=${subscriptionId}`, { token });
  const res = await api.request('POST', '/api/v1/threatfeed/sync', { token, body: { subscription_id: subscriptionId } });
  expect(res.status, res.text).toBe(202);
  return finishedJob(api, token, subscriptionId, (before.body.data as { total: number }).total + 1);
}

/** A STIX 2.1 indicator for a pattern, with the times given. */
export function stixIndicator(id: string, pattern: string, times: { created?: string; validFrom?: string; validUntil?: string; revoked?: boolean; confidence?: number } = {}): Record<string, unknown> {
  const created = times.created ?? new Date().toISOString();
  return {
    type: 'indicator',
    spec_version: '2.1',
    id,
    created,
    modified: created,
    pattern,
    pattern_type: 'stix',
    valid_from: times.validFrom ?? created,
    ...(times.validUntil ? { valid_until: times.validUntil } : {}),
    ...(times.revoked ? { revoked: true } : {}),
    ...(times.confidence !== undefined ? { confidence: times.confidence } : {}),
  };
}
