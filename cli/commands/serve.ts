// `cairn start`, `cairn api`, `cairn worker <stage>`: the long-running
// processes (cli/serve-process.ts, loaded only when one runs, so that help
// and the other commands start fast).
import { Command } from 'commander';
import { STAGE_NAMES } from '../../pipeline/topologies.js';
import type { Kind } from '../serve-process.js';

async function run(kind: Kind, stage?: string): Promise<void> {
  const { runProcess } = await import('../serve-process.js');
  await runProcess(kind, stage);
}

export function serveCommands(): Command[] {
  const stageNames: readonly string[] = STAGE_NAMES;
  return [
    new Command('start')
      .description('run the API and the pipeline topology\'s stages in one process (the embedded default; CAIRN_PIPELINE_TOPOLOGY)')
      .action(() => run('start')),
    new Command('api').description('run the HTTP API only').action(() => run('api')),
    new Command('worker')
      .description('run one pipeline stage (one consumer group member)')
      .argument('<stage>', `the stage: ${stageNames.join(', ')}`)
      .action((stage: string, _options: unknown, command: Command) => {
        if (!stageNames.includes(stage)) command.error(`cairn: unknown stage "${stage}"; stages: ${stageNames.join(', ')}`, { exitCode: 2, code: 'cairn.usage' });
        return run('worker', stage);
      }),
  ];
}
