// The rest of Zeek's default logs to ECS, as Elastic's zeek package maps
// them: files.log (a file seen on the wire, its hashes), notice.log (Zeek's
// own detections: alerts), weird.log (protocol anomalies) and dhcp.log (a
// lease: the client and the server, over UDP 68 to 67).
import { count, text, type Json } from '../json-values.js';
import type { EventFields } from '../types.js';
import { setAddress } from './shared.js';
import type { ZeekLog } from './log.js';

function firstText(value: unknown): string | undefined {
  return Array.isArray(value) ? text(value[0]) : text(value);
}

export const filesLog: ZeekLog = {
  dataset: 'files',
  mapped: new Set(['mime_type', 'filename', 'md5', 'sha1', 'sha256', 'total_bytes']),
  map(fields, record) {
    fields['event.category'] = ['file'];
    fields['event.type'] = ['info'];
    // Before Zeek 5, files.log named the hosts that sent and received the file instead of a connection.
    setAddress(fields, 'server.ip', 'server.address', firstText(record.tx_hosts));
    setAddress(fields, 'client.ip', 'client.address', firstText(record.rx_hosts));
    const connection = firstText(record.conn_uids);
    if (connection && fields['zeek.session_id'] === undefined) {
      fields['zeek.session_id'] = connection;
      fields['event.id'] = connection;
    }
    const mime = text(record.mime_type);
    if (mime) fields['file.mime_type'] = mime;
    const name = text(record.filename);
    if (name) fields['file.name'] = name;
    for (const hash of ['md5', 'sha1', 'sha256'] as const) {
      const value = text(record[hash]);
      if (value) fields[`file.hash.${hash}`] = value;
    }
    const size = count(record.total_bytes);
    if (size !== undefined) fields['file.size'] = size;
  },
};

export const noticeLog: ZeekLog = {
  dataset: 'notice',
  kind: 'alert',
  mapped: new Set(['note', 'msg']),
  map(fields, record) {
    fields['event.category'] = ['intrusion_detection'];
    const types = ['info'];
    // dropped: whether Zeek's notice framework blocked the address (ACTION_DROP).
    if (record.dropped === false) types.push('allowed');
    if (record.dropped === true) types.push('denied');
    fields['event.type'] = types;
    const note = text(record.note);
    if (note) fields['rule.name'] = note;
    const message = text(record.msg);
    if (message) {
      fields['rule.description'] = message;
      fields.message = message;
    }
    // src/dst/p name the addresses of a notice that is about no one connection.
    if (fields['source.ip'] === undefined) setAddress(fields, 'source.ip', 'source.address', record.src);
    if (fields['destination.ip'] === undefined) setAddress(fields, 'destination.ip', 'destination.address', record.dst);
    const port = count(record.p);
    if (port !== undefined && fields['destination.port'] === undefined) fields['destination.port'] = port;
  },
};

export const weirdLog: ZeekLog = {
  dataset: 'weird',
  mapped: new Set(),
  map(fields) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['info'];
  },
};

function addDhcpEndpoints(fields: EventFields, record: Json): void {
  setAddress(fields, 'source.ip', 'source.address', record.client_addr);
  setAddress(fields, 'destination.ip', 'destination.address', record.server_addr);
  // DHCP is client port 68 to server port 67 over UDP (RFC 2131).
  fields['source.port'] = 68;
  fields['destination.port'] = 67;
  fields['network.transport'] = 'udp';
}

export const dhcpLog: ZeekLog = {
  dataset: 'dhcp',
  mapped: new Set(['uids']),
  map(fields, record) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'protocol', 'info'];
    fields['network.protocol'] = 'dhcp';
    addDhcpEndpoints(fields, record);
    const uids = Array.isArray(record.uids) ? record.uids.filter((u): u is string => typeof u === 'string' && u !== '') : [];
    if (uids.length > 0) {
      fields['zeek.session_id'] = uids;
      fields['event.id'] = uids;
    }
    const mac = text(record.mac);
    if (mac) fields['source.mac'] = mac.toUpperCase().replaceAll(':', '-');
  },
};
