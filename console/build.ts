// Builds the console (console/src, Preact + TSX) with esbuild, in memory.
// The server builds it at start from the sources it runs with, so what it
// serves can never be older than the code beside it (no dist/ to forget).
// `node --import tsx console/build.ts [dir]` writes the same files to a
// directory and prints their sizes, e.g. to look at what ships.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const SOURCE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'src');
/** Where the built files are served from; their names carry a content hash, so they are cached for good. */
export const ASSETS_PREFIX = '/assets/';

export interface ConsoleFile {
  /** The URL path, e.g. /assets/main-3F2A1B.js */
  urlPath: string;
  contentType: string;
  body: Buffer;
}

export interface ConsoleBuild {
  /** The one HTML page every console route answers. */
  indexHtml: string;
  /** The hashed script and style files under ASSETS_PREFIX, by URL path. */
  assets: Map<string, ConsoleFile>;
  /** The JavaScript the index page loads before anything else, gzipped (the budget is 250 KB). */
  initialJsGzipBytes: number;
  buildMs: number;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export async function buildConsole(): Promise<ConsoleBuild> {
  const started = performance.now();
  const result = await esbuild.build({
    entryPoints: [path.join(SOURCE_DIR, 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir: '/out',
    entryNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = new Map<string, ConsoleFile>();
  let script = '';
  let style = '';
  let initialJsGzipBytes = 0;
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const urlPath = ASSETS_PREFIX + name;
    const body = Buffer.from(file.contents);
    assets.set(urlPath, { urlPath, contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream', body });
    if (name.endsWith('.js')) {
      script = urlPath;
      initialJsGzipBytes += gzipSync(body).length;
    }
    if (name.endsWith('.css')) style = urlPath;
  }
  if (!script) throw new Error('the console build made no script');
  return { indexHtml: indexPage(script, style), assets, initialJsGzipBytes, buildMs: Math.round(performance.now() - started) };
}

/** No inline script or style: the Content-Security-Policy allows only files from this origin. */
function indexPage(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>cairn</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="${style}">\n` : ''}<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><noscript>The cairn console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildConsole();
  const outDir = process.argv[2];
  if (outDir) {
    fs.mkdirSync(path.join(outDir, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(outDir, 'index.html'), built.indexHtml);
    for (const file of built.assets.values()) fs.writeFileSync(path.join(outDir, file.urlPath), file.body);
  }
  for (const file of built.assets.values()) console.log(`${file.urlPath}  ${file.body.length} bytes, ${gzipSync(file.body).length} gzipped`);
  console.log(`initial JavaScript: ${built.initialJsGzipBytes} bytes gzipped; built in ${built.buildMs} ms`);
}
