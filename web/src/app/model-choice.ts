/**
 * Which model frames go to when the one chosen is not in the gateway's list: the list changes while the
 * page is open (models added to or removed from the gateway's models directory), and a name kept in the
 * settings may be gone by the next visit.
 */
import type { ModelInfo, ModelsResponse } from '@sightline/shared/protocol';

/** A chosen model the gateway does not serve (any more), with its reason when the gateway reports one. */
export interface LostModel {
  name: string;
  reason?: string;
}

export interface ModelFallback {
  /** The model to use instead: the gateway's default, else its first. */
  model: ModelInfo;
  /** Set when a model had been chosen; undefined when none was (the first load). */
  lost?: LostModel;
}

/** Undefined while the chosen model is served, or while there is no list or no model to fall back on. */
export function modelFallback(response: ModelsResponse | undefined, chosen: string | undefined): ModelFallback | undefined {
  if (!response || response.models.some((info) => info.name === chosen)) return undefined;
  const model = response.models.find((info) => info.name === response.defaultModel) ?? response.models[0];
  if (!model) return undefined;
  if (chosen === undefined) return { model };
  const reason = response.unavailable?.find((entry) => entry.name === chosen)?.reason;
  return { model, lost: reason === undefined ? { name: chosen } : { name: chosen, reason } };
}
