/**
 * Settings kept in localStorage across visits, each checked on the way in by its row of the settings table
 * (settings.ts), the check the address uses too: a value it does not take falls back to the default. Pure
 * (strings in, settings out) so it is unit-tested without a DOM.
 *
 * v1 stored `frameSize` even when the person never touched it, so its 320 (the old default, which makes
 * SSDLite mislabel objects) cannot be told from a deliberate choice: on migration it becomes "auto".
 * Any other stored size that is still a valid option is kept; anything unknown falls back to the default.
 */
import { DEFAULT_SETTINGS, SETTING_ROWS, type StreamSettings } from './settings.ts';

export const STORAGE_KEY = 'sightline.settings.v2';
export const LEGACY_STORAGE_KEYS = ['sightline.settings.v1'] as const;
/** v1's default frame size, replaced by "auto" when migrating. */
const V1_DEFAULT_FRAME_SIZE = 320;

/** The settings kept across visits (the table's `persisted`): source-specific ones (model, threshold, mirror, pause) are not. */
const PERSISTED = SETTING_ROWS.filter((row) => row.persisted);

function parseObject(raw: string | null | undefined): Record<string, unknown> | undefined {
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Settings from the stored v2 value, else migrated from v1, else the defaults. */
export function loadSettings(stored: string | null | undefined, legacy?: string | null): StreamSettings {
  const merged: StreamSettings = { ...DEFAULT_SETTINGS };
  let source = parseObject(stored);
  if (!source) {
    const old = parseObject(legacy);
    if (old) source = old.frameSize === V1_DEFAULT_FRAME_SIZE ? { ...old, frameSize: 'auto' } : old;
  }
  if (!source) return merged;
  for (const { key, values } of PERSISTED) {
    const value = source[key];
    if (values.valid(value)) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/**
 * What to store while some settings come from the page's address: those keep the stored value, so a
 * link sets its choices for the page load it opens, not for every visit after it. `linked` holds the
 * address's values still in force (the hook drops a key once the person changes that setting).
 */
export function settingsToStore(current: StreamSettings, linked: Partial<StreamSettings>, stored: StreamSettings): StreamSettings {
  const kept: Partial<StreamSettings> = {};
  for (const { key } of PERSISTED) {
    if (key in linked) (kept as Record<string, unknown>)[key] = stored[key];
  }
  return { ...current, ...kept };
}

export function serializeSettings(settings: StreamSettings): string {
  return JSON.stringify(Object.fromEntries(PERSISTED.map(({ key }) => [key, settings[key]])));
}
