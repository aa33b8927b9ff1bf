// An OpenAI-compatible chat completions server for tests: it answers each
// POST /v1/chat/completions with the next reply of a script (text, tool
// calls, an HTTP error, or a delay) and keeps every request it received, so
// a test sees exactly what cairn sent to the model.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequest {
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: ChatMessage[];
    tools?: { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
    max_tokens?: number;
    temperature?: number;
  };
}

export type ScriptedReply =
  | { text: string; usage?: { prompt: number; completion: number } }
  | { toolCalls: { name: string; arguments: unknown }[]; text?: string; usage?: { prompt: number; completion: number } }
  | { status: number; error: string }
  | { delayMs: number; then: ScriptedReply };

/** A reply, or a function of the request that makes one (to answer from what cairn sent). */
export type ScriptStep = ScriptedReply | ((request: ChatRequest) => ScriptedReply);

export interface ScriptedLlm {
  /** Base URL to give as an AI configuration's base_url. */
  url: string;
  requests: ChatRequest[];
  /** Replaces the script; requests past its end answer 500 "script exhausted". */
  script(steps: ScriptStep[]): void;
  close(): Promise<void>;
}

let callCounter = 0;

function completion(request: ChatRequest, reply: Exclude<ScriptedReply, { status: number } | { delayMs: number }>) {
  const toolCalls = 'toolCalls' in reply ? reply.toolCalls.map((c) => ({ id: `call_${++callCounter}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) : undefined;
  const usage = reply.usage ?? { prompt: 100, completion: 20 };
  return {
    id: `chatcmpl-${callCounter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: reply.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
  };
}

export async function startScriptedLlm(): Promise<ScriptedLlm> {
  let steps: ScriptStep[] = [];
  const requests: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
          return;
        }
        const request: ChatRequest = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'] };
        requests.push(request);
        const step = steps.shift();
        let reply: ScriptedReply = step === undefined ? { status: 500, error: 'script exhausted' } : typeof step === 'function' ? step(request) : step;
        while ('delayMs' in reply) {
          await new Promise((r) => setTimeout(r, (reply as { delayMs: number }).delayMs));
          reply = reply.then;
        }
        if (res.destroyed) return;
        if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: reply.error, type: 'server_error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(request, reply)));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      steps = [...next];
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
