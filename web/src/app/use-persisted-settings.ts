import { useCallback, useEffect, useRef, useState } from 'react';
import type { StreamSettings } from './settings.ts';
import { LEGACY_STORAGE_KEYS, loadSettings, serializeSettings, settingsToStore, STORAGE_KEY } from './settings-storage.ts';

function load(): StreamSettings {
  let stored: string | null = null;
  let legacy: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
    if (stored === null) legacy = LEGACY_STORAGE_KEYS.map((key) => localStorage.getItem(key)).find((value) => value !== null) ?? null;
  } catch {
    // Storage unavailable: defaults.
  }
  return loadSettings(stored, legacy);
}

/**
 * The settings, kept in localStorage across visits. `linked` (the page address's settings, url-settings.ts)
 * win over the stored ones for this page load, and are not stored: the stored value of a linked setting
 * stays until the person changes that setting on the page.
 */
export function usePersistedSettings(linked: Partial<StreamSettings> = {}): [StreamSettings, (patch: Partial<StreamSettings>) => void] {
  const [initial] = useState(() => {
    const stored = load();
    return { stored, settings: { ...stored, ...linked } };
  });
  const [settings, setSettings] = useState<StreamSettings>(initial.settings);
  const stillLinked = useRef<Partial<StreamSettings>>({ ...linked });
  useEffect(() => {
    const inForce = stillLinked.current;
    for (const key of Object.keys(inForce) as (keyof StreamSettings)[]) {
      if (settings[key] !== inForce[key]) delete inForce[key];
    }
    try {
      localStorage.setItem(STORAGE_KEY, serializeSettings(settingsToStore(settings, inForce, initial.stored)));
      for (const key of LEGACY_STORAGE_KEYS) localStorage.removeItem(key);
    } catch {
      // Private mode or full storage: settings simply don't persist.
    }
  }, [settings, initial]);
  const update = useCallback((patch: Partial<StreamSettings>) => setSettings((current) => ({ ...current, ...patch })), []);
  return [settings, update];
}
