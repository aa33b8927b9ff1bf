// Which rules an event may match, without trying every rule on it. Most
// rules require one of a few values of fields (`event.category:authentication`,
// `event.code:(4624 OR 4625)`, `process.name:sudo OR event.action:sudo-command`):
// such a rule is filed under those values (its gate, query/match.ts
// requiredValues), and an event only meets the rules filed under the values
// it has, and the rules without a gate. With a pack of rules across log
// families, an event meets a handful of them.
import type { QueryNode } from '../../query/ast.js';
import { requiredValues, type FieldValuePair } from '../../query/match.js';
import { asciiLower } from '../../query/values.js';
import type { FieldValue } from '../../topics/index.js';
import type { CompiledRule } from './rules.js';

/** Fields most events have and share a few values of: a gate on them is kept only when a rule has no other. */
const BROAD_FIELDS = new Set(['event.kind', 'event.category', 'event.type', 'event.outcome']);

/** What a gate costs: the values it lets through, those of the broad fields as very many. */
function gateCost(pairs: FieldValuePair[]): number {
  let cost = 0;
  for (const { field } of pairs) cost += BROAD_FIELDS.has(field) ? 1000 : 1;
  return cost;
}

/** The values a rule's pattern is filed under; null for a rule every event meets. */
export function gateOf(query: QueryNode): FieldValuePair[] | null {
  return requiredValues(query, gateCost);
}

export class RuleDispatch {
  /** 1 for a rule every event meets, by the rule's place in the list. */
  private readonly ungated: Uint8Array;
  /** The rules an event meets, by place: marked, then read in the list's order, so each is met once and in order. */
  private readonly met: Uint8Array;
  /**
   * Per gate field, the places of the rules filed under each value: an
   * array, as iterating a Map's entries allocates per event. A value that is
   * a number is filed under the number too, so a numeric field (a status
   * code, a port, an event id) is looked up without making its text.
   */
  private readonly gated: { field: string; byValue: Map<string | number, number[]> }[] = [];

  constructor(private readonly rules: readonly CompiledRule[]) {
    this.ungated = new Uint8Array(rules.length);
    this.met = new Uint8Array(rules.length);
    for (const [index, rule] of rules.entries()) {
      if (!rule.gate) {
        this.ungated[index] = 1;
        continue;
      }
      for (const { field, value } of rule.gate) {
        let entry = this.gated.find((g) => g.field === field);
        if (!entry) this.gated.push((entry = { field, byValue: new Map() }));
        const keys: (string | number)[] = String(Number(value)) === value ? [value, Number(value)] : [value];
        for (const key of keys) {
          const places = entry.byValue.get(key);
          if (!places) entry.byValue.set(key, [index]);
          else if (!places.includes(index)) places.push(index);
        }
      }
    }
  }

  /** Fills `into` with the rules an event with these fields may match, each once, in the list's order (`into` is emptied first: one array serves a whole batch). */
  candidates(fields: Record<string, FieldValue>, into: CompiledRule[]): CompiledRule[] {
    const met = this.met;
    met.set(this.ungated);
    for (const { field, byValue } of this.gated) {
      const present = fields[field];
      if (present === undefined) continue;
      if (!Array.isArray(present)) markFiled(met, byValue, present);
      else for (const value of present) markFiled(met, byValue, value);
    }
    into.length = 0;
    for (let i = 0; i < met.length; i++) if (met[i] === 1) into.push(this.rules[i]!);
    return into;
  }
}

function markFiled(met: Uint8Array, byValue: Map<string | number, number[]>, value: FieldValue): void {
  let places: number[] | undefined;
  if (typeof value === 'string') {
    // Values are filed lower-cased: a value as it comes is found first, as most have no capital.
    places = byValue.get(value);
    if (!places) {
      const lowered = asciiLower(value);
      if (lowered !== value) places = byValue.get(lowered);
    }
  } else places = byValue.get(typeof value === 'number' ? value : String(value));
  if (places) for (const place of places) met[place] = 1;
}

const dispatches = new WeakMap<readonly CompiledRule[], RuleDispatch>();

/** The dispatch of a list of rules, made once per list (a rule set hands out the same list until its rules change). */
export function dispatchOf(rules: readonly CompiledRule[]): RuleDispatch {
  let dispatch = dispatches.get(rules);
  if (!dispatch) dispatches.set(rules, (dispatch = new RuleDispatch(rules)));
  return dispatch;
}
