/**
 * Real photos committed for tests, benchmarks and the e2e fake camera (licences in
 * fixtures/photos/LICENSES.md), and the labels each model is known to find in them. Node only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PHOTOS_DIR = fileURLToPath(new URL('../fixtures/photos/', import.meta.url));

/** photo file name -> model name -> labels expected; `a|b` means either label satisfies it. */
export type ExpectedLabels = Record<string, Record<string, string[]>>;

export function photoPath(name: string): string {
  return `${PHOTOS_DIR}${name}`;
}

export function readPhoto(name: string): Buffer {
  return readFileSync(photoPath(name));
}

export function expectedLabels(): ExpectedLabels {
  return JSON.parse(readFileSync(photoPath('expected.json'), 'utf8')) as ExpectedLabels;
}
