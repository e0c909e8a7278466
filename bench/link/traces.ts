/** Reads the Mahimahi trace files a profile names (the shared engine reads no files: browsers have none). */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseMahimahiTrace, type LinkProfile, type Trace } from '@sightline/shared/link';

export interface LinkTraces {
  up?: Trace | undefined;
  down?: Trace | undefined;
}

/** Loads both directions' traces (relative paths against `baseDir`); throws TraceError or the file error, one line. */
export async function loadTraces(profile: LinkProfile, baseDir = process.cwd()): Promise<LinkTraces> {
  const load = async (file: string | undefined): Promise<Trace | undefined> => {
    if (file === undefined) return undefined;
    const path = resolve(baseDir, file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
      throw new Error(`trace ${file}: ${reason}`, { cause: error });
    }
    return parseMahimahiTrace(text, file);
  };
  return { up: await load(profile.up.traceFile), down: await load(profile.down.traceFile) };
}
