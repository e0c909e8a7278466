// Types of fetch-ffmpeg.mjs, for the tests that import it (gateway/test/unit/video/fetch-ffmpeg.test.ts).
export interface PlatformPin {
  wheel: string;
  wheelSize: number;
  wheelSha256: string;
  entry: string;
  size: number;
  sha256: string;
}
export const gatewayDir: string;
export const pin: { ffmpeg: string; project: string; version: string; platforms: Record<string, PlatformPin> };
export function installPaths(root?: string, version?: string): { base: string; dir: string; binary: string; source: string };
export function findWheel(options: {
  indexUrl: string;
  project: string;
  file: string;
  fetchImpl?: (url: URL | string, init?: RequestInit) => Promise<Response>;
}): Promise<{ url: string; sha256: string | undefined }>;
export function zipEntry(zip: Buffer, name: string): { method: number; size: number; data: Buffer };
export function extractEntry(entry: { method: number; data: Buffer }, path: string): Promise<{ size: number; sha256: string }>;
export function versionLine(binary: string): string;
export function fetchFfmpeg(options?: {
  env?: Record<string, string | undefined>;
  say?: (line: string) => void;
  /** The folder .ffmpeg/ goes in (the gateway package's). */
  root?: string;
  /** fetch-ffmpeg.json's content. */
  pin?: typeof pin;
  /** `${process.platform}-${process.arch}` */
  key?: string;
}): Promise<'skipped' | 'present' | 'fetched'>;
