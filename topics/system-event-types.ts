// The system event types (SPEC section 6), alone in a module with no
// imports, so the console's notification rule form offers the same list the
// API checks (console/src/pages/settings.tsx) without bundling zod.
export const SYSTEM_EVENT_TYPES = [
  'parser.failure',
  'exporter.failure',
  'system.capacity_warning',
  'system.service_down',
  'system.cert_expiring',
  'auth.failure',
  'system.config_changed',
  // cairn extensions: detections analysts want to be told about (docs/notifications.md).
  'incident.created',
  'incident.severity_raised',
] as const;
