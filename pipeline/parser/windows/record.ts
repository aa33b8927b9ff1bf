// One Windows event as every shipping form carries it (Winlogbeat's ECS JSON,
// NXLog's flat JSON, the rendered EventLog XML, the Snare tab form): the
// System part (channel, provider, id, computer, time ...) and the event's own
// data (EventData, or UserData for events such as 1102), names as Windows
// gives them. The readers fill it, map.ts turns it into ECS.
import type { EventFields } from '../types.js';

export interface WinEvent {
  /** The event id, as text ("4624"). */
  eventId: string;
  channel?: string;
  provider?: string;
  computer?: string;
  recordId?: string;
  /** When the event was written, ISO 8601 UTC. */
  time?: string;
  /** What the Audit Success / Audit Failure keyword says, for audit events. */
  audit?: 'success' | 'failure';
  keywords?: string[];
  level?: string;
  /** The task (category) and opcode, as names when the form renders them. */
  task?: string;
  opcode?: string;
  version?: number;
  /** The process and thread that wrote the event (Execution). */
  processId?: number;
  threadId?: number;
  /** The SID of System/Security UserID, and the account name when the form resolves it. */
  userSid?: string;
  userName?: string;
  userDomain?: string;
  /** EventData by name (unnamed Data elements are param1, param2 ... as Winlogbeat names them). */
  data: Record<string, string>;
  /** UserData's fields by name. */
  userData: Record<string, string>;
  /** The rendered message, when the form carries it. */
  message?: string;
  /** Fields of the shipper's own document to keep (Winlogbeat's host.*, agent.* ...), flat. */
  extra?: EventFields;
  /** An event.action the shipper set (Winlogbeat's rendered task name), used when the event id has none. */
  action?: string;
}

/** The value of a data field unless Windows wrote its placeholder for none ("-", empty). */
export function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' || value === '-' ? undefined : value;
}
