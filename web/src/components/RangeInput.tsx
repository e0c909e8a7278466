interface Props {
  /** The slider's id, which its Field's label names, and its data-testid. */
  id: string;
  min: number;
  max: number;
  step: number;
  value: number;
  onValue: (value: number) => void;
}

/** A slider over [min, max] in steps of `step`, reporting numbers. */
export function RangeInput({ id, min, max, step, value, onValue }: Props) {
  return (
    <input
      id={id}
      data-testid={id}
      className="range"
      type="range"
      min={min}
      max={max}
      step={step}
      value={value}
      onChange={(event) => onValue(Number(event.target.value))}
    />
  );
}
