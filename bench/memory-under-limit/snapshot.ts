/**
 * Where a process's memory is, at one moment, for memory-under-limit.sh (taken at the end of the warm idle
 * and of the idle after the load, so summary.ts can say which kind grew): resident memory split into
 * anonymous and file-backed (/proc/PID/smaps_rollup), and of the anonymous part what the main thread's V8
 * heap and Node's external memory hold (the gateway's /metrics). The rest of the anonymous memory is native:
 * jemalloc's heap (decoders, onnxruntime, socket buffers) and the inference workers' V8 heaps.
 *
 *   node --import tsx snapshot.ts --pid PID --url URL --out FILE.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { pid: { type: 'string' }, url: { type: 'string' }, out: { type: 'string' } } });
if (!values.pid || !values.url || !values.out) {
  process.stderr.write('usage: snapshot.ts --pid PID --url URL --out FILE.json\n');
  process.exit(2);
}

export interface Snapshot {
  rssBytes: number | null;
  anonBytes: number | null;
  fileBytes: number | null;
  heapTotalBytes: number | null;
  heapUsedBytes: number | null;
  externalBytes: number | null;
}

/** A `Key:   N kB` line of a /proc file, in bytes. */
function kb(text: string | undefined, key: string): number | null {
  const match = text?.match(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm'));
  return match ? Number(match[1]) * 1024 : null;
}

/** One gauge of a Prometheus text exposition, whatever prefix and labels it carries. */
function gauge(text: string | undefined, name: string): number | null {
  const match = text?.match(new RegExp(`^\\w*${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm'));
  return match ? Number(match[1]) : null;
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};
const rollup = read(`/proc/${values.pid}/smaps_rollup`);
const metrics = await fetch(`${values.url.replace(/\/$/, '')}/metrics`, { signal: AbortSignal.timeout(10_000) })
  .then((r) => (r.ok ? r.text() : undefined))
  .catch(() => undefined);
const rss = kb(rollup, 'Rss');
const anon = kb(rollup, 'Anonymous');
const snapshot: Snapshot = {
  rssBytes: rss,
  anonBytes: anon,
  fileBytes: rss !== null && anon !== null ? rss - anon : null,
  heapTotalBytes: gauge(metrics, 'nodejs_heap_size_total_bytes'),
  heapUsedBytes: gauge(metrics, 'nodejs_heap_size_used_bytes'),
  externalBytes: gauge(metrics, 'nodejs_external_memory_bytes'),
};
writeFileSync(values.out, `${JSON.stringify(snapshot)}\n`);
