// Zeek conn.log to ECS, as Elastic's zeek package maps it: bytes and packets
// per side, the connection state (Zeek's conn_state codes, described as
// Zeek's documentation describes them) and the direction local_orig and
// local_resp say.
import { count, text } from '../json-values.js';
import type { EventFields } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';
import { nanoseconds } from './shared.js';
import type { ZeekLog } from './log.js';

interface ConnState {
  /** event.type beside "connection": a whole connection starts and ends; a partial one is info. */
  types: readonly string[];
  message: string;
  rejected?: true;
}

const STATES = lookupTable<ConnState>({
  S0: { types: ['start'], message: 'Connection attempt seen, no reply.' },
  S1: { types: ['start'], message: 'Connection established, not terminated.' },
  SF: { types: ['start', 'end'], message: 'Normal establishment and termination.' },
  REJ: { types: ['start', 'denied'], message: 'Connection attempt rejected.', rejected: true },
  S2: { types: ['info'], message: 'Established and close attempt by originator seen (but no reply from responder).' },
  S3: { types: ['info'], message: 'Established and close attempt by responder seen (but no reply from originator).' },
  RSTO: { types: ['start', 'end'], message: 'Established, originator aborted (sent a RST).' },
  RSTR: { types: ['start', 'end'], message: 'Established, responder aborted.' },
  RSTOS0: { types: ['start', 'end'], message: 'Originator sent a SYN followed by a RST, we never saw a SYN-ACK from the responder.' },
  RSTRH: { types: ['start', 'end'], message: 'Responder sent a SYN ACK followed by a RST, we never saw a SYN from the (purported) originator.' },
  SH: { types: ['start', 'end'], message: "Originator sent a SYN followed by a FIN, we never saw a SYN ACK from the responder (hence the connection was 'half' open)." },
  SHR: { types: ['info'], message: 'Responder sent a SYN ACK followed by a FIN, we never saw a SYN from the originator.' },
  OTH: { types: ['info'], message: "No SYN seen, just midstream traffic (a 'partial connection' that was not later closed)." },
});

/** local_orig / local_resp: whether each end is in Site::local_nets. */
function direction(localOrig: unknown, localResp: unknown): string | undefined {
  if (typeof localOrig !== 'boolean' || typeof localResp !== 'boolean') return undefined;
  if (localOrig) return localResp ? 'internal' : 'outbound';
  return localResp ? 'inbound' : 'external';
}

function addVolumes(fields: EventFields, record: Record<string, unknown>): void {
  // The IP-level byte counts: orig_bytes/resp_bytes count payload only, and miss what Zeek did not see.
  const sourceBytes = count(record.orig_ip_bytes);
  const destinationBytes = count(record.resp_ip_bytes);
  const sourcePackets = count(record.orig_pkts);
  const destinationPackets = count(record.resp_pkts);
  if (sourceBytes !== undefined) fields['source.bytes'] = sourceBytes;
  if (destinationBytes !== undefined) fields['destination.bytes'] = destinationBytes;
  if (sourcePackets !== undefined) fields['source.packets'] = sourcePackets;
  if (destinationPackets !== undefined) fields['destination.packets'] = destinationPackets;
  if (sourceBytes !== undefined && destinationBytes !== undefined) fields['network.bytes'] = sourceBytes + destinationBytes;
  if (sourcePackets !== undefined && destinationPackets !== undefined) fields['network.packets'] = sourcePackets + destinationPackets;
}

export const connLog: ZeekLog = {
  dataset: 'connection',
  mapped: new Set(['orig_ip_bytes', 'resp_ip_bytes', 'orig_pkts', 'resp_pkts']),
  map(fields, record) {
    fields['event.category'] = ['network'];
    const stateCode = text(record.conn_state);
    const state = stateCode !== undefined ? STATES[stateCode] : undefined;
    fields['event.type'] = ['connection', ...(state?.types ?? ['info'])];
    if (state) fields['zeek.connection.state_message'] = state.message;
    if (state?.rejected) fields['event.outcome'] = 'failure';
    // service is what Zeek's analyzers recognised ("dns", "ssl,http" when several did).
    const service = text(record.service);
    if (service) fields['network.protocol'] = service.split(',')[0]!.toLowerCase();
    const duration = nanoseconds(record.duration);
    if (duration !== undefined) fields['event.duration'] = duration;
    addVolumes(fields, record);
    const way = direction(record.local_orig, record.local_resp);
    if (way) fields['network.direction'] = way;
  },
};
