// Zeek's logs of remote access and authentication protocols to ECS, as
// Elastic's zeek package maps them: kerberos.log (a ticket request; the
// client principal is the user), ntlm.log, ssh.log (whether the login
// succeeded, as Zeek's heuristics tell) and rdp.log.
import { count, text } from '../json-values.js';
import type { EventFields } from '../types.js';
import type { ZeekLog } from './log.js';

function addOutcome(fields: EventFields, success: unknown): void {
  if (typeof success === 'boolean') fields['event.outcome'] = success ? 'success' : 'failure';
}

export const kerberosLog: ZeekLog = {
  dataset: 'kerberos',
  mapped: new Set(),
  map(fields, record) {
    fields['event.category'] = ['network', 'authentication'];
    fields['event.type'] = ['connection', 'protocol', 'access'];
    fields['network.protocol'] = 'kerberos';
    // request_type is AS (a ticket-granting ticket) or TGS (a service ticket).
    const requestType = text(record.request_type);
    if (requestType) fields['event.action'] = requestType;
    // The client principal, "user/REALM".
    const client = text(record.client);
    if (client) {
      const slash = client.indexOf('/');
      fields['user.name'] = slash > 0 ? client.slice(0, slash) : client;
      if (slash > 0 && slash < client.length - 1) fields['user.domain'] = client.slice(slash + 1);
    }
    addOutcome(fields, record.success);
  },
};

export const ntlmLog: ZeekLog = {
  dataset: 'ntlm',
  transport: 'tcp',
  mapped: new Set(),
  map(fields, record) {
    fields['event.category'] = ['network', 'authentication'];
    fields['event.type'] = ['connection', 'info'];
    fields['network.protocol'] = 'ntlm';
    const username = text(record.username);
    if (username) fields['user.name'] = username;
    const domain = text(record.domainname);
    if (domain) fields['user.domain'] = domain;
    addOutcome(fields, record.success);
  },
};

export const sshLog: ZeekLog = {
  dataset: 'ssh',
  transport: 'tcp',
  mapped: new Set(),
  map(fields, record) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'protocol'];
    fields['network.protocol'] = 'ssh';
    addOutcome(fields, record.auth_success);
    const direction = text(record.direction);
    if (direction === 'INBOUND' || direction === 'OUTBOUND') fields['network.direction'] = direction.toLowerCase();
  },
};

export const rdpLog: ZeekLog = {
  dataset: 'rdp',
  transport: 'tcp',
  mapped: new Set(),
  map(fields, record) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['protocol', 'info'];
    fields['network.protocol'] = 'rdp';
    if (typeof record.ssl === 'boolean') fields['tls.established'] = record.ssl;
    const certificates = count(record.cert_count);
    if (certificates !== undefined && certificates > 0) fields['tls.established'] = true;
  },
};
