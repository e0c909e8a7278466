/** The model picker's words: what a model is, and why one is not (or no longer) served. */
import type { ModelInfo } from '@sightline/shared/protocol';
import type { LinkedModel, LostModel } from '../app/model-choice.ts';

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

/** Said when the address named a model the gateway does not serve, and frames went to another one. */
export function unservedLinkText(linked: Extract<LinkedModel, { served: false }>): string {
  const why = linked.reason ? `: ${linked.reason}` : ` (it serves ${linked.servedNames.join(', ')})`;
  const name = linked.name.length > 40 ? `${linked.name.slice(0, 40)}…` : linked.name;
  return `The address’s model=${name} is not served by this gateway${why}. Using ${linked.instead.title} instead.`;
}
