#!/usr/bin/env node
// Entry point: runs the TypeScript sources through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

process.env.TZ = 'UTC'; // chdb and our timestamps assume UTC
register();
const { main } = await import('../cli/main.ts');
await main(process.argv.slice(2));
