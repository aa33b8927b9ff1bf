// Builds the OpenAPI 3.1 document from the route declarations, so that the
// document cannot drift from what the routes validate.
import { z } from 'zod';
import type { Route } from './route.js';

type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query') {
  if (!schema) return [];
  const json = toJsonSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (required.has(name) && property.default === undefined),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid parameters or body',
  401: 'Missing, invalid or expired token',
  403: 'The token lacks the required permission',
  404: 'Not found',
  413: 'Request body too large',
  415: 'Unsupported Content-Type or Content-Encoding',
  409: 'Conflicts with the current state (e.g. a duplicate email, the last admin)',
  429: 'Too many requests (pipeline behind, or too many failed logins); retry after the Retry-After header',
  500: 'Internal error',
  503: 'The message bus did not take what the request produces (a broker down or moving its leaders); retry after the Retry-After header',
};

/** A body's media types: JSON, and the same document as YAML for the routes that take it. */
function requestContent(schema: JsonSchema, yaml: boolean | undefined): Record<string, { schema: JsonSchema }> {
  return { 'application/json': { schema }, ...(yaml ? { 'application/yaml': { schema } } : {}) };
}

/** An error answer's media types: the error envelope, or the route's own protocol's error (OTLP's Status) in each media type it takes. */
function errorContent(route: Route): Record<string, { schema: JsonSchema }> {
  if (!route.errorBody) return { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const types = route.rawBody ? Object.keys(route.rawBody.types) : ['application/json'];
  return Object.fromEntries(types.map((type) => [type, { schema: { description: route.errorBody!.description } }]));
}

export function buildOpenApiDocument(routes: Route[], version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/api${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
    const authErrors = route.permission === null ? [] : route.permission === 'authenticated' ? [401] : [401, 403];
    const errors = new Set([400, 500, ...authErrors, ...(route.errors ?? [])]);
    const data = toJsonSchema(route.response, 'output');
    const success =
      route.envelope === false
        ? data
        : {
            type: 'object',
            required: ['success', 'message', 'data'],
            properties: { success: { const: true }, message: { type: 'string' }, data },
          };
    paths[path] ??= {};
    paths[path][route.method] = {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(route.permission
        ? { security: route.session ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }, { sessionCookie: [] }], ...(route.permission === 'authenticated' ? {} : { 'x-permission': route.permission }) }
        : { security: [] }),
      parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
      ...(route.body ? { requestBody: { required: true, content: requestContent(toJsonSchema(route.body, 'input'), route.yamlBody) } } : {}),
      ...(route.rawBody
        ? {
            requestBody: {
              required: true,
              description: `At most ${route.rawBody.limit} bytes, also once decompressed; Content-Encoding gzip or deflate is undone.`,
              content: Object.fromEntries(Object.entries(route.rawBody.types).map(([type, description]) => [type, { schema: { type: 'string', format: 'binary', description } }])),
            },
          }
        : {}),
      ...(route.multipart
        ? {
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    required: route.multipart.required,
                    properties: Object.fromEntries(Object.entries(route.multipart.parts).map(([name, description]) => [name, { type: 'string', description }])),
                  },
                },
              },
            },
          }
        : {}),
      responses: {
        [String(route.successStatus ?? 200)]: {
          description: 'Success',
          content: { 'application/json': { schema: success }, ...Object.fromEntries((route.fileTypes ?? []).map((type) => [type, { schema: { type: 'string' } }])) },
        },
        ...Object.fromEntries(
          [...errors].sort().map((status) => [
            String(status),
            { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: errorContent(route) },
          ]),
        ),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'cairn API',
      version,
      description:
        'Security analytics: artifacts, knowledge graph, lead rules, observations and incidents. Every /v1 route takes a bearer token: the JWT (HS256) from POST /api/v1/auth/login (or `cairn token`), or an API key (cairn_...); or the session cookie set at login, with an Origin header of this site or X-CSRF-Token on state-changing requests. See docs/identity.md.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A JWT from login or `cairn token`, or an API key (cairn_<id>_<secret>)' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'cairn_session' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['success', 'message', 'data', 'error'],
          properties: {
            success: { const: false },
            message: { type: 'string' },
            data: { type: 'null' },
            error: { type: 'object', required: ['code', 'details'], properties: { code: { type: 'string' }, details: {} } },
          },
        },
      },
    },
  };
}
