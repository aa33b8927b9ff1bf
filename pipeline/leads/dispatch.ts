// Which rules an event may match, without trying every rule on it. Most
// rules require a value of a field (`event.category:authentication`,
// `event.code:(4624 OR 4625)`, `process.name:sudo`): such a rule is filed
// under one of its required values (its gate), and an event only meets the
// rules filed under the values it has, and the rules without a gate. With a
// pack of rules across log families, an event meets a handful of them.
import type { FieldValue } from '../../topics/index.js';
import { asciiLower } from '../../query/values.js';
import type { CompiledRule } from './rules.js';

/** Fields most events have and share a few values of: a gate on them is kept only when a rule has no other. */
const BROAD_FIELDS = new Set(['event.kind', 'event.category', 'event.type', 'event.outcome']);

/** The required value a rule is filed under: the fewest values, on a field other than the broad ones when it can. */
export function chooseGate(required: CompiledRule['requiredValues']): CompiledRule['requiredValues'][number] | undefined {
  const cost = (r: { field: string; values: string[] }) => r.values.length + (BROAD_FIELDS.has(r.field) ? 1000 : 0);
  return [...required].sort((a, b) => cost(a) - cost(b))[0];
}

export class RuleDispatch {
  /** Each rule's place in the list: candidates keep the list's order, as trying every rule would. */
  private readonly position = new Map<CompiledRule, number>();
  private readonly ungated: CompiledRule[] = [];
  private readonly gates = new Map<CompiledRule, { field: string; values: string[] }>();
  /** Per gate field, rules by value (ASCII lower-cased): an array, as iterating a Map's entries allocates per event. */
  private readonly gated: { field: string; byValue: Map<string, CompiledRule[]> }[] = [];

  constructor(rules: readonly CompiledRule[]) {
    for (const [index, rule] of rules.entries()) {
      this.position.set(rule, index);
      const gate = chooseGate(rule.requiredValues);
      if (!gate) {
        this.ungated.push(rule);
        continue;
      }
      this.gates.set(rule, gate);
      let entry = this.gated.find((g) => g.field === gate.field);
      if (!entry) this.gated.push((entry = { field: gate.field, byValue: new Map() }));
      for (const value of gate.values) entry.byValue.set(value, [...(entry.byValue.get(value) ?? []), rule]);
    }
  }

  /** The required value a rule is filed under; undefined for a rule every event meets. */
  gateOf(rule: CompiledRule): { field: string; values: string[] } | undefined {
    return this.gates.get(rule);
  }

  /** Fills `into` with the rules an event with these fields may match, each once (`into` is emptied first: one array serves a whole batch). */
  candidates(fields: Record<string, FieldValue>, into: CompiledRule[]): CompiledRule[] {
    into.length = 0;
    for (const rule of this.ungated) into.push(rule);
    // Each list filed under one value is in the list's order; lists from several values or fields are merged by sorting.
    let lists = into.length > 0 ? 1 : 0;
    for (const { field, byValue } of this.gated) {
      const present = fields[field];
      if (present === undefined) continue;
      if (!Array.isArray(present)) {
        const rules = byValue.get(asciiLower(String(present)));
        if (rules) {
          for (const rule of rules) into.push(rule);
          lists++;
        }
        continue;
      }
      for (const value of present) {
        const rules = byValue.get(asciiLower(String(value)));
        if (!rules) continue;
        // A rule filed under two values of the field the event both has is met once.
        for (const rule of rules) if (!into.includes(rule)) into.push(rule);
        lists++;
      }
    }
    if (lists > 1) into.sort((a, b) => this.position.get(a)! - this.position.get(b)!);
    return into;
  }
}

const dispatches = new WeakMap<readonly CompiledRule[], RuleDispatch>();

/** The dispatch of a list of rules, made once per list (a rule set hands out the same list until its rules change). */
export function dispatchOf(rules: readonly CompiledRule[]): RuleDispatch {
  let dispatch = dispatches.get(rules);
  if (!dispatch) dispatches.set(rules, (dispatch = new RuleDispatch(rules)));
  return dispatch;
}
