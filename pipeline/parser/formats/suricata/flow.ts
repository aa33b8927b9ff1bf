// Packet and byte counters and the time span of flow and netflow records.
import { count, type Json } from '../../json-values.js';
import { isoString, parseIsoMillis } from '../../../../lib/iso-time.js';
import type { EventFields } from '../../types.js';

function addSpan(fields: EventFields, counters: Json): void {
  const start = typeof counters.start === 'string' ? parseIsoMillis(counters.start) : null;
  const end = typeof counters.end === 'string' ? parseIsoMillis(counters.end) : null;
  if (start !== null) fields['event.start'] = isoString(start);
  if (end !== null) fields['event.end'] = isoString(end);
  // event.duration is in nanoseconds (ECS).
  if (start !== null && end !== null && end >= start) fields['event.duration'] = (end - start) * 1_000_000;
}

const PACKETS = { source: 'source.packets', destination: 'destination.packets', network: 'network.packets' };
const BYTES = { source: 'source.bytes', destination: 'destination.bytes', network: 'network.bytes' };

function setCounters(fields: EventFields, names: typeof PACKETS, fromSource: number | undefined, fromDestination: number | undefined): void {
  if (fromSource !== undefined) fields[names.source] = fromSource;
  if (fromDestination !== undefined) fields[names.destination] = fromDestination;
  if (fromSource !== undefined || fromDestination !== undefined) fields[names.network] = (fromSource ?? 0) + (fromDestination ?? 0);
}

/** A flow's counters cover both directions: "toserver" is what the source sent. */
export function addFlow(fields: EventFields, flow: Json): void {
  setCounters(fields, PACKETS, count(flow.pkts_toserver), count(flow.pkts_toclient));
  setCounters(fields, BYTES, count(flow.bytes_toserver), count(flow.bytes_toclient));
  addSpan(fields, flow);
}

/** A netflow record is one direction: everything in it was sent by the source. */
export function addNetflow(fields: EventFields, netflow: Json): void {
  setCounters(fields, PACKETS, count(netflow.pkts), undefined);
  setCounters(fields, BYTES, count(netflow.bytes), undefined);
  addSpan(fields, netflow);
}

export function addFlowState(fields: EventFields, flow: Json): void {
  const type = fields['event.type'];
  if (!Array.isArray(type)) return;
  if (flow.state === 'new') type.push('start');
  else if (flow.state === 'closed') type.push('end');
}
