// Builds the console (console/src, Preact + TSX) with esbuild, in memory.
// The server builds it at start from the sources it runs with, so what it
// serves can never be older than the code beside it (no dist/ to forget).
// `node --import tsx console/build.ts [dir]` writes the same files to a
// directory and prints their sizes, e.g. to look at what ships.
// Code splitting: a page's heavy library (the graph explorer's cytoscape) is
// loaded with a dynamic import(), so it is its own file fetched when that
// page opens, and the initial JavaScript is only the entry and what it
// imports statically.
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
  /** The hashed script and style files under ASSETS_PREFIX, by URL path: the entry, the chunks it shares, and the lazily loaded ones. */
  assets: Map<string, ConsoleFile>;
  /** The JavaScript the index page loads before anything else (the entry and its static imports), gzipped (the budget is 250 KB). */
  initialJsGzipBytes: number;
  /** URL paths of that initial JavaScript, the entry first; the rest are fetched by a dynamic import() when a page needs them. */
  initialScripts: string[];
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
    chunkNames: 'chunk-[hash]',
    splitting: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = new Map<string, ConsoleFile>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const urlPath = ASSETS_PREFIX + name;
    assets.set(urlPath, { urlPath, contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream', body: Buffer.from(file.contents) });
  }
  const outputs = result.metafile.outputs;
  const entry = Object.keys(outputs).find((out) => out.endsWith('.js') && outputs[out]!.entryPoint !== undefined && path.basename(outputs[out]!.entryPoint!) === 'main.tsx');
  if (!entry) throw new Error('the console build made no script');
  const initial = staticClosure(outputs, entry);
  const initialScripts = initial.map((out) => ASSETS_PREFIX + path.basename(out));
  const initialJsGzipBytes = initialScripts.reduce((sum, urlPath) => sum + gzipSync(assets.get(urlPath)!.body).length, 0);
  const style = outputs[entry]!.cssBundle ? ASSETS_PREFIX + path.basename(outputs[entry]!.cssBundle!) : '';
  return { indexHtml: indexPage(initialScripts, style), assets, initialJsGzipBytes, initialScripts, buildMs: Math.round(performance.now() - started) };
}

/** An output and the chunks it imports statically, transitively (dynamic imports left out: they load later). */
function staticClosure(outputs: esbuild.Metafile['outputs'], start: string): string[] {
  const seen = [start];
  for (let i = 0; i < seen.length; i++) {
    for (const imported of outputs[seen[i]!]!.imports) {
      if (imported.kind === 'import-statement' && !imported.external && !seen.includes(imported.path)) seen.push(imported.path);
    }
  }
  return seen;
}

/** No inline script or style: the Content-Security-Policy allows only files from this origin. */
function indexPage([script, ...sharedChunks]: string[], style: string): string {
  // The chunks the entry imports are asked for at once, not after the entry has been parsed.
  const preloads = sharedChunks.map((chunk) => `<link rel="modulepreload" href="${chunk}">\n`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>cairn</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="${style}">\n` : ''}${preloads}<script type="module" src="${script}"></script>
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
  for (const file of built.assets.values()) {
    const when = built.initialScripts.includes(file.urlPath) || file.urlPath.endsWith('.css') ? 'initial' : 'lazy';
    console.log(`${file.urlPath}  ${file.body.length} bytes, ${gzipSync(file.body).length} gzipped (${when})`);
  }
  console.log(`initial JavaScript: ${built.initialJsGzipBytes} bytes gzipped; built in ${built.buildMs} ms`);
}
