import { useCallback, useEffect, useState } from 'react';
import { DEFAULT_SETTINGS, type StreamSettings } from './settings.ts';

const STORAGE_KEY = 'sightline.settings.v1';
/** Settings that make sense across visits; source-specific ones (mirror, model threshold, pause) do not. */
const PERSISTED = ['codec', 'abMode', 'abEvery', 'maxInFlight', 'frameSize', 'jpegQuality', 'statsWindow'] as const;

function load(): StreamSettings {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<StreamSettings>;
    const merged: StreamSettings = { ...DEFAULT_SETTINGS };
    for (const key of PERSISTED) {
      const value = stored[key];
      if (value !== undefined && typeof value === typeof DEFAULT_SETTINGS[key]) (merged as unknown as Record<string, unknown>)[key] = value;
      else if (key === 'frameSize' && (value === 'native' || typeof value === 'number')) merged.frameSize = value;
    }
    return merged;
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function usePersistedSettings(): [StreamSettings, (patch: Partial<StreamSettings>) => void] {
  const [settings, setSettings] = useState<StreamSettings>(load);
  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(PERSISTED.map((key) => [key, settings[key]]))));
    } catch {
      // Private mode or full storage: settings simply don't persist.
    }
  }, [settings]);
  const update = useCallback((patch: Partial<StreamSettings>) => setSettings((current) => ({ ...current, ...patch })), []);
  return [settings, update];
}
