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

/** What became of the model a link named, once the gateway's list is known. */
export type LinkedModel =
  { served: true; model: ModelInfo } | { served: false; name: string; instead: ModelInfo; reason?: string; servedNames: readonly string[] };

/**
 * The model named in the page's address (`?model=`) against the gateway's list: served as written, or
 * written in another case (folder names are what the gateway lists; `SSDLite-…` is taken to mean
 * `ssdlite-…` when only one model matches), or not served, with the default it falls back to.
 * Undefined while there is no list, or nothing to fall back on.
 */
export function linkedModel(response: ModelsResponse | undefined, name: string): LinkedModel | undefined {
  if (!response) return undefined;
  const exact = response.models.find((info) => info.name === name);
  if (exact) return { served: true, model: exact };
  const sameLetters = response.models.filter((info) => info.name.toLowerCase() === name.toLowerCase());
  if (sameLetters.length === 1) return { served: true, model: sameLetters[0]! };
  const instead = response.models.find((info) => info.name === response.defaultModel) ?? response.models[0];
  if (!instead) return undefined;
  const reason = response.unavailable?.find((entry) => entry.name === name)?.reason;
  const servedNames = response.models.map((info) => info.name);
  return reason === undefined ? { served: false, name, instead, servedNames } : { served: false, name, instead, reason, servedNames };
}
