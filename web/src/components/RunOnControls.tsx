import { readValue } from '../app/setting-values.ts';
import { SETTINGS, type StreamSettings } from '../app/settings.ts';
import { RUN_ON_HINTS, RUN_ON_LABELS, usesDevice } from '../frame-routes/run-on.ts';
import type { OnDeviceState } from '../inference/on-device-engine.ts';
import { THREAD_CHOICES, wasmThreads, type ThreadsSetting } from '../inference/threads.ts';
import { onDeviceNotes, onDeviceStatusText } from '../ui/on-device-text.ts';

interface Props {
  settings: Pick<StreamSettings, 'runOn' | 'deviceThreads'>;
  onDevice: OnDeviceState;
  onChange: (patch: Partial<StreamSettings>) => void;
  onRetry: () => void;
}

function threadsLabel(setting: ThreadsSetting, isolated: boolean): string {
  if (setting !== 'auto') return `${setting} ${setting === 1 ? 'thread' : 'threads'}`;
  const threads = wasmThreads('auto', { crossOriginIsolated: isolated, hardwareConcurrency: navigator.hardwareConcurrency });
  return `Auto (${threads})`;
}

/**
 * Where frames run (chosen in the bar under the picture, StageBar) in words, and how the model runs on this
 * device: its status, notes, and threads.
 */
export function RunOnControls({ settings, onDevice, onChange, onRetry }: Props) {
  const isolated = typeof window !== 'undefined' && window.crossOriginIsolated;
  const device = usesDevice(settings.runOn);
  const notes = onDeviceNotes(onDevice);
  return (
    <div className="controls-group run-on-controls">
      <div className="field">
        <p className="field__label">
          Run on: <span data-testid="run-on-summary">{RUN_ON_LABELS[settings.runOn]}</span>
        </p>
        <p className="field__hint">{RUN_ON_HINTS[settings.runOn]}</p>
        {(device || onDevice.status === 'ready') && (
          <p
            className={`field__hint on-device-status${onDevice.status === 'error' || onDevice.status === 'unavailable' ? ' text-warning' : ''}`}
            data-testid="on-device-status"
            data-status={onDevice.status}
            data-model={onDevice.model ?? ''}
            data-backend={onDevice.backend ?? ''}
            data-threads={onDevice.threads ?? ''}
            data-bytes={onDevice.file?.bytes ?? ''}
            data-load-ms={onDevice.loadMs === undefined ? '' : Math.round(onDevice.loadMs)}
          >
            {onDevice.status === 'loading' && <span className="spinner spinner--small" aria-hidden="true" />}
            <span>
              <strong>This device:</strong> {onDeviceStatusText(onDevice)}
            </span>
            {onDevice.status === 'error' && (
              <button type="button" className="link-button" onClick={onRetry}>
                Retry
              </button>
            )}
          </p>
        )}
        {notes.map((note) => (
          <p key={note} className="field__hint">
            {note}
          </p>
        ))}
      </div>
      {device && (
        <label className="compact-number">
          <span>On-device threads</span>
          <select
            className="input input--small"
            data-testid="device-threads-select"
            value={String(settings.deviceThreads)}
            disabled={!isolated}
            title={isolated ? 'WASM threads of the model on this device' : 'Threads need a cross-origin isolated page'}
            onChange={(event) => {
              const value = readValue(SETTINGS.deviceThreads.values, event.target.value);
              if (value !== undefined) onChange({ deviceThreads: value });
            }}
          >
            {THREAD_CHOICES.map((choice) => (
              <option key={String(choice)} value={String(choice)}>
                {threadsLabel(choice, isolated)}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
