// Artifact exporters (issue 15, point 7): being written.
import type { Route } from '../route.js';

export const exporterRoutes: Route[] = [];
