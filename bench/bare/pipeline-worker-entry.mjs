// Entry of each decode + inference stream. A worker's entry module may be loaded before the parent's
// `--import tsx` hooks apply to it, so the TypeScript loader is registered here explicitly.
import { register } from 'tsx/esm/api';

register();
await import('./pipeline-worker.ts');
