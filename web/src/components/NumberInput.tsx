import { useEffect, useState, type InputHTMLAttributes } from 'react';

interface Props extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type' | 'min' | 'max'> {
  value: number;
  min: number;
  max: number;
  onValue: (value: number) => void;
}

/**
 * An integer input that can be edited freely (even emptied while typing): valid values are applied as they
 * are typed, anything else snaps back to the current value when the field loses focus.
 */
export function NumberInput({ value, min, max, onValue, onBlur, ...rest }: Props) {
  const [draft, setDraft] = useState(String(value));
  useEffect(() => setDraft(String(value)), [value]);
  return (
    <input
      {...rest}
      type="number"
      inputMode="numeric"
      min={min}
      max={max}
      step={1}
      value={draft}
      onChange={(event) => {
        setDraft(event.target.value);
        const parsed = Number.parseInt(event.target.value, 10);
        if (Number.isFinite(parsed)) onValue(Math.min(max, Math.max(min, parsed)));
      }}
      onBlur={(event) => {
        setDraft(String(value));
        onBlur?.(event);
      }}
    />
  );
}
