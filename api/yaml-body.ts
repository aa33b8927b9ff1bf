// Request bodies in YAML, for the routes that take a document users write
// as YAML (a decoder, the same file as the shipped catalogue's): with
// Content-Type application/yaml the body is parsed into the value the same
// document sent as JSON would give, then validated like it. The JSON body
// parser (app.ts) leaves such a body unread.
import type { Context } from 'koa';
import { parse } from 'yaml';
import { loneSurrogateAt, MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth.js';
import { HttpError } from './http-error.js';

export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** A decoder file is a few KiB; far past that is a mistake. */
export const MAX_YAML_BYTES = 1024 * 1024;

/** Whether the request carries a YAML body. */
export function isYamlRequest(ctx: Context): boolean {
  return typeof ctx.is(YAML_TYPES) === 'string';
}

async function readText(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_YAML_BYTES) throw new HttpError(413, 'payload_too_large', `a YAML request body is at most ${MAX_YAML_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new HttpError(400, 'bad_request', 'request body is not UTF-8 text');
  }
}

/** The YAML body as a value; 400 when it is not YAML, nests too deep or is not Unicode text. */
export async function readYamlBody(ctx: Context): Promise<unknown> {
  const text = await readText(ctx);
  let value: unknown;
  try {
    // The default alias limit (100) stops "billion laughs" documents; duplicate keys are errors.
    value = parse(text, { prettyErrors: true });
  } catch (err) {
    // Syntax errors, and the ReferenceError of too many aliases: parsing a text has no other way to fail.
    throw new HttpError(400, 'bad_request', `request body is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new HttpError(400, 'bad_request', `request body nests deeper than ${MAX_JSON_DEPTH} levels of mappings and lists`);
  const at = loneSurrogateAt(value);
  if (at) throw new HttpError(400, 'bad_request', `request body: ${at} is not valid Unicode text (it holds a lone surrogate)`);
  return value ?? {};
}
