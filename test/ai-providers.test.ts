// The Anthropic adapter against a local server speaking the Messages API
// (the OpenAI one is exercised end to end by test/api/ai.test.ts): what it
// sends for a conversation with tool calls, what it makes of the answer,
// and a provider error as a ProviderError with the provider's message.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../ai/providers/index.js';
import { ProviderError } from '../ai/providers/types.js';
import { OutboundClient, outboundPolicy } from '../lib/outbound/client.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  url: string;
  body: Record<string, unknown>;
}

const received: Received[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, url: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const provider = () => createProvider({ provider: 'anthropic', baseUrl, model: 'claude-test', apiKey: 'sk-ant-test', timeoutMs: 5000 }, new OutboundClient(outboundPolicy(['127.0.0.1'])));

const request = {
  system: 'be brief',
  turns: [
    { role: 'user' as const, text: 'what happened?' },
    { role: 'assistant' as const, text: 'Looking.', toolCalls: [{ id: 'toolu_1', name: 'list_incidents', arguments: { limit: 5 } }] },
    { role: 'tool' as const, callId: 'toolu_1', name: 'list_incidents', content: '<cairn_tool_result tool="list_incidents" status="ok">\n{}\n</cairn_tool_result>', isError: false },
    { role: 'user' as const, text: 'and now?' },
  ],
  tools: [{ name: 'list_incidents', description: 'List incidents', parameters: { type: 'object', properties: { limit: { type: 'integer' } } } }],
  maxOutputTokens: 256,
  temperature: 1.5,
  timeoutMs: 5000,
};

describe('the Anthropic adapter', () => {
  it('sends the conversation as alternating turns with tool results in a user turn, and reads text, tool calls and usage', async () => {
    answer = {
      status: 200,
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'text', text: 'Checking the graph.' }, { type: 'tool_use', id: 'toolu_2', name: 'graph_neighbours', input: { value: '203.0.113.7' } }],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 321, output_tokens: 45 },
      },
    };
    const reply = await (await provider()).complete(request);
    expect(reply).toEqual({ text: 'Checking the graph.', toolCalls: [{ id: 'toolu_2', name: 'graph_neighbours', arguments: { value: '203.0.113.7' } }], finish: 'tool_use', truncated: false, usage: { promptTokens: 321, completionTokens: 45 } });
    const sent = received.at(-1)!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers.authorization).toBe('Bearer sk-ant-test');
    expect(sent.body).toMatchObject({ model: 'claude-test', system: 'be brief', max_tokens: 256, temperature: 1, tools: [{ name: 'list_incidents', description: 'List incidents', input_schema: { type: 'object', properties: { limit: { type: 'integer' } } } }] });
    expect(sent.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'what happened?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'list_incidents', input: { limit: 5 } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: request.turns[2]!.content, is_error: false }, { type: 'text', text: 'and now?' }] },
    ]);
  });

  it('turns an error answer into a ProviderError carrying the provider\'s message and status', async () => {
    answer = { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded right now' } } };
    const failure = await (await provider()).complete(request).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ kind: 'upstream', status: 529 });
    expect((failure as Error).message).toContain('Overloaded right now');
  });

  it('never looks for credentials of its own when the configuration has no key', async () => {
    answer = { status: 200, body: { id: 'msg_2', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
    const keyless = createProvider({ provider: 'anthropic', baseUrl, model: 'claude-test', apiKey: '', timeoutMs: 5000 }, new OutboundClient(outboundPolicy(['127.0.0.1'])));
    expect((await (await keyless).complete(request)).text).toBe('hi');
    expect(received.at(-1)!.headers.authorization).toBe('Bearer no-key');
  });
});
