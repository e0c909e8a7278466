/** The model picker's words: what a model is, and why one is not (or no longer) served. */
import type { ModelInfo } from '@sightline/shared/protocol';
import type { LostModel } from '../app/model-choice.ts';

/** "Objects · 80 classes · input 640×640". */
export function modelSummary(info: ModelInfo): string {
  const classes = `${info.labels.length} ${info.labels.length === 1 ? 'class' : 'classes'}`;
  return `${info.kind === 'faces' ? 'Faces' : 'Objects'} · ${classes} · input ${info.input.width}×${info.input.height}`;
}

/** Said when the chosen model left the list and frames went to another one. */
export function lostModelText(lost: LostModel, instead: Pick<ModelInfo, 'title'>): string {
  const why = lost.reason ? `: ${lost.reason}` : '';
  return `“${lost.name}” is no longer served by the gateway${why}. Using ${instead.title} instead.`;
}
