// Entry of each inference worker thread. On Node 20 a worker's entry module is loaded before the
// parent's `--import tsx` hooks apply to it, so the TypeScript loader is registered here explicitly.
import { register } from 'tsx/esm/api';

register();
await import('./inference-worker.ts');
