// Which rules an event may match, without trying every rule on it. Most
// rules require one of a few values of fields (`event.category:authentication`,
// `event.code:(4624 OR 4625)`, `process.name:sudo OR event.action:sudo-command`),
// a field (`dns.question.name:*`) or a text in the line ("Created symlink"):
// such a rule is filed under those terms (its gate, query/match.ts
// requiredTerms), and an event only meets the rules filed under the terms it
// meets, and the rules without a gate. With a pack of rules across log
// families, an event meets a handful of them.
import type { QueryNode } from '../../query/ast.js';
import { requiredTerms, type GateTerm, type PreparedTarget } from '../../query/match.js';
import { asciiLower } from '../../query/values.js';
import type { FieldValue } from '../../topics/index.js';
import type { CompiledRule } from './rules.js';
import { escapeRegExp } from '../../lib/regex-escape.js';

/** Fields most events have and share a few values of: a gate on them is kept only when a rule has no other. */
const BROAD_FIELDS = new Set(['event.kind', 'event.category', 'event.type', 'event.outcome']);

/**
 * What a gate costs: the events it lets through. A field's presence lets
 * through every event that has it (most have an address): more than values
 * of broad fields, so it is a gate only where a rule has no other. A text
 * fewer, though it is searched in every line.
 */
function gateCost(terms: GateTerm[]): number {
  let cost = 0;
  for (const term of terms) cost += 'text' in term ? 20 : 'present' in term ? 10_000 : BROAD_FIELDS.has(term.field) ? 1000 : 1;
  return cost;
}

/** The terms a rule's pattern is filed under; null for a rule every event meets. */
export function gateOf(query: QueryNode): GateTerm[] | null {
  return requiredTerms(query, gateCost);
}

/** The rules filed under one field: by its values, and those that only need it present. */
interface FieldGate {
  field: string;
  /**
   * The places of the rules filed under each value. A value that is a number
   * is filed under the number too, so a numeric field (a status code, a port,
   * an event id) is looked up without making its text.
   */
  byValue: Map<string | number, number[]>;
  present: number[];
}

export class RuleDispatch {
  /** 1 for a rule every event meets, by the rule's place in the list. */
  private readonly ungated: Uint8Array;
  /** The rules an event meets, by place: marked, then read in the list's order, so each is met once and in order. */
  private readonly met: Uint8Array;
  /** An array, as iterating a Map's entries allocates per event. */
  private readonly fieldGates: FieldGate[] = [];
  /** Texts searched in the line (lower-cased), with the places of the rules filed under each. */
  private readonly texts: { text: string; places: number[] }[] = [];
  /**
   * Whether a line may have any of the texts: one case-insensitive search of
   * the line as it comes, two to five times faster than lower-casing it to
   * look for each text, and almost every line has none. It finds at least
   * what the lower-cased search finds (without the u flag, /i folds ASCII
   * letters as asciiLower does, and some other letters besides).
   */
  private readonly anyText: RegExp | null;

  constructor(private readonly rules: readonly CompiledRule[]) {
    this.ungated = new Uint8Array(rules.length);
    this.met = new Uint8Array(rules.length);
    for (const [index, rule] of rules.entries()) {
      if (!rule.gate) {
        this.ungated[index] = 1;
        continue;
      }
      for (const term of rule.gate) {
        if ('text' in term) {
          const entry = this.texts.find((t) => t.text === term.text);
          if (entry) addPlace(entry.places, index);
          else this.texts.push({ text: term.text, places: [index] });
          continue;
        }
        let gate = this.fieldGates.find((g) => g.field === term.field);
        if (!gate) this.fieldGates.push((gate = { field: term.field, byValue: new Map(), present: [] }));
        if ('present' in term) {
          addPlace(gate.present, index);
          continue;
        }
        const keys: (string | number)[] = String(Number(term.value)) === term.value ? [term.value, Number(term.value)] : [term.value];
        for (const key of keys) {
          const places = gate.byValue.get(key);
          if (!places) gate.byValue.set(key, [index]);
          else addPlace(places, index);
        }
      }
    }
    this.anyText = this.texts.length > 0 ? new RegExp(this.texts.map(({ text }) => escapeRegExp(text)).join('|'), 'i') : null;
  }

  /** Fills `into` with the rules the event may match, each once, in the list's order (`into` is emptied first: one array serves a whole batch). */
  candidates(target: PreparedTarget, into: CompiledRule[]): CompiledRule[] {
    const met = this.met;
    met.set(this.ungated);
    const fields = target.target.fields;
    for (let i = 0; i < this.fieldGates.length; i++) {
      const gate = this.fieldGates[i]!;
      const present = fields[gate.field];
      if (present === undefined) continue;
      for (const place of gate.present) met[place] = 1;
      if (gate.byValue.size === 0) continue;
      if (!Array.isArray(present)) markFiled(met, gate.byValue, present);
      else for (const value of present) markFiled(met, gate.byValue, value);
    }
    const texts = this.texts;
    if (texts.length > 0 && this.anyText!.test(target.target.raw)) {
      const line = target.lowerRaw;
      for (let i = 0; i < texts.length; i++) if (line.includes(texts[i]!.text)) for (const place of texts[i]!.places) met[place] = 1;
    }
    into.length = 0;
    for (let i = 0; i < met.length; i++) if (met[i] === 1) into.push(this.rules[i]!);
    return into;
  }
}

function addPlace(places: number[], index: number): void {
  if (!places.includes(index)) places.push(index);
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
