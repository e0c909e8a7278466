import type { ReactNode } from 'react';

interface FieldProps {
  label: string;
  htmlFor: string;
  hint?: ReactNode;
  hintId?: string;
  value?: ReactNode;
  /** Kept in the page, so its control keeps its state, but not shown (the controls of an option not chosen). */
  hidden?: boolean;
  children: ReactNode;
}

/** A labelled control with an optional live value and hint below it. */
export function Field({ label, htmlFor, hint, hintId, value, hidden = false, children }: FieldProps) {
  return (
    <div className={hidden ? 'field field--hidden' : 'field'}>
      <div className="field__head">
        <label className="field__label" htmlFor={htmlFor}>
          {label}
        </label>
        {value !== undefined && (
          <output className="field__value" htmlFor={htmlFor}>
            {value}
          </output>
        )}
      </div>
      {children}
      {hint && (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

interface PanelProps {
  title: string;
  id: string;
  actions?: ReactNode;
  className?: string;
  children: ReactNode;
}

export function Panel({ title, id, actions, className, children }: PanelProps) {
  return (
    <section className={`panel ${className ?? ''}`} aria-labelledby={id}>
      <header className="panel__head">
        <h2 className="panel__title" id={id}>
          {title}
        </h2>
        {actions && <div className="panel__actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
