import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { LinkState } from '../app/link-switch.ts';
import { checkLink, LINK_CHOICES, presetOf } from '../link/link-check.ts';
import type { Transport } from '../transport/transports.ts';
import { customLinkMessage, LINK_SPEC_EXAMPLE, presetHint, presetOptionText, refusalText, switchingText } from '../ui/link-text.ts';

interface Props {
  /** The link chosen (the settings'): a canonical spec. */
  value: string;
  /** What the stream runs behind, a switch under way, a refusal. */
  state: LinkState;
  /** The transport chosen: what a custom spec is checked for (loss only over WebRTC: its datagrams can be lost). */
  transport: Transport;
  onChange: (link: string) => void;
}

const CUSTOM = 'custom';

/**
 * The Link selector of the stage bar: None, the link lab's presets, or a custom spec checked with the link lab's
 * parser as it is typed (applied with Enter or Apply, never while it is wrong). Choosing puts the running stream
 * behind the link: the gateway's socket reconnects with `?link=`, or the WebRTC peer makes a new WHIP session with it.
 */
export function LinkSelector({ value, state, transport, onChange }: Props) {
  const id = useId();
  const chosenPreset = presetOf(value);
  const [editing, setEditing] = useState(!chosenPreset);
  const [draft, setDraft] = useState(chosenPreset ? '' : value);
  const input = useRef<HTMLInputElement>(null);
  // The link chosen changed (here, from the address, or a refusal sending the stream back): the selector shows it.
  useEffect(() => {
    const custom = !presetOf(value);
    setEditing(custom);
    if (custom) setDraft(value);
  }, [value]);

  const message = customLinkMessage(draft, transport);
  const check = checkLink(draft, transport);
  const applicable = check.ok && check.spec !== value;
  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (check.ok) onChange(check.spec);
  };
  const note = state.refusal ? refusalText(state.refusal) : switchingText(state);
  const customHint =
    transport === 'webrtc'
      ? 'A custom link: rate, delay, jitter, loss and queue, per direction'
      : 'A custom link: rate, delay, jitter and queue, per direction';

  return (
    <div className="stage-bar__group link-field">
      <label className="stage-bar__label" htmlFor={`${id}-select`}>
        Link
      </label>
      <select
        id={`${id}-select`}
        className="input link-field__select"
        data-testid="link-select"
        value={editing ? CUSTOM : value}
        title={chosenPreset && !editing ? presetHint(chosenPreset) : customHint}
        onChange={(event) => {
          const next = event.target.value;
          if (next === CUSTOM) {
            setEditing(true);
            // The field starts from the link in force, ready to be changed.
            if (draft === '' && state.inForce.emulated) setDraft(state.inForce.spec);
            setTimeout(() => input.current?.focus(), 0);
            return;
          }
          setEditing(false);
          onChange(next);
        }}
      >
        {LINK_CHOICES.map((preset) => (
          <option key={preset.name} value={preset.name} title={presetHint(preset)}>
            {presetOptionText(preset)}
          </option>
        ))}
        <option value={CUSTOM}>Custom…</option>
      </select>
      {editing && (
        <form className="link-field__custom" onSubmit={apply}>
          <input
            ref={input}
            className="input link-field__input"
            data-testid="link-custom"
            aria-label="Custom link spec"
            aria-describedby={`${id}-message`}
            aria-invalid={draft.trim() !== '' && !message.valid}
            placeholder={LINK_SPEC_EXAMPLE}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
          <button type="submit" className="button button--small" data-testid="link-apply" disabled={!applicable}>
            Apply
          </button>
          <p
            id={`${id}-message`}
            className={`link-field__message${message.valid ? '' : ' is-invalid'}`}
            data-testid="link-message"
            data-valid={message.valid}
            aria-live="polite"
          >
            {message.text}
          </p>
        </form>
      )}
      {note && (
        <p
          className={`link-field__note${state.refusal ? ' is-refused' : ''}`}
          data-testid={state.refusal ? 'link-refusal' : 'link-status'}
          role="status"
        >
          {note}
        </p>
      )}
    </div>
  );
}
