// The records of one Linux audit event, joined. The kernel writes a syscall
// event as several records sharing "audit(EPOCH:SERIAL)": SYSCALL, then
// EXECVE, CWD, PATH (one per item), PROCTITLE ..., and an EOE that ends it
// (an AVC, CONFIG_CHANGE or NETFILTER_CFG comes first when the syscall
// caused one). Each record arrives as an artifact of its own and stays an
// event of its own; this step adds one event per serial with the merged
// view: the process from SYSCALL, EXECVE and PROCTITLE, the file from PATH
// and CWD, the outcome from SYSCALL, the categories of what happened.
//
// Pure: records in, joined events and the serials still waiting out. The
// stage keeps the waiting ones in hot state between batches
// (audit-join-writer.ts); pipeline/README.md says why and what a crash does.
//
// A serial is complete when its EOE arrives. Without one (the kernel's
// printk form never has it, some forwarders drop it) it is ended, marked
// incomplete, when a record of the same host is more than `horizonMs` younger
// (audit time: auparse's eoe_timeout rule), when it has waited `maxWaitMs`
// (wall clock, checked when a batch of its partition comes) or when more than
// `maxPending` serials wait (the oldest goes). A serial of one record gets no
// joined event: its own event is the whole of it.
import { posix } from 'node:path';
import type { EventRow } from '../../clickhouse/tables/events.js';
import { stableId } from '../../lib/ids.js';
import type { FieldValue, ParsedEvent } from '../../topics/index.js';
import { LINUX_AUDIT_PARSER } from '../parser/formats/linux-audit.js';
import { isStandaloneRecord } from '../parser/formats/linux-audit-tables.js';

type Fields = Record<string, FieldValue>;

/** A record's share in its event, as the worker that parsed it sends it to the main thread. */
export interface AuditRecord {
  org_id: string;
  source: string;
  artifact_id: string;
  received_at: string;
  /** host.hostname: node= or the syslog host; "" when the line names none. */
  node: string;
  /** "1364481363.243", as the line writes it. */
  epoch: string;
  serial: number;
  type: string;
  /** The fields the join reads (contribution), long values cut. */
  fields: Fields;
}

/** A serial whose records are not all in yet. */
export interface PendingSerial {
  key: string;
  org_id: string;
  source: string;
  node: string;
  epoch: string;
  serial: number;
  /** Wall-clock ms when the first of its records was held. */
  heldSince: number;
  /** The earliest received_at of its records. */
  received_at: string;
  records: { artifact_id: string; type: string; fields: Fields }[];
  /** Records past maxRecords: counted, not kept. */
  dropped: number;
}

export interface JoinLimits {
  /** Audit time: a serial ends when a record of its host this much younger arrives. */
  horizonMs: number;
  /** Wall clock: the longest a serial waits for its EOE, from its first record's batch. */
  maxWaitMs: number;
  /** Serials waiting at once (per partition); the oldest are ended past it. */
  maxPending: number;
  /** Records kept per serial (an event has a few; a rename of many paths a dozen). */
  maxRecords: number;
}

/** event.dataset of a joined event: a row of the events table only, which lead rules never see (a backfill leaves it out too). */
export const JOINED_AUDIT_DATASET = 'auditd.event';

export const DEFAULT_JOIN_LIMITS: JoinLimits = { horizonMs: 2000, maxWaitMs: 2000, maxPending: 1000, maxRecords: 64 };

export interface JoinOutcome {
  joined: EventRow[];
  pending: PendingSerial[];
}

// ---------------------------------------------------------------- on the worker

/** Fields of a record the join reads; the rest stays on the record's own event. */
const CONTRIBUTED_PREFIXES = ['process.', 'user.', 'file.', 'host.', 'service.', 'group.', 'source.', 'destination.'];
const CONTRIBUTED_FIELDS = new Set([
  'event.category', 'event.type', 'event.action', 'event.outcome', 'event.kind', 'rule.name',
  'auditd.log.key', 'auditd.log.syscall', 'auditd.log.syscall_name', 'auditd.log.success', 'auditd.log.exit', 'auditd.log.tty',
  'auditd.log.ses', 'auditd.log.arch', 'auditd.log.items', 'auditd.log.item', 'auditd.log.name', 'auditd.log.nametype', 'auditd.log.avc.result',
  'auditd.log.avc.permissions', 'auditd.log.scontext', 'auditd.log.tcontext', 'auditd.log.tclass', 'auditd.log.apparmor',
  'auditd.log.operation', 'auditd.log.profile', 'auditd.log.op', 'auditd.log.socket.family', 'auditd.log.socket.address',
  'auditd.log.socket.port', 'auditd.log.socket.path',
]);
/** Long values are cut in the contribution: the record's own event keeps them whole. */
const MAX_VALUE_LENGTH = 4096;
const MAX_LIST_LENGTH = 64;

