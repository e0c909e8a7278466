/**
 * A model from GET /api/models as the browser runs it: its manifest rebuilt from the `onDevice`
 * description (validated by the same schema the gateway reads manifests with), its full label array
 * and where its file is. The worker hands `manifest` and `labels` to the shared model code, exactly as
 * the gateway's inference worker does.
 */
import { manifestSchema, type Manifest } from '@sightline/shared/model';
import type { ModelInfo, OnDeviceModel } from '@sightline/shared/protocol';

export interface OnDeviceSpec {
  name: string;
  file: OnDeviceModel['file'];
  manifest: Manifest;
  /** Index = the decoder's label index; "" marks an unused column. */
  labels: string[];
}

export type OnDeviceSupport = { ok: true; spec: OnDeviceSpec } | { ok: false; reason: string };

/** Whether `info` can run in this browser, and how; the reason in words when it cannot. */
export function onDeviceSpec(info: ModelInfo): OnDeviceSupport {
  const served = info.onDevice;
  if (!served) return { ok: false, reason: `the gateway does not serve the file of ${info.title}` };
  const parsed = manifestSchema.safeParse({
    name: info.name,
    title: info.title,
    kind: info.kind,
    default: info.default,
    // Where this copy of the manifest's model comes from: the gateway, not a folder.
    file: served.file.url,
    sha256: served.file.sha256,
    license: served.license,
    input: served.input,
    outputs: served.outputs,
    decoder: served.decoder,
    labels: 'GET /api/models',
    ...(served.classIds ? { classIds: served.classIds } : {}),
    scoreThreshold: info.scoreThreshold,
    iouThreshold: served.iouThreshold,
    maxDetections: served.maxDetections,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid';
    return { ok: false, reason: `this dashboard cannot run ${info.title} (${where}); reload the page after a gateway update` };
  }
  return { ok: true, spec: { name: info.name, file: served.file, manifest: parsed.data, labels: [...served.labels] } };
}
