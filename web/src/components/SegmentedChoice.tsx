export interface SegmentedChoiceProps<T extends string> {
  /** The radio group's name, also the prefix of each option's data-testid (`${name}-${option}`). */
  name: string;
  options: readonly T[];
  value: T;
  labels: Readonly<Record<T, string>>;
  /** Shown as each option's tooltip. */
  hints: Readonly<Record<T, string>>;
  onChange: (value: T) => void;
}

/** One choice out of a few, as a row of segmented radio buttons. */
export function SegmentedChoice<T extends string>({ name, options, value, labels, hints, onChange }: SegmentedChoiceProps<T>) {
  return (
    <div className="segmented" role="presentation">
      {options.map((option) => (
        <label key={option} className="segmented__option" title={hints[option]}>
          <input
            type="radio"
            name={name}
            value={option}
            data-testid={`${name}-${option}`}
            checked={value === option}
            onChange={() => onChange(option)}
          />
          <span>{labels[option]}</span>
        </label>
      ))}
    </div>
  );
}
