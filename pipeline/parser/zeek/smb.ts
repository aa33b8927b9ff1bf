// Zeek's Windows file-sharing logs to ECS, as Elastic's zeek package maps
// them: dce_rpc.log (an RPC call: the operation is the action), smb_files.log
// (a file opened, read, written on a share) and smb_mapping.log (a share
// mapped). Zeek's own names (endpoint, operation, path, name) stay under
// zeek.<log>.* as well: Sigma's Zeek rules name them.
import { count, text } from '../json-values.js';
import { zeekTime } from './shared.js';
import type { ZeekLog } from './log.js';

export const dceRpcLog: ZeekLog = {
  dataset: 'dce_rpc',
  transport: 'tcp',
  mapped: new Set(),
  map(fields, record) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'protocol', 'info'];
    fields['network.protocol'] = 'dce_rpc';
    const operation = text(record.operation);
    if (operation) fields['event.action'] = operation;
  },
};

/** smb_files.log's MAC times, as ECS file.* names them. */
const FILE_TIMES = [
  ['times.modified', 'file.mtime'],
  ['times.accessed', 'file.accessed'],
  ['times.created', 'file.created'],
  ['times.changed', 'file.ctime'],
] as const;

export const smbFilesLog: ZeekLog = {
  dataset: 'smb_files',
  transport: 'tcp',
  mapped: new Set(['size']),
  map(fields, record) {
    fields['event.category'] = ['network', 'file'];
    fields['event.type'] = ['connection', 'protocol', 'info'];
    fields['network.protocol'] = 'smb';
    const action = text(record.action);
    if (action) fields['event.action'] = action;
    const share = text(record.path);
    const name = text(record.name);
    if (name) {
      fields['file.name'] = name;
      fields['file.path'] = share ? `${share}\\${name}` : name;
    }
    const size = count(record.size);
    if (size !== undefined) fields['file.size'] = size;
    for (const [zeek, ecs] of FILE_TIMES) {
      const time = zeekTime(record[zeek]);
      if (time) fields[ecs] = time;
    }
  },
};

export const smbMappingLog: ZeekLog = {
  dataset: 'smb_mapping',
  transport: 'tcp',
  mapped: new Set(),
  map(fields) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'protocol'];
    fields['network.protocol'] = 'smb';
  },
};
