import type { ModelInfo } from '@sightline/shared/protocol';
import type { ModelsState } from '../app/models-loader.ts';
import { Field } from './Field.tsx';

interface Props {
  models: ModelsState;
  model: string | undefined;
  threshold: number;
  onModel: (model: ModelInfo) => void;
  onThreshold: (threshold: number) => void;
  onRetry: () => void;
}

/** Model picker (from GET /api/models) and the score threshold sent with every frame. */
export function ModelControls({ models, model, threshold, onModel, onThreshold, onRetry }: Props) {
  const list = models.response?.models ?? [];
  const current = list.find((info) => info.name === model);
  return (
    <div className="controls-group">
      <Field
        label="Model"
        htmlFor="model-select"
        hintId="model-hint"
        hint={
          models.status === 'error' ? (
            <span className="text-warning">
              Model list unavailable ({models.error}).{' '}
              <button type="button" className="link-button" onClick={onRetry}>
                Retry
              </button>
            </span>
          ) : current ? (
            `${current.kind === 'faces' ? 'Faces' : 'Objects'} · ${current.labels.length} ${current.labels.length === 1 ? 'class' : 'classes'} · input ${current.input.width}×${current.input.height}`
          ) : undefined
        }
      >
        <select
          id="model-select"
          data-testid="model-select"
          className="input"
          value={model ?? ''}
          disabled={list.length === 0}
          aria-describedby="model-hint"
          onChange={(event) => {
            const picked = list.find((info) => info.name === event.target.value);
            if (picked) onModel(picked);
          }}
        >
          {list.length === 0 && <option value="">{models.status === 'loading' ? 'Loading models…' : 'No models'}</option>}
          {list.map((info) => (
            <option key={info.name} value={info.name}>
              {info.title}
            </option>
          ))}
        </select>
      </Field>

      <Field
        label="Score threshold"
        htmlFor="threshold-slider"
        value={threshold.toFixed(2)}
        hint={
          current && Math.abs(current.scoreThreshold - threshold) > 1e-9 ? (
            <button type="button" className="link-button" onClick={() => onThreshold(current.scoreThreshold)}>
              Reset to model default ({current.scoreThreshold.toFixed(2)})
            </button>
          ) : (
            'Boxes scoring below it are not returned.'
          )
        }
      >
        <input
          id="threshold-slider"
          data-testid="threshold-slider"
          className="range"
          type="range"
          min={0}
          max={1}
          step={0.01}
          value={threshold}
          onChange={(event) => onThreshold(Number(event.target.value))}
        />
      </Field>
    </div>
  );
}
