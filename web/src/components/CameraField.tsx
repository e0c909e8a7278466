import { useEffect, useId, useState, type FormEvent } from 'react';
import { CAMERA_NAME_EXPECTS, parseCameraName } from '../scene-rules/camera-name.ts';
import { Field } from './Field.tsx';

interface Props {
  /** The camera chosen (the settings'). */
  value: string;
  onChange: (camera: string) => void;
}

/**
 * The camera this dashboard's frames belong to: a name, applied with Enter or Apply once it is one (the stream
 * then reconnects naming it: `?camera=` on the WebSocket and on WHIP), and whose rules, counts and events are shown.
 */
export function CameraField({ value, onChange }: Props) {
  const id = useId();
  const [draft, setDraft] = useState(value);
  // The camera changed elsewhere (the address, another control): the field shows it.
  useEffect(() => setDraft(value), [value]);
  const name = parseCameraName(draft);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (name !== undefined && name !== value) onChange(name);
  };
  return (
    <Field
      label="Camera"
      htmlFor={id}
      hintId={`${id}-hint`}
      hint={
        name === undefined ? (
          <span className="field__note--error" data-testid="camera-message">
            Not a camera name: {CAMERA_NAME_EXPECTS}.
          </span>
        ) : (
          'Frames, rules, counts and events belong to this camera; streams naming the same camera share its rules.'
        )
      }
    >
      <form className="camera-field" onSubmit={apply}>
        <input
          id={id}
          className="input"
          data-testid="camera-input"
          value={draft}
          maxLength={64}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          aria-invalid={name === undefined}
          aria-describedby={`${id}-hint`}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="button" data-testid="camera-apply" disabled={name === undefined || name === value}>
          Apply
        </button>
      </form>
    </Field>
  );
}
