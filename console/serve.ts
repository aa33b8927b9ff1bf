// Serves the console at / beside the API: the built script and style under
// /assets/ (hashed names, cached for good), and the one HTML page for every
// other GET that is not the API's, so a deep link (/search?q=..., a
// bookmarked incident) opens the app at that place. Every answer carries the
// security headers below.
import { gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';
import { ASSETS_PREFIX, buildConsole, type ConsoleBuild } from './build.js';

/** Paths the console never answers: the API, TAXII, health and metrics keep theirs (and their JSON 404s). */
const NOT_THE_CONSOLE = /^\/(api|v1|taxii2|healthz|metrics|readyz|livez)(\/|$)/;

/**
 * No inline script or style, nothing from another origin, no framing (clickjacking), no <base> tricks.
 * connect-src 'self': the app talks only to this API.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

interface Served extends ConsoleBuild {
  gzipped: Map<string, Buffer>;
}

let building: Promise<Served> | null = null;

/** Builds once per process (at server start, or on the first console request) and keeps it in memory. */
export function consoleBuild(): Promise<Served> {
  building ??= buildConsole().then((built) => {
    const gzipped = new Map<string, Buffer>();
    for (const [urlPath, file] of built.assets) gzipped.set(urlPath, gzipSync(file.body));
    gzipped.set('/', gzipSync(built.indexHtml));
    return { ...built, gzipped };
  });
  // A failed build is tried again on the next request rather than remembered.
  building.catch(() => (building = null));
  return building;
}

export function consoleRoutes(): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || NOT_THE_CONSOLE.test(ctx.path)) return next();
    const built = await consoleBuild();
    const isAsset = ctx.path.startsWith(ASSETS_PREFIX);
    const file = isAsset ? built.assets.get(ctx.path) : undefined;
    if (isAsset && !file) return next();
    ctx.set(SECURITY_HEADERS);
    ctx.vary('Accept-Encoding');
    const key = file ? file.urlPath : '/';
    ctx.type = file ? file.contentType : 'text/html; charset=utf-8';
    // Hashed names never change content; the page is asked again each time so a new build is picked up.
    ctx.set('Cache-Control', file ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = built.gzipped.get(key);
    } else {
      ctx.body = file ? file.body : built.indexHtml;
    }
  };
}
