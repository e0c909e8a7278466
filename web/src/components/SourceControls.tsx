import type { SourceKind, SourceState } from '../capture/capture-source.ts';
import { Field } from './Field.tsx';

interface Props {
  source: SourceState;
  mirror: boolean;
  onSourceKind: (kind: SourceKind) => void;
  onCamera: (deviceId: string) => void;
  onFile: (file: File) => void;
  onMirror: (mirror: boolean) => void;
}

export const FILE_ACCEPT = 'video/*,image/jpeg,image/png,image/webp,image/gif,image/bmp';

/** Where frames come from: a camera (picker when there are several) or a local video/image file. */
export function SourceControls({ source, mirror, onSourceKind, onCamera, onFile, onMirror }: Props) {
  const isCamera = source.kind === 'camera';
  const cameras = source.devices;
  return (
    <div className="controls-group">
      <Field label="Source" htmlFor="source-select">
        <select
          id="source-select"
          data-testid="source-select"
          className="input"
          value={source.kind}
          onChange={(event) => onSourceKind(event.target.value as SourceKind)}
        >
          <option value="camera">Camera</option>
          <option value="file">Video or image file</option>
        </select>
      </Field>

      <Field label="Camera" htmlFor="camera-select" hidden={!isCamera}>
        <select
          id="camera-select"
          data-testid="camera-select"
          className="input"
          value={source.deviceId ?? cameras[0]?.deviceId ?? ''}
          disabled={cameras.length === 0}
          onChange={(event) => onCamera(event.target.value)}
        >
          {cameras.length === 0 && <option value="">No camera found</option>}
          {cameras.map((camera) => (
            <option key={camera.deviceId} value={camera.deviceId}>
              {camera.label}
            </option>
          ))}
        </select>
        {isCamera && source.cameraNotice && (
          <p className="field__hint" data-testid="camera-notice">
            {source.cameraNotice}
          </p>
        )}
      </Field>

      <Field label="File" htmlFor="file-input" hidden={isCamera} hintId="file-hint" hint="A video loops; an image is sent again and again.">
        <div className="file-picker">
          <input
            id="file-input"
            data-testid="file-input"
            className="file-picker__input"
            type="file"
            accept={FILE_ACCEPT}
            aria-describedby="file-hint"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) onFile(file);
            }}
          />
        </div>
      </Field>

      <label className="toggle">
        <input type="checkbox" data-testid="mirror-toggle" checked={mirror} onChange={(event) => onMirror(event.target.checked)} />
        <span className="toggle__track" aria-hidden="true" />
        <span>Mirror view</span>
      </label>
    </div>
  );
}
