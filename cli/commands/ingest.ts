// `cairn ingest <file>`: bulk-load a log file through a running cairn's API.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { Command } from 'commander';
import { apiTarget } from '../api-target.js';
import { ingestFile } from '../ingest-file.js';
import { positiveInteger } from './options.js';

interface IngestOptions {
  source: string;
  url?: string;
  token?: string;
  batchSize: number;
  org?: string;
}

export function ingestCommand(): Command {
  return new Command('ingest')
    .description("load a log file, one artifact per line, through a running cairn's API")
    .argument('<file>', 'the log file')
    .requiredOption('--source <name>', 'the artifacts\' source, e.g. auth, suricata, firewall')
    .option('--url <url>', 'base URL of the running cairn (default CAIRN_URL, else http://127.0.0.1:$PORT)')
    .option('--token <token>', 'bearer token (default CAIRN_TOKEN, else one minted with the configured secret)')
    .option('--batch-size <lines>', 'lines per request', positiveInteger, 5000)
    .option('--org <id>', 'organization of a minted token (default CAIRN_ORG_ID)')
    .action(async (file: string, options: IngestOptions) => {
      await access(file, constants.R_OK).catch((err: NodeJS.ErrnoException) => {
        throw new Error(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      });
      const { url, token } = await apiTarget(options, { subject: 'cairn-ingest', permissions: ['signals:write'] });
      const summary = await ingestFile({ file, source: options.source, url, token, batchSize: options.batchSize, progress: true });
      console.log(`${summary.lines} lines in ${summary.seconds.toFixed(1)} s: ${summary.accepted} accepted, ${summary.rejected} rejected`);
      for (const r of summary.rejections) console.log(`  line ${r.line}: ${r.reason}`);
    });
}
