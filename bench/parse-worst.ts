// The parser's worst case: lines of about 100 KB in shapes that make
// regular expressions and tokenizers work hardest (long runs of the
// characters patterns repeat, markers of every format, unbalanced quotes,
// thousands of pairs or columns), each parsed with the whole catalogue
// through the real entry point under several sources. Prints the slowest
// line per shape; a line must stay bounded (milliseconds, not seconds).
//
//   node --import tsx bench/parse-worst.ts [--runs 5]
import { parseArgs } from 'node:util';
import { parseRaw } from '../pipeline/parser/registry.js';
import { machineLine } from './lib.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const SIZE = 100_000;
const SOURCES = ['syslog', 'firewall', 'auth', 'sshd', 'apache', 'auditd', 'unknown'];
const HEADER = 'Nov 22 06:01:02 host1 sshd[4242]: ';

/** `unit` repeated to about SIZE characters. */
function fill(unit: string): string {
  return unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
}

const SHAPES: Record<string, string> = {
  'one long word': fill('a'),
  'spaces': `x${fill(' ')}x`,
  '"from " repeated': HEADER + fill('from '),
  '"invalid user " then an address': `${HEADER}Failed password for ${fill('invalid user ')} from 203.0.113.5 port 22 ssh2`,
  'key=value pairs': fill('k=v '),
  'keys without values': fill('key= '),
  'unbalanced quote in kv': `date=2026-01-01 time=10:00:00 logid="0100032002" type="event" msg="${fill('x\\"')}`,
  'commas (CSV columns)': `1,2026/01/01 10:00:00,001,TRAFFIC,end,2049,${fill(',')}`,
  'quoted CSV cells': `1,2026/01/01 10:00:00,001,THREAT,url,${fill('"a,""b"",c",')}`,
  'ASA marker and colons': `%ASA-6-302013: Built inbound TCP connection 1 for ${fill('outside:')}`,
  'ASA markers repeated': fill('%ASA-6-106023: '),
  'IOS marker and parentheses': `%SEC-6-IPACCESSLOGP: list 101 denied tcp ${fill('1.1.1.1(')}`,
  'dotted digits': HEADER + fill('1.2.3.'),
  'colons and hex (IPv6-like)': HEADER + fill('a:'),
  'brackets': HEADER + fill('['),
  'parentheses': HEADER + fill('('),
  'angle brackets': fill('<'),
  'syslog priorities': fill('<13>'),
  'audit record tail': `type=SYSCALL msg=audit(1364481363.243:24287): ${fill('a=b ')}`,
  'audit hex value': `type=EXECVE msg=audit(1364481363.243:24287): argc=1 a0=${fill('41')}`,
  'nested JSON': `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
  'JSON long string': `{"message":"${fill('x')}","source":{"ip":"203.0.113.9"}}`,
  'CEF extension': `CEF:0|Vendor|Product|1|100|Name|5|${fill('a=b ')}`,
  'LEEF attributes': `LEEF:1.0|Vendor|Product|1|id|${fill('a=b\t')}`,
  'web access tail': `203.0.113.9 - - [22/Nov/2026:06:01:02 +0000] "GET /${fill('a')} HTTP/1.1" 200 1`,
  'email-like': HEADER + fill('a@b.'),
  'rhost= repeated': HEADER + fill('rhost= '),
  'audit( repeated behind a header': HEADER + fill('audit('),
  'Citrix-like separators': `<134> 12/21/2020:12:35:17 GMT NS1 ${fill('0-PPE-0 : ')}`,
  'msg= repeated (audit nesting)': `type=USER_AUTH msg=audit(1364481363.243:24287): ${fill("msg='")}`,
  'type= repeated': fill('type=A '),
  'timestamps repeated': HEADER + fill('2026-01-01 10:00:00 '),
};

function timeShape(line: string): { ms: number; source: string } {
  let worst = { ms: 0, source: '' };
  for (const source of SOURCES) {
    const t0 = performance.now();
    try {
      parseRaw(line, { source, receivedAt: Date.now() });
    } catch {
      // A failure to parse is an answer too; its time counts the same.
    }
    const ms = performance.now() - t0;
    if (ms > worst.ms) worst = { ms, source };
  }
  return worst;
}

console.log(`parser worst case: ${Object.keys(SHAPES).length} shapes of about ${SIZE / 1000} KB, sources ${SOURCES.join(', ')}, slowest of ${args.runs} runs after a warm-up`);
console.log(machineLine());
// Warm-up: compile the catalogues and let the JIT see every path once.
for (const line of Object.values(SHAPES)) timeShape(line);
const rows: [string, number, string][] = [];
for (const [name, line] of Object.entries(SHAPES)) {
  let worst = { ms: 0, source: '' };
  for (let i = 0; i < Number(args.runs); i++) {
    const t = timeShape(line);
    if (t.ms > worst.ms) worst = t;
  }
  rows.push([name, worst.ms, worst.source]);
}
console.log('| shape | slowest parse (ms) | source |');
console.log('|---|---|---|');
for (const [name, ms, source] of rows) console.log(`| ${name} | ${ms.toFixed(2)} | ${source} |`);
const slowest = rows.reduce((a, b) => (b[1] > a[1] ? b : a));
console.log(`slowest: ${slowest[0]} at ${slowest[1].toFixed(2)} ms (${((slowest[1] * 1000) / (SIZE / 1000)).toFixed(1)} µs per KB)`);
