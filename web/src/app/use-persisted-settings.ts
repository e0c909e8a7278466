import { useCallback, useEffect, useState } from 'react';
import type { StreamSettings } from './settings.ts';
import { LEGACY_STORAGE_KEYS, loadSettings, serializeSettings, STORAGE_KEY } from './settings-storage.ts';

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

export function usePersistedSettings(): [StreamSettings, (patch: Partial<StreamSettings>) => void] {
  const [settings, setSettings] = useState<StreamSettings>(load);
  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, serializeSettings(settings));
      for (const key of LEGACY_STORAGE_KEYS) localStorage.removeItem(key);
    } catch {
      // Private mode or full storage: settings simply don't persist.
    }
  }, [settings]);
  const update = useCallback((patch: Partial<StreamSettings>) => setSettings((current) => ({ ...current, ...patch })), []);
  return [settings, update];
}
