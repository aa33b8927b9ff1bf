// A lead rule tried against stored events (POST /v1/lead-rules/test): how
// many events match and how many leads its threshold and grouping would have
// raised, computed in ClickHouse. The matching conditions come from the same
// query tree the rule stage evaluates (query/to-sql.ts); windows are counted
// the way pipeline/leads/evaluate.ts counts them: tumbling, aligned to the
// epoch in event time, per value of the group field (events without it do
// not count towards a lead).
import type { Store } from '../client.js';
import type { SqlParams } from '../sql.js';
import { artifactsByKey, type ArtifactKey } from './artifacts.js';
import { EVENT_TIME, eventFieldValues, eventScope, eventsOfArtifacts } from './events.js';

export interface RuleTrial {
  orgId: string;
  start: string;
  end: string;
  /** Only artifacts of this source (the rule's `source` condition). */
  source?: string;
  /** The rule's pattern, and each part of a sequence, as SQL conditions (parameters in `params`). */
  match: TrialCondition;
  parts?: TrialCondition[];
  params: SqlParams;
  threshold?: number;
  windowMs?: number;
  groupBy?: string;
  countDistinct?: string;
  samples: number;
}

/** A condition on events rows, or (when it tests raw text) on the artifacts table (columns id, raw, source). */
export interface TrialCondition {
  sql: string;
  on: 'events' | 'artifacts';
}

export interface RuleTrialSample {
  artifact_id: string;
  timestamp: string;
  source: string;
  raw: string;
}

export interface RuleTrialResult {
  events: number;
  leads: number;
  /** Windows (per group) that held matching events, counted whether or not they reached the threshold. */
  windows: number;
  samples: RuleTrialSample[];
}

export async function tryRule(store: Store, trial: RuleTrial): Promise<RuleTrialResult> {
  const { params } = trial;
  const scope = eventScope(trial, params);
  // A test on an events row: itself, or its artifact's membership among those the condition selects.
  const onEvent = ({ sql, on }: TrialCondition) => (on === 'events' ? `(${sql})` : eventsOfArtifacts(trial)(sql, params));
  const matchedEvents = `${scope.join(' AND ')} AND ${onEvent(trial.match)}`;

  const windowed = trial.threshold !== undefined && trial.windowMs !== undefined;
  const groupValues = trial.groupBy && trial.groupBy !== 'source' ? eventFieldValues(trial.groupBy, params) : '';
  const group = !trial.groupBy ? `''` : trial.groupBy === 'source' ? 'toNullable(toString(source))' : `if(notEmpty(${groupValues}), ${groupValues}[1], NULL)`;
  const window = windowed ? `intDiv(toUnixTimestamp64Milli(${EVENT_TIME}), ${params.add(trial.windowMs!, 'UInt64')})` : '0';
  let counted = 'count()';
  if (trial.parts?.length) {
    // Which parts of the sequence the window holds, as bits: all of them fire.
    const bits = trial.parts.map((part, i) => `if(${onEvent(part)}, ${2 ** i}, 0)`).join(' + ');
    counted = `bitCount(groupBitOr(toUInt64(${bits})))`;
  } else if (trial.countDistinct) {
    counted = `uniqExactArray(${eventFieldValues(trial.countDistinct, params)})`;
  }
  const threshold = windowed ? params.add(trial.threshold!, 'UInt64') : '1';
  const countsQuery = `
    SELECT sum(c) AS events, countIf(g IS NOT NULL AND k >= ${threshold}) AS leads, countIf(g IS NOT NULL) AS windows
    FROM (
      SELECT ${group} AS g, ${window} AS w, count() AS c, ${windowed ? counted : 'count()'} AS k
      FROM events WHERE ${matchedEvents}
      GROUP BY g, w
    )`;
  // Without a threshold every matching event is a lead of its own.
  const leadsPerEvent = !windowed;
  // The newest matching events, then their artifacts through the primary key.
  const samplesQuery = `
    SELECT toString(artifact_id) AS id, timestamp FROM events WHERE ${matchedEvents}
    ORDER BY timestamp DESC, artifact_id DESC LIMIT ${params.add(trial.samples, 'UInt32')}`;
  const [counts, samples] = await Promise.all([
    store.query({ query: countsQuery, query_params: params.values, format: 'JSONEachRow' }).then((r) => r.json<{ events: string | number; leads: string | number; windows: string | number }>()),
    trial.samples === 0
      ? []
      : store
          .query({ query: samplesQuery, query_params: params.values, format: 'JSONEachRow' })
          .then((r) => r.json<ArtifactKey>())
          .then((keys) => artifactsByKey(store, trial.orgId, keys)),
  ]);
  const row = counts[0] ?? { events: 0, leads: 0, windows: 0 };
  const events = Number(row.events);
  return {
    events,
    leads: leadsPerEvent ? events : Number(row.leads),
    windows: leadsPerEvent ? events : Number(row.windows),
    samples: samples.map(({ id, timestamp, source, raw }) => ({ artifact_id: id, timestamp, source, raw })),
  };
}
