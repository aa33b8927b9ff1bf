// What the auth message readers share: how a reader is called, and how the
// user, the peer and the ECS categorisation are written.
import { canonicalIp } from '../../ip.js';
import type { EventFields } from '../../types.js';

/** Reads one program's message into `fields`; false when the message is not a shape it knows. */
export type Interpreter = (message: string, fields: EventFields) => boolean;
export type Outcome = 'success' | 'failure';

export function setUser(fields: EventFields, name: string | undefined, field = 'user.name'): void {
  if (name) fields[field] = name;
}

export const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** A peer address: an IP goes to source.ip, a name (sshd with UseDNS, PAM rhost) to source.domain. */
export function setSource(fields: EventFields, address: string | undefined, port?: string): void {
  if (address) {
    const ip = canonicalIp(address);
    if (ip) fields['source.ip'] = ip;
    else if (HOST_NAME.test(address) && address !== 'UNKNOWN') fields['source.domain'] = address;
  }
  if (port) fields['source.port'] = Number(port);
}

export function categorize(fields: EventFields, category: string[], type: string[], action: string, outcome?: Outcome): void {
  fields['event.category'] = category;
  fields['event.type'] = type;
  fields['event.action'] = action;
  if (outcome) fields['event.outcome'] = outcome;
}
