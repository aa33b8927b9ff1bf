// The user's own blind spots (docs/parsing.md "Your own blind spots"): what
// cairn did and did not understand in the organization's stored lines of a
// range, per source and per device format, vendor, syslog program or parser.
import { z } from 'zod';
import { coverageRange, coverageRangeProblem, coverageReport, DEFAULT_COVERAGE_HOURS, MAX_COVERAGE_ARTIFACTS, MAX_COVERAGE_DAYS, TOP_SHAPES } from '../../reports/coverage.js';
import { defineRoute } from '../route.js';
import { Timestamp } from '../schemas.js';

const RangeQuery = z
  .object({
    start: Timestamp.optional().describe(`default: ${DEFAULT_COVERAGE_HOURS} hours before end`),
    end: Timestamp.optional().describe('default: now'),
  })
  .transform((q) => coverageRange(q.start, q.end))
  .superRefine((range, ctx) => {
    const problem = coverageRangeProblem(range);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['start'] });
  });

const Share = z.number().nullable();

const Counts = {
  lines: z.number().int().describe('stored lines (artifacts)'),
  events: z.number().int().describe('lines that became an event'),
  failures: z.number().int().describe('lines no parser read (stored and searchable, with no event): lines - events'),
  categorised: z.number().int().describe('events with event.category'),
  categorised_share: Share.describe('categorised / events'),
  address_lines: z.number().int().describe('lines holding an IPv4 or IPv6 address: their event has source.ip, or their raw text holds one (in its first 4 KiB); failures included'),
  address_lines_with_source_ip: z.number().int().describe('of those, lines whose event has source.ip'),
  source_ip_share: Share.describe('address_lines_with_source_ip / address_lines'),
  generic: z.number().int().describe('events marked cairn.decoder: generic (read only by the generic reading)'),
  generic_share: Share.describe('generic / events'),
};

const TagKind = z.enum(['device', 'vendor', 'program', 'parser', 'unparsed']);

const TagCoverage = z.object({
  tag_kind: TagKind.describe('what read the lines: device (a device catalogue format), vendor (observer.vendor and product), program (the syslog tag), parser (the format parser), unparsed (nothing)'),
  tag: z.string().describe('e.g. fortinet/fortigate, Acme Widget, sshd, json; empty for unparsed'),
  ...Counts,
});

const CoverageSchema = z.object({
  start: Timestamp,
  end: Timestamp,
  scanned: z
    .object({ artifacts: z.number().int(), limit: z.number().int(), truncated: z.boolean(), start: Timestamp })
    .describe(`the artifacts read: all of the range, or when it holds more than ${MAX_COVERAGE_ARTIFACTS.toLocaleString('en')}, its newest ${MAX_COVERAGE_ARTIFACTS.toLocaleString('en')} (truncated, from start)`),
  totals: z.object(Counts),
  sources: z.array(z.object({ source: z.string(), ...Counts, tags: z.array(TagCoverage) })).describe('per artifact source, most lines first, with its tags'),
  unrecognised_shapes: z
    .array(
      z.object({
        shape: z.string().describe("the message (a parsed line's message field, else the raw line; its first 300 characters) with quoted text, addresses, hex strings and numbers masked as <str>, <ip>, <hex>, <num>"),
        count: z.number().int(),
        source: z.string(),
        tag_kind: TagKind,
        tag: z.string(),
        example_artifact_id: z.string(),
      }),
    )
    .describe(`the ${TOP_SHAPES} most frequent shapes of lines without event.category or that failed to parse, per source and tag`),
});

export const coverageRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/parser/coverage',
    summary: "Parser coverage of the organization's own lines: per source and tag, events, shares with event.category, with source.ip among lines holding an address, read only generically, parse failures; the most frequent unrecognised message shapes",
    description: `Over the stored artifacts whose timestamp lies in [start, end) (default the last ${DEFAULT_COVERAGE_HOURS} hours, at most ${MAX_COVERAGE_DAYS} days), joined to their events. At most ${MAX_COVERAGE_ARTIFACTS.toLocaleString('en')} artifacts are read: past that, the newest of the range, and scanned.truncated says so. An artifact the pipeline has not parsed yet (seconds behind ingest) counts as a failure until it is. docs/parsing.md, "Your own blind spots".`,
    tag: 'Parsing',
    permission: 'signals:read',
    query: RangeQuery,
    response: CoverageSchema,
    async handler({ query, auth, deps }) {
      const report = await coverageReport(deps.store, auth.orgId, query);
      return { message: `parser coverage of ${report.scanned.artifacts} line(s), ${report.start} to ${report.end}`, data: report };
    },
  }),
];
