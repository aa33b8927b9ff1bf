// Describing the API itself.
import { z } from 'zod';
import { VERSION } from '../../lib/version.js';
import { buildOpenApiDocument } from '../openapi.js';
import { defineRoute, type Route } from '../route.js';

/** The OpenAPI route describes every route, itself included, so it is built from the full list. */
export function metaRoutes(allRoutes: () => Route[]): Route[] {
  let document: Record<string, unknown> | null = null;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/openapi.json',
      summary: 'This API described as OpenAPI 3.1 (public)',
      tag: 'Meta',
      permission: null,
      envelope: false,
      response: z.record(z.string(), z.unknown()),
      async handler() {
        document ??= buildOpenApiDocument(allRoutes(), VERSION);
        return { message: 'OpenAPI document', data: document };
      },
    }),
  ];
}
