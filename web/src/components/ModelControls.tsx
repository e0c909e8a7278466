import type { ModelInfo } from '@sightline/shared/protocol';
import type { LostModel } from '../app/model-choice.ts';
import type { ModelsState } from '../app/models-loader.ts';
import { lostModelText, modelSummary } from '../ui/models-text.ts';
import { Field } from './Field.tsx';
import { RangeInput } from './RangeInput.tsx';

interface Props {
  models: ModelsState;
  model: string | undefined;
  /** The model chosen before, gone from the list since (frames went to `model` instead). */
  lost: LostModel | undefined;
  threshold: number;
  onModel: (model: ModelInfo) => void;
  onThreshold: (threshold: number) => void;
  onRetry: () => void;
  /** The picker got focus: a good moment to ask the gateway for its list again. */
  onRefresh: () => void;
}

/**
 * Model picker (from GET /api/models, kept current while the page is open), the models the gateway
 * found but cannot serve with its reason for each, and the score threshold sent with every frame.
 */
export function ModelControls({ models, model, lost, threshold, onModel, onThreshold, onRetry, onRefresh }: Props) {
  const list = models.response?.models ?? [];
  const unavailable = models.response?.unavailable ?? [];
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
            <>
              {modelSummary(current)}
              {lost && current.name !== lost.name && (
                <span className="field__note text-warning" data-testid="model-lost" data-name={lost.name}>
                  {lostModelText(lost, current)}
                </span>
              )}
            </>
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
          onFocus={onRefresh}
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

      {unavailable.length > 0 && (
        <div className="models-unavailable" data-testid="models-unavailable">
          <p className="models-unavailable__title" id="models-unavailable-title">
            Not served ({unavailable.length})
          </p>
          <ul className="models-unavailable__list" aria-labelledby="models-unavailable-title">
            {unavailable.map((entry) => (
              <li key={entry.name} className="models-unavailable__entry" data-testid="model-unavailable" data-name={entry.name}>
                <code className="models-unavailable__name">{entry.name}</code>
                <span className="models-unavailable__reason">{entry.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}

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
        <RangeInput id="threshold-slider" min={0} max={1} step={0.01} value={threshold} onValue={onThreshold} />
      </Field>
    </div>
  );
}
