/**
 * The units of a link spec, parsed and printed: rates in bits per second (`2mbit`), durations in
 * milliseconds (`40ms`, `0.5s`), fractions (`1%`) and sizes in bytes (`64kb`, tc's meaning: 1 kb = 1024 bytes).
 * Every parser returns undefined for text it does not accept; the spec parser turns that into its one-line error.
 */

const NUMBER = String.raw`(\d+(?:\.\d+)?|\.\d+)`;

/** Bits per second of each rate unit; `mbps` and friends are accepted as the same units. */
const RATE_UNITS: Record<string, number> = {
  bit: 1,
  bps: 1,
  kbit: 1e3,
  kbps: 1e3,
  mbit: 1e6,
  mbps: 1e6,
  gbit: 1e9,
  gbps: 1e9,
};

const DURATION_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

/** tc's sizes: b, kb, mb in powers of 1024. */
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

function withUnit(text: string, units: Record<string, number>): number | undefined {
  const match = new RegExp(`^${NUMBER}([a-z]+)$`, 'i').exec(text.trim());
  if (!match) return undefined;
  const scale = units[match[2]!.toLowerCase()];
  if (scale === undefined) return undefined;
  const value = Number(match[1]) * scale;
  return Number.isFinite(value) ? value : undefined;
}

/** `2mbit` -> 2_000_000 (bits per second). */
export function parseRate(text: string): number | undefined {
  return withUnit(text, RATE_UNITS);
}

/** `40ms` -> 40, `0.5s` -> 500 (milliseconds). */
export function parseDuration(text: string): number | undefined {
  return withUnit(text, DURATION_UNITS);
}

/** `64kb` -> 65_536 (bytes). */
export function parseSize(text: string): number | undefined {
  const bytes = withUnit(text, SIZE_UNITS);
  return bytes === undefined ? undefined : Math.round(bytes);
}

/** `1%` -> 0.01; only percentages, so `0.01` is not mistaken for 1%. */
export function parsePercent(text: string): number | undefined {
  const match = new RegExp(`^${NUMBER}%$`).exec(text.trim());
  return match ? Number(match[1]) / 100 : undefined;
}

/** Up to `digits` decimals, without trailing zeros: 2.50 -> "2.5". */
function short(value: number, digits = 3): string {
  return String(Number(value.toFixed(digits)));
}

/** 2_000_000 -> "2mbit": the largest unit that keeps the number at or above 1. */
export function formatRate(bitsPerSecond: number): string {
  if (bitsPerSecond >= 1e9) return `${short(bitsPerSecond / 1e9)}gbit`;
  if (bitsPerSecond >= 1e6) return `${short(bitsPerSecond / 1e6)}mbit`;
  if (bitsPerSecond >= 1e3) return `${short(bitsPerSecond / 1e3)}kbit`;
  return `${short(bitsPerSecond)}bit`;
}

/** 40 -> "40ms", 0.25 -> "0.25ms" (milliseconds throughout, so specs read alike). */
export function formatDuration(ms: number): string {
  return `${short(ms)}ms`;
}

/** 65_536 -> "64kb"; sizes that are not whole kb stay in bytes. */
export function formatSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}mb`;
  if (bytes % 1024 === 0) return `${bytes / 1024}kb`;
  return `${bytes}b`;
}

/** 0.01 -> "1%". */
export function formatPercent(fraction: number): string {
  return `${short(fraction * 100, 4)}%`;
}

/** A rate for people: 2_000_000 -> "2 Mbit/s", 500_000 -> "500 kbit/s". */
export function humanRate(bitsPerSecond: number): string {
  if (bitsPerSecond >= 1e9) return `${short(bitsPerSecond / 1e9, 1)} Gbit/s`;
  if (bitsPerSecond >= 1e6) return `${short(bitsPerSecond / 1e6, 1)} Mbit/s`;
  return `${short(bitsPerSecond / 1e3, 1)} kbit/s`;
}