function contributed(key: string): boolean {
  if (CONTRIBUTED_FIELDS.has(key)) return true;
  for (const prefix of CONTRIBUTED_PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}

function cut(value: FieldValue): FieldValue {
  if (typeof value === 'string') return value.length > MAX_VALUE_LENGTH ? value.slice(0, MAX_VALUE_LENGTH) : value;
  if (Array.isArray(value)) return value.slice(0, MAX_LIST_LENGTH).map((v) => (typeof v === 'string' && v.length > MAX_VALUE_LENGTH ? v.slice(0, MAX_VALUE_LENGTH) : v));
  return value;
}

/**
 * The record's share in its event, or null when it joins nothing: not an
 * audit record, a user-space record (one record an event), or one without a
 * serial (journald's form). Callers test `event.parser` first, so other
 * events cost one comparison.
 */
export function auditRecordOf(event: ParsedEvent): AuditRecord | null {
  if (event.parser !== LINUX_AUDIT_PARSER) return null;
  const f = event.fields;
  const type = f['auditd.log.record_type'];
  const serial = f['auditd.log.sequence'];
  const epoch = f['auditd.log.epoch'];
  if (typeof type !== 'string' || typeof serial !== 'number' || typeof epoch !== 'string' || isStandaloneRecord(type)) return null;
  const fields: Fields = {};
  for (const key in f) if (contributed(key)) fields[key] = cut(f[key]!);
  const node = f['host.hostname'];
  return {
    org_id: event.org_id,
    source: event.source,
    artifact_id: event.artifact_id,
    received_at: event.received_at,
    node: typeof node === 'string' ? node : '',
    epoch,
    serial,
    type,
    fields,
  };
}

// ---------------------------------------------------------------- the join

function serialKey(r: { org_id: string; node: string; epoch: string; serial: number }): string {
  return `${r.org_id}\u0000${r.node}\u0000${r.epoch}:${r.serial}`;
}

function hostKey(r: { org_id: string; node: string }): string {
  return `${r.org_id}\u0000${r.node}`;
}

/** Audit time in ms from "1364481363.243". */
function epochMs(epoch: string): number {
  const dot = epoch.indexOf('.');
  const seconds = Number(dot < 0 ? epoch : epoch.slice(0, dot));
  const fraction = dot < 0 ? 0 : Number(epoch.slice(dot + 1, dot + 4).padEnd(3, '0'));
  return seconds * 1000 + fraction;
}

/**
 * Adds a batch's records (in the order of their partition) to the serials
 * waiting from earlier batches, and ends what is complete or waited long
 * enough. Deterministic but for `now`: the same records after the same
 * pending serials give the same joined events, with the same ids.
 */
export function joinAuditRecords(waiting: readonly PendingSerial[], records: readonly AuditRecord[], now: number, limits: JoinLimits = DEFAULT_JOIN_LIMITS): JoinOutcome {
  // Insertion order is age: the oldest serial first, for the cap.
  const pending = new Map<string, PendingSerial>(waiting.map((s) => [s.key, { ...s, records: [...s.records] }]));
  const joined: EventRow[] = [];
  const ended = new Set<string>();
  const end = (serial: PendingSerial, complete: boolean) => {
    pending.delete(serial.key);
    // An id goes once into an insert (the engine does not fold rows within one): a serial ended twice in a
    // batch (its lines sent twice as new artifacts) keeps its first join.
    if (serial.records.length < 2 || ended.has(serial.key)) return;
    joined.push(joinedEventRow(serial, complete));
    ended.add(serial.key);
  };
  /** The youngest audit time seen per host, for the horizon. */
  const latest = new Map<string, number>();
  const noteTime = (host: string, ms: number) => {
    if (!(ms <= (latest.get(host) ?? -Infinity))) latest.set(host, ms);
  };
  for (const s of pending.values()) noteTime(hostKey(s), epochMs(s.epoch));

  for (const record of records) {
    const key = serialKey(record);
    let serial = pending.get(key);
    if (!serial) {
      serial = { key, org_id: record.org_id, source: record.source, node: record.node, epoch: record.epoch, serial: record.serial, heldSince: now, received_at: record.received_at, records: [], dropped: 0 };
      pending.set(key, serial);
      if (pending.size > limits.maxPending) end(pending.values().next().value!, false);
    }
    noteTime(hostKey(record), epochMs(record.epoch));
    // A record delivered again (a batch redelivered after a crash) is held once.
    if (!serial.records.some((r) => r.artifact_id === record.artifact_id)) {
      if (serial.records.length < limits.maxRecords) serial.records.push({ artifact_id: record.artifact_id, type: record.type, fields: record.fields });
      else serial.dropped++;
      if (record.received_at < serial.received_at) serial.received_at = record.received_at;
    }
    if (record.type === 'EOE') end(serial, true);
  }

  for (const serial of [...pending.values()]) {
    const horizon = (latest.get(hostKey(serial)) ?? -Infinity) - epochMs(serial.epoch);
    if (horizon > limits.horizonMs || now - serial.heldSince >= limits.maxWaitMs) end(serial, false);
  }
  return { joined, pending: [...pending.values()] };
}

// ---------------------------------------------------------------- the joined event

/** Records that add detail to a syscall event; any other record (AVC, CONFIG_CHANGE, ...) says what the event is. */
const AUXILIARY = new Set(['SYSCALL', 'EXECVE', 'PROCTITLE', 'CWD', 'PATH', 'SOCKADDR', 'EOE', 'FD_PAIR', 'BPRM_FCAPS', 'CAPSET', 'MMAP', 'OBJ_PID', 'IPC', 'IPC_SET_PERM', 'MQ_OPEN', 'MQ_SENDRECV', 'MQ_NOTIFY', 'MQ_GETSETATTR', 'KERNEL_OTHER']);
/** The syscall's socket is the far end: the peer it connects or sends to, or the one it accepted or heard from. */
const DESTINATION_SYSCALLS = new Set(['connect', 'sendto', 'sendmsg']);
const SOURCE_SYSCALLS = new Set(['accept', 'accept4', 'recvfrom', 'recvmsg']);

type Record_ = PendingSerial['records'][number];

function strings(value: FieldValue | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function union(target: string[], values: FieldValue | undefined): void {
  for (const v of strings(values)) if (!target.includes(v)) target.push(v);
}

/** The PATH that names the syscall's object: item order, a PARENT (the directory of a created or deleted name) only when nothing else. */
function objectPath(paths: Record_[]): Record_ | undefined {
  const byItem = [...paths].sort((a, b) => Number(a.fields['auditd.log.item'] ?? 0) - Number(b.fields['auditd.log.item'] ?? 0));
  return byItem.find((r) => r.fields['auditd.log.nametype'] !== 'PARENT') ?? byItem[0];
}

/**
 * A PATH name resolved against the process's working directory, "." and
 * ".." folded as text (the kernel followed symlinks; the log does not say
 * where, so a ".." after one may name another directory than it did).
 */
function resolvePath(name: FieldValue | undefined, cwd: FieldValue | undefined): string | undefined {
  if (typeof name !== 'string' || name === '(null)' || name === '') return undefined;
  if (name.startsWith('/')) return posix.normalize(name);
  if (typeof cwd !== 'string' || !cwd.startsWith('/')) return undefined;
  return posix.join(cwd, name);
}

/** The serial's records as one event (EVENT_COLUMNS row), its id from organization, host, epoch and serial. */
export function joinedEventRow(serial: PendingSerial, complete: boolean): EventRow {
  const records = serial.records;
  const first = (type: string) => records.find((r) => r.type === type);
  const syscall = first('SYSCALL');
  const primary = records.find((r) => !AUXILIARY.has(r.type)) ?? syscall ?? records[0]!;
  const cwdRecord = first('CWD');
  const cwd = cwdRecord?.fields['process.working_directory'] ?? cwdRecord?.fields['file.path'];
  const time = new Date(epochMs(serial.epoch)).toISOString();

  const fields: Fields = { '@timestamp': time };
  // The process and users as SYSCALL says, then the record that says what happened, then the others in order.
  const ordered = [...new Set([syscall, primary, first('EXECVE'), first('PROCTITLE'), ...records].filter((r): r is Record_ => r !== undefined))];
  for (const record of ordered) {
    for (const key in record.fields) {
      if (key.startsWith('file.') || key.startsWith('event.') || key.startsWith('auditd.')) continue;
      if (fields[key] === undefined) fields[key] = record.fields[key]!;
    }
  }
  if (typeof cwd === 'string') fields['process.working_directory'] = cwd;

  // The file: the object PATH resolved against CWD, else what the deciding record (AVC, AppArmor) names.
  const paths = records.filter((r) => r.type === 'PATH');
  const object = objectPath(paths);
  const fileSource = object ?? (primary.type !== 'CWD' ? primary : undefined);
  if (fileSource) for (const key in fileSource.fields) if (key.startsWith('file.')) fields[key] = fileSource.fields[key]!;
  if (object) {
    const path = resolvePath(object.fields['auditd.log.name'], cwd);
    if (path) fields['file.path'] = path;
    const all = paths.flatMap((r) => resolvePath(r.fields['auditd.log.name'], cwd) ?? []);
    if (all.length > 1) fields['auditd.log.paths'] = [...new Set(all)];
  }

  // The socket of SOCKADDR, as the peer of the syscall that named it.
  const socket = first('SOCKADDR')?.fields;
  const syscallName = syscall?.fields['auditd.log.syscall_name'];
  if (socket && typeof syscallName === 'string') {
    const side = DESTINATION_SYSCALLS.has(syscallName) ? 'destination' : SOURCE_SYSCALLS.has(syscallName) ? 'source' : undefined;
    const ip = socket['auditd.log.socket.address'];
    if (side && ip !== undefined) {
      fields[`${side}.ip`] = ip;
      if (socket['auditd.log.socket.port'] !== undefined) fields[`${side}.port`] = socket['auditd.log.socket.port'];
    }
  }

  // What happened: the deciding records and SYSCALL; the auxiliary ones only when nothing else says.
  const deciding = records.filter((r) => !AUXILIARY.has(r.type) || r === syscall);
  const categories: string[] = [];
  const types: string[] = [];
  for (const r of deciding.length > 0 ? deciding : records) {
    union(categories, r.fields['event.category']);
    union(types, r.fields['event.type']);
  }
  if (categories.length === 0) for (const r of records) union(categories, r.fields['event.category']);
  if (types.length === 0) for (const r of records) union(types, r.fields['event.type']);
  fields['event.kind'] = records.some((r) => r.fields['event.kind'] === 'alert') ? 'alert' : 'event';
  fields['event.module'] = 'auditd';
  fields['event.dataset'] = JOINED_AUDIT_DATASET;
  if (categories.length > 0) fields['event.category'] = categories;
  if (types.length > 0) fields['event.type'] = types;
  const action = primary.fields['event.action'];
  if (action !== undefined) fields['event.action'] = action;
  const outcome = syscall?.fields['event.outcome'] ?? primary.fields['event.outcome'];
  if (outcome !== undefined) fields['event.outcome'] = outcome;

  // The audit fields of the deciding records (the rule key, the syscall, the MAC decision).
  for (const record of [syscall, ...deciding]) {
    if (!record) continue;
    for (const key in record.fields) if (key.startsWith('auditd.log.') && fields[key] === undefined && !key.startsWith('auditd.log.socket.')) fields[key] = record.fields[key]!;
  }
  delete fields['auditd.log.item'];
  delete fields['auditd.log.nametype'];
  if (serial.node) {
    fields['host.hostname'] = serial.node;
    fields['auditd.log.node'] = serial.node;
  }
  fields['auditd.log.sequence'] = serial.serial;
  fields['auditd.log.epoch'] = serial.epoch;
  fields['auditd.log.record_type'] = primary.type;
  fields['auditd.log.record_types'] = records.map((r) => r.type);
  fields['auditd.log.records'] = records.length + serial.dropped;
  fields['auditd.log.complete'] = complete;
  fields['auditd.log.artifact_ids'] = records.map((r) => r.artifact_id);

  return {
    artifact_id: joinedEventId(serial),
    org_id: serial.org_id,
    source: serial.source,
    // The event's own time, a function of its id: a write repeated after a crash lands on the same key.
    timestamp: time,
    event_time: time,
    parser: LINUX_AUDIT_PARSER,
    fields,
    created_at: serial.received_at,
  };
}

/** The joined event's id: one per organization, host and audit serial, whichever batch or process writes it. */
export function joinedEventId(serial: { org_id: string; node: string; epoch: string; serial: number }): string {
  return stableId('auditd.event', serial.org_id, serial.node, `${serial.epoch}:${serial.serial}`);
}
