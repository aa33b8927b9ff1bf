// The npm registry this project is built against serves only the linux-x64
// build of chdb's native library; npm still lists the other platforms in the
// lockfile's chdb entry, and `npm ci` then refuses the lockfile. Run this after
// any `npm install` that rewrites package-lock.json.
import fs from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const chdb = lock.packages['node_modules/chdb'];
const keep = '@chdb/lib-linux-x64-gnu';
chdb.optionalDependencies = { [keep]: chdb.optionalDependencies[keep] };
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: chdb optional native libraries limited to ${keep}`);
