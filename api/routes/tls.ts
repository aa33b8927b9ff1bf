// TLS certificates (SPEC 4.11, 2.13): being written (issue 14).
import type { Route } from '../route.js';

export const tlsRoutes: Route[] = [];
