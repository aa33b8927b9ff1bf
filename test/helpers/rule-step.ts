// The pipeline's rule step without the bus and the store: lines parsed as
// the parser stage parses them (with GeoIP), enriched, matched against lead
// rules and evaluated against hot state (a local journal), with the same
// functions the analysis and leads stages call. Used to run the rule pack's
// test lines and the real samples through it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { newId } from '../../lib/ids.js';
import type { DeliveredMessage } from '../../pipeline/bus/types.js';
import { enrichBatch } from '../../pipeline/enricher/consumer.js';
import { geoIp } from '../../pipeline/geoip/geoip.js';
import { evaluateMatches, findMatches, type Firing } from '../../pipeline/leads/evaluate.js';
import { CompiledRules } from '../../pipeline/leads/rules.js';
import { parseArtifacts } from '../../pipeline/parser/parse-batch.js';
import { LocalState } from '../../pipeline/state/local-state.js';
import type { HotState } from '../../pipeline/state/types.js';

const NO_MESSAGE: DeliveredMessage = { topic: 'artifacts.raw', partition: 0, offset: '0', key: null, value: Buffer.alloc(0), headers: {}, timestamp: 0 };

export interface RuleStepRun {
  firings: Firing[];
  /** Lines no reader could parse (they reach no rule). */
  unparsed: number;
}

/** A rule step with its own hot state in a temporary directory; `close` removes it. */
export class RuleStep {
  private constructor(
    readonly state: HotState,
    private readonly dir: string,
  ) {}

  static async open(): Promise<RuleStep> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-rule-step-'));
    return new RuleStep(await LocalState.open(path.join(dir, 'state.journal')), dir);
  }

  /**
   * Sends `lines` of `source` through parse, enrich and the rules, in batches
   * of `batchSize` as a stage takes them, and returns every firing emitted
   * (a window that grows is emitted again, as the stage does).
   */
  async run(rules: LeadRule[], source: string, lines: string[], { orgId = 'default', batchSize = 2000 } = {}): Promise<RuleStepRun> {
    const compiled = new CompiledRules((rule, err) => {
      throw new Error(`rule ${rule.name} does not compile: ${err.message}`);
    });
    compiled.update(rules);
    const geo = geoIp();
    const firings: Firing[] = [];
    let unparsed = 0;
    for (let start = 0; start < lines.length; start += batchSize) {
      const now = new Date().toISOString();
      const artifacts = lines.slice(start, start + batchSize).map((raw) => ({
        artifact: { id: newId(), org_id: orgId, source, raw, timestamp: now, metadata: {}, created_at: now },
        message: NO_MESSAGE,
      }));
      const parsed = parseArtifacts(artifacts, { defaultOrgId: orgId, timezone: 'UTC', geo });
      unparsed += parsed.deadLetters.length;
      const { events } = enrichBatch(parsed.events);
      const matches = findMatches(events, (org) => compiled.rulesFor(org));
      if (matches.length === 0) continue;
      const evaluation = await evaluateMatches(matches, this.state);
      firings.push(...evaluation.firings);
      await evaluation.markEmitted();
    }
    return { firings, unparsed };
  }

  async close(): Promise<void> {
    await this.state.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
