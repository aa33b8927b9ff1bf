// The `cairn` command: commander parses arguments and writes the help of
// every command; the commands (cli/commands/) wire the parts together.
//
// Exit codes: 0 done; 1 an operational error (one readable line on stderr,
// the stack too with CAIRN_LOG_LEVEL=debug or trace); 2 a usage error (one
// line, then the usage); 78 a bad configuration variable (EX_CONFIG).
import { Command, CommanderError } from 'commander';
import { ConfigError, debugRequested } from '../config/env.js';
import { VERSION } from '../lib/version.js';
import { coverageCommand } from './commands/coverage.js';
import { ingestCommand } from './commands/ingest.js';
import { migrateCommand } from './commands/migrate.js';
import { reprocessCommand } from './commands/reprocess.js';
import { rulesCommand } from './commands/rules.js';
import { serveCommands } from './commands/serve.js';
import { sqlCommand } from './commands/sql.js';
import { tokenCommand } from './commands/token.js';
import { userCommand } from './commands/user.js';

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;
const EXIT_CONFIG = 78;

function program(): Command {
  const root = new Command('cairn')
    .description('cairn: open-source security analytics. Sensors in, knowledge graph, leads and incidents out.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text.startsWith('cairn: ') ? text : `cairn: ${text.replace(/^error: /, '')}`) });
  // Commands made apart from the root take its error handling and output settings before joining it.
  for (const command of [...serveCommands(), migrateCommand(), ingestCommand(), reprocessCommand(), rulesCommand(), coverageCommand(), tokenCommand(), userCommand(), sqlCommand()]) root.addCommand(command.copyInheritedSettings(root));
  return root;
}

export async function main(argv: string[]): Promise<void> {
  const root = program();
  try {
    if (argv.length === 0) root.error('cairn: name a command', { exitCode: EXIT_USAGE, code: 'cairn.usage' });
    await root.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; everything else commander raises is a usage error (already printed).
      if (err.exitCode !== 0) process.exit(EXIT_USAGE);
    } else if (err instanceof ConfigError) {
      process.stderr.write(`cairn: ${err.message}\n`);
      process.exit(EXIT_CONFIG);
    } else {
      process.stderr.write(`cairn: ${err instanceof Error ? err.message : String(err)}\n`);
      if (debugRequested() && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
      // Exit now: a failed command may leave timers or sockets behind that would keep the process alive.
      process.exit(EXIT_FAILURE);
    }
  }
}
