/** Number formatting for people; raw numbers go in data-value attributes. */

export function formatMs(value: number | undefined | null, digits?: number): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return '–';
  const places = digits ?? (value < 10 ? 2 : value < 100 ? 1 : 0);
  return `${value.toFixed(places)} ms`;
}

export function formatNumber(value: number | undefined | null, digits = 1): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return '–';
  return value.toFixed(digits);
}

export function formatBytes(value: number | undefined | null): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return '–';
  if (value < 1024) return `${Math.round(value)} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(value < 10 * 1024 ? 2 : 1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(2)} MiB`;
}

export function formatCount(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

/** For data-value: the raw number, or an empty string when there is none yet. */
export function rawValue(value: number | undefined | null): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return '';
  return String(Math.round(value * 1000) / 1000);
}

export function formatClock(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString([], { hour12: false });
}
