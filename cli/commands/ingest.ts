// `cairn ingest <file>`: bulk-load a log file through a running cairn's API.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { Command } from 'commander';
import { apiTarget, withApiTargetOptions } from '../api-target.js';
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
  const command = new Command('ingest')
    .description("load a log file, one artifact per line, through a running cairn's API")
    .argument('<file>', 'the log file')
    .requiredOption('--source <name>', 'the artifacts\' source, e.g. auth, suricata, firewall')
    .option('--batch-size <lines>', 'lines per request', positiveInteger, 5000);
  return withApiTargetOptions(command, 'signals:write').action(async (file: string, options: IngestOptions) => {
      await access(file, constants.R_OK).catch((err: NodeJS.ErrnoException) => {
        throw new Error(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      });
      const { url, token } = await apiTarget(options, { subject: 'cairn-ingest', permissions: ['signals:write'] });
      const summary = await ingestFile({ file, source: options.source, url, token, batchSize: options.batchSize, progress: true });
      console.log(`${summary.lines} lines in ${summary.seconds.toFixed(1)} s: ${summary.accepted} accepted, ${summary.rejected} rejected`);
      for (const r of summary.rejections) console.log(`  line ${r.line}: ${r.reason}`);
    });
}
