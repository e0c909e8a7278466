/** A one-line progress bar on stderr, only when stderr is a terminal (no dependency needed). */
export interface Progress {
  tick(): void;
  phase(text: string): void;
  done(): void;
}

const NOOP: Progress = { tick() {}, phase() {}, done() {} };

export function createProgress(options: {
  total?: number | undefined;
  durationMs?: number | undefined;
  enabled: boolean;
  stream?: NodeJS.WriteStream;
}): Progress {
  const stream = options.stream ?? process.stderr;
  if (!options.enabled || !stream.isTTY) return NOOP;
  const started = performance.now();
  let count = 0;
  let phaseText = '';
  let lastDraw = 0;
  const width = 28;
  const draw = (force = false) => {
    const now = performance.now();
    if (!force && now - lastDraw < 150) return;
    lastDraw = now;
    const elapsedS = (now - started) / 1000;
    let fraction: number | undefined;
    if (options.total) fraction = Math.min(1, count / options.total);
    else if (options.durationMs) fraction = Math.min(1, (now - started) / options.durationMs);
    const bar = fraction === undefined ? '' : `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '-')}] `;
    const of = options.total ? `/${options.total}` : '';
    const eta = fraction && fraction > 0 && fraction < 1 ? `  eta ${Math.ceil(elapsedS / fraction - elapsedS)} s` : '';
    const line = `${bar}${count}${of} frames  ${(count / Math.max(elapsedS, 1e-3)).toFixed(1)} /s  ${elapsedS.toFixed(0)} s${eta}${phaseText ? `  ${phaseText}` : ''}`;
    stream.write(`\r${line.slice(0, (stream.columns || 100) - 1).padEnd(Math.min((stream.columns || 100) - 1, 90))}`);
  };
  return {
    tick() {
      count++;
      draw();
    },
    phase(text) {
      phaseText = text;
      draw(true);
    },
    done() {
      stream.write('\r\x1b[2K');
    },
  };
}
