// Entry of an analysis worker thread (pool.ts): the sources are TypeScript,
// run through tsx as bin/cairn.mjs does, so no build step is needed here either.
import { register } from 'tsx/esm/api';

register();
const { analyse } = await import('./analyse.ts');
export default analyse;
