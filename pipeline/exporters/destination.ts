// One way to reach each destination type: a sender takes a batch of
// matching artifacts and resolves once the destination accepted all of them,
// or throws (the exporter then keeps the batch and tries again).
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import type { Logger } from '../../lib/logger.js';
import { OutboundClient, type OutboundPolicy } from '../../lib/outbound/client.js';
import { HttpSender } from './http.js';
import { KafkaSender } from './kafka.js';
import type { Destination } from './settings.js';
import { SyslogSender } from './syslog.js';

export interface Sender {
  /** Resolves once every artifact was accepted; `signal` aborts when the exporter stops. */
  send(artifacts: Artifact[], signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export function openSender(destination: Destination, policy: OutboundPolicy, logger: Logger): Sender {
  switch (destination.type) {
    case 'syslog':
      return new SyslogSender(destination.settings, policy);
    case 'http':
      return new HttpSender(destination.settings, new OutboundClient(policy));
    case 'kafka':
      return new KafkaSender(destination.settings, policy, logger);
  }
}
