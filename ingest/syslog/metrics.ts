// What the syslog listeners did (Prometheus, `svc_` prefix, default registry;
// also in GET /api/v1/appliance/stats). Every message a listener reads is
// counted once under one outcome, so that nothing is dropped silently.
import { Counter } from 'prom-client';

/** What became of a message: accepted (the bus holds it), truncated (accepted, cut to the limit), dead_lettered, or why it was dropped. */
export type MessageOutcome = 'accepted' | 'truncated' | 'dead_lettered' | 'dropped_rate_limit' | 'dropped_lag' | 'dropped_bus_refused' | 'dropped_connection_lost';

/** Why a connection or datagram was refused or closed by us. */
export type RefusalReason = 'not_allowed' | 'too_many_connections' | 'idle_timeout' | 'tls_handshake_failed' | 'protocol_error';

export const syslogMetrics = {
  messages: new Counter({
    name: 'svc_syslog_messages_total',
    help: 'Syslog messages read, by listener (udp, tcp, tls, relp) and outcome (accepted, truncated, dead_lettered, dropped_*)',
    labelNames: ['listener', 'outcome'] as const,
  }),
  refused: new Counter({
    name: 'svc_syslog_refused_total',
    help: 'Syslog connections (datagrams for udp) refused or closed by cairn, by listener and reason',
    labelNames: ['listener', 'reason'] as const,
  }),
  pauses: new Counter({
    name: 'svc_syslog_backpressure_pauses_total',
    help: 'Times a syslog connection stopped reading because the pipeline was behind (CAIRN_INGEST_MAX_LAG), its sender over the rate limit, or its unsent messages many',
    labelNames: ['listener', 'reason'] as const,
  }),
};

export function countMessages(listener: string, outcome: MessageOutcome, n = 1): void {
  if (n > 0) syslogMetrics.messages.inc({ listener, outcome }, n);
}
