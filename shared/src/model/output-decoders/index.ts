/** Decoder kind named in a manifest -> the factory that builds its output decoder once per model. */
import type { Manifest } from '../manifest.ts';
import { createBlazeFaceDecoder } from './blazeface.ts';
import { createSsdDecoder } from './ssd.ts';
import type { OutputDecoder } from './types.ts';

const FACTORIES: Record<Manifest['decoder'], (manifest: Manifest) => OutputDecoder> = {
  ssd: (manifest) => createSsdDecoder(manifest),
  blazeface: (manifest) => createBlazeFaceDecoder(manifest),
};

export function createDecoder(manifest: Manifest): OutputDecoder {
  return FACTORIES[manifest.decoder](manifest);
}

export type { Candidate, OutputDecoder, OutputTensor } from './types.ts';
