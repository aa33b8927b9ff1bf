// rsyslogd as a real sender: in the foreground, with its own work directory
// and configuration (nothing of the system's), stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopProcess } from '../services/process.js';

export interface Rsyslog {
  workDir: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts rsyslogd with `config`, in which `{{workDir}}` names its work directory. */
export function startRsyslog(config: string): Rsyslog {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-rsyslog-'));
  const configFile = path.join(workDir, 'rsyslog.conf');
  fs.writeFileSync(configFile, `global(workDirectory="${workDir}")\n${config.replaceAll('{{workDir}}', workDir)}`);
  const child = spawn('rsyslogd', ['-n', '-f', configFile, '-i', path.join(workDir, 'rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { workDir, child, output: () => output, stop: () => stopProcess(child, 5000) };
}

/** Writes `lines` to a file in `dir` for rsyslog's imfile to forward; answers its path. */
export function writeLines(dir: string, name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
