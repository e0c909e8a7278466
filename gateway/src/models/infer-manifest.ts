/**
 * The manifest of a model folder that holds only an ONNX file, inferred from what the file says about
 * itself (onnx-inspect.ts) with Ultralytics' conventions, or the one-line reason it cannot be: shown in
 * the gateway log, `/api/models` and `pnpm models:add`, so each says what is wrong and what to do.
 *
 * Ultralytics' conventions (its predict on an ONNX export): input NCHW float32 RGB in 0..1, letterboxed
 * to `imgsz` with gray 114 bars; score threshold 0.25, class-aware NMS at IoU 0.7, at most 300
 * detections; class ids and names from the `names` metadata. The output layout comes from the output's
 * shape and the class count:
 *   [1, 4+nc, N]  YOLOv8 / YOLO11   (decoder `yolov8`)
 *   [1, N, 5+nc]  YOLOv5            (decoder `yolov5`)
 *   [1, K, 6]     end-to-end: YOLOv10, YOLO26, or any export with nms=True (decoder `yolo-end2end`)
 *
 * A manifest's fields override what is inferred (`overrides`): one that sets what could not be inferred
 * (labels for a file without `names`, the decoder and outputs for another layout, the input size of a
 * dynamic input) makes the model servable.
 */
import { manifestSchema, type DecoderKind, type Manifest, type ModelInput } from '@sightline/shared/model';
import type { OnnxInspection, OnnxValueInfo } from './onnx-inspect.ts';
import { parsePythonLiteral, type PyValue } from './python-literal.ts';

/** Ultralytics' predict defaults. */
export const ULTRALYTICS_DEFAULTS = { scoreThreshold: 0.25, iouThreshold: 0.7, maxDetections: 300, pad: 114 } as const;

/** What the `labels` field of an inferred manifest says: the labels come from the file, not a labels file. */
export const LABELS_FROM_METADATA = 'metadata_props.names';

type ManifestFields = Omit<Manifest, 'input' | 'labels'>;

/** Manifest fields that win over the inferred ones (`input` field by field), and labels given inline. */
export type ManifestOverrides = Partial<ManifestFields> & { input?: Partial<ModelInput>; labels?: readonly string[] };

export interface InferManifestRequest {
  /** What the ONNX file says about itself. */
  inspection: OnnxInspection;
  /** The model's folder name: its name on the wire. */
  folderName: string;
  /** The file's SHA-256 (hex). */
  sha256: string;
  /** The model file, relative to the folder (default `model.onnx`). */
  file?: string;
  overrides?: ManifestOverrides;
}

export type InferredManifest =
  | {
      ok: true;
      manifest: Manifest;
      /** Index = the decoder's label index (the class id); "" marks a class id without a name. */
      labels: string[];
      /** What was found, one line each (for `pnpm models:add` and the log). */
      found: string[];
    }
  | { ok: false; reason: string };

const TASK_NAMES: Record<string, string> = {
  segment: 'instance segmentation',
  pose: 'pose estimation',
  obb: 'oriented bounding boxes',
  classify: 'classification',
};

const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/** A value, or the reason there is none (kept until an override may supply the value instead). */
type Found<T> = { value: T; note: string } | { reason: string };

const dims = (shape: OnnxValueInfo['shape']) => (shape ? `[${shape.map((d) => d ?? '?').join(', ')}]` : 'of unknown shape');

function parseMetadata(metadata: Record<string, string>, key: string): PyValue | undefined {
  const text = metadata[key];
  if (text === undefined) return undefined;
  try {
    return parsePythonLiteral(text);
  } catch {
    // JSON and bare words (`detect`) are not Python literals; the raw text is the value then.
    return text;
  }
}

/** `names` as Ultralytics writes it (a dict of class id -> name, or a list in old exports) -> labels by class id. */
function labelsFrom(metadata: Record<string, string>): Found<string[]> {
  const names = parseMetadata(metadata, 'names');
  if (names === undefined)
    return {
      reason: 'the file has no class names (metadata `names`): it is not an Ultralytics export; add a manifest.json with its labels',
    };
  if (Array.isArray(names) && names.every((n) => typeof n === 'string')) {
    return { value: names as string[], note: `${names.length} classes from metadata names` };
  }
  if (names instanceof Map && names.size > 0) {
    const labels: string[] = [];
    for (const [id, name] of names) {
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 100_000 || typeof name !== 'string') {
        return { reason: `metadata names is not a map of class ids to names: ${metadata.names!.slice(0, 80)}` };
      }
      labels[id] = name;
    }
    const filled = Array.from(labels, (l) => l ?? '');
    return { value: filled, note: `${names.size} classes from metadata names` };
  }
  return { reason: `metadata names is not a map of class ids to names: ${metadata.names!.slice(0, 80)}` };
}

interface InputFacts {
  name: string;
  layout: ModelInput['layout'];
  width?: number;
  height?: number;
}

/** The image input: one, rank 4, 3 channels, float32, batch 1 (or dynamic). */
function inputFrom(inspection: OnnxInspection): InputFacts | { reason: string } {
  const { inputs, metadata } = inspection;
  if (inputs.length !== 1) {
    return {
      reason: `the model has ${inputs.length} inputs (${inputs.map((i) => i.name).join(', ') || 'none'}); a detector export has one, the image`,
    };
  }
  const input = inputs[0]!;
  const shape = input.shape;
  if (!shape || shape.length !== 4) {
    return { reason: `input ${input.name} is ${dims(shape)}, rank ${shape?.length ?? 'unknown'}; an image input is [1, 3, height, width]` };
  }
  if (input.elementType !== 'float32') {
    const hint = input.elementType === 'float16' ? ' (exported with half=True: export without it)' : '';
    return { reason: `input ${input.name} is ${input.elementType}${hint}; float32 inputs only` };
  }
  const channels = parseMetadata(metadata, 'channels');
  if (typeof channels === 'number' && channels !== 3)
    return { reason: `the model takes ${channels}-channel images (metadata channels); RGB (3) only` };
  const [batch, second, , fourth] = shape;
  const layout = second === 3 ? 'NCHW' : fourth === 3 && typeof second === 'number' ? 'NHWC' : undefined;
  if (!layout) return { reason: `input ${input.name} is ${dims(shape)}: no dimension of 3 channels at 1 (NCHW) or 3 (NHWC)` };
  if (typeof batch === 'number' && batch !== 1) {
    return { reason: `input ${input.name} is ${dims(shape)}, a batch of ${batch} per run; export with batch=1` };
  }
  const [height, width] = layout === 'NCHW' ? [shape[2], shape[3]] : [shape[1], shape[2]];
  return {
    name: input.name,
    layout,
    ...(typeof width === 'number' && width > 0 ? { width } : {}),
    ...(typeof height === 'number' && height > 0 ? { height } : {}),
  };
}

/** The input size: the graph's own when fixed, else `imgsz` ([h, w], or one number for a square). */
function sizeFrom(input: InputFacts, metadata: Record<string, string>): Found<{ width: number; height: number }> {
  if (input.width && input.height)
    return { value: { width: input.width, height: input.height }, note: `input ${input.width}x${input.height} from the graph` };
  const imgsz = parseMetadata(metadata, 'imgsz');
  const [h, w] = typeof imgsz === 'number' ? [imgsz, imgsz] : Array.isArray(imgsz) ? imgsz : [];
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
  const height = input.height ?? h;
  const width = input.width ?? w;
  if (ok(width) && ok(height)) return { value: { width, height }, note: `input ${width}x${height} from metadata imgsz` };
  return { reason: 'the input size is dynamic and the file has no imgsz metadata; set input.width and input.height in a manifest.json' };
}

function isTrue(value: PyValue | undefined): boolean {
  return value === true || value === 'true' || value === 'True';
}

/** The decoder for the one output's shape, given the class count. */
function layoutFrom(inspection: OnnxInspection, classes: number | undefined): Found<{ decoder: DecoderKind; output: string }> {
  const { outputs, metadata } = inspection;
  if (outputs.length !== 1) {
    return {
      reason: `the model has ${outputs.length} outputs (${outputs.map((o) => `${o.name} ${dims(o.shape)}`).join(', ') || 'none'}); a YOLO detection export has one`,
    };
  }
  const output = outputs[0]!;
  const shape = output.shape;
  const expected = `expected [1, 4+nc, N] (YOLOv8/YOLO11), [1, N, 5+nc] (YOLOv5) or [1, K, 6] (end-to-end)${classes === undefined ? '' : ` with nc = ${classes}`}`;
  if (!shape || shape.length !== 3 || (typeof shape[0] === 'number' && shape[0] !== 1)) {
    return { reason: `output ${output.name} is ${dims(shape)}; ${expected}` };
  }
  if (output.elementType !== 'float32') return { reason: `output ${output.name} is ${output.elementType}; float32 outputs only` };
  const [, rows, columns] = shape;
  const found = (decoder: DecoderKind, why: string) => ({
    value: { decoder, output: output.name },
    note: `${decoder} layout: output ${output.name} ${dims(shape)}${why}`,
  });
  const end2end = parseMetadata(metadata, 'end2end');
  const args = parseMetadata(metadata, 'args');
  const nmsInGraph = args instanceof Map && isTrue(args.get('nms'));
  if (isTrue(end2end) || nmsInGraph) {
    if (columns === 6) return found('yolo-end2end', isTrue(end2end) ? ', end2end' : ', exported with nms=True');
    return {
      reason: `output ${output.name} is ${dims(shape)} but the export says ${nmsInGraph ? 'nms=True' : 'end2end'}; expected [1, K, 6]`,
    };
  }
  if (classes !== undefined) {
    if (rows === 4 + classes) return found('yolov8', '');
    if (columns === 5 + classes) return found('yolov5', '');
  }
  // YOLOv10 exports from before Ultralytics wrote `end2end`.
  if (columns === 6 && end2end === undefined) return found('yolo-end2end', '');
  return { reason: `output ${output.name} is ${dims(shape)}, not a layout Sightline reads; ${expected}` };
}

export function inferManifest(request: InferManifestRequest): InferredManifest {
  const { inspection, folderName, sha256, file = 'model.onnx', overrides = {} } = request;
  const { metadata } = inspection;

  const task = parseMetadata(metadata, 'task');
  if (task !== undefined && task !== 'detect') {
    const what = typeof task === 'string' ? (TASK_NAMES[task] ?? 'not detection') : 'not detection';
    return {
      ok: false,
      reason: `task ${JSON.stringify(task)} (${what}) is not supported: Sightline serves detection models (task detect)`,
    };
  }
  const name = overrides.name ?? folderName;
  if (!NAME_PATTERN.test(name)) {
    return {
      ok: false,
      reason: `folder name ${JSON.stringify(folderName)} cannot be a model name: lowercase letters, digits, . _ - (rename the folder)`,
    };
  }

  const input = inputFrom(inspection);
  if ('reason' in input) return { ok: false, reason: input.reason };

  const found: string[] = [];
  const pick = <T>(what: Found<T>, override: T | undefined, overrideNote: string): T | { reason: string } => {
    if (override !== undefined) {
      found.push(overrideNote);
      return override;
    }
    if ('reason' in what) return what;
    found.push(what.note);
    return what.value;
  };

  const labels = pick(
    labelsFrom(metadata),
    overrides.labels ? [...overrides.labels] : undefined,
    `${overrides.labels?.length} labels from the manifest`,
  );
  if ('reason' in labels) return { ok: false, reason: labels.reason };

  const { width: widthOverride, height: heightOverride } = overrides.input ?? {};
  const size = pick(
    sizeFrom(input, metadata),
    widthOverride && heightOverride ? { width: widthOverride, height: heightOverride } : undefined,
    `input ${widthOverride}x${heightOverride} from the manifest`,
  );
  if ('reason' in size) return { ok: false, reason: size.reason };

  const layout = pick(
    layoutFrom(inspection, labels.length),
    overrides.decoder && overrides.outputs ? { decoder: overrides.decoder, output: '' } : undefined,
    `${overrides.decoder} decoder from the manifest`,
  );
  if ('reason' in layout) return { ok: false, reason: layout.reason };

  const license = metadata.license ?? 'unknown (not in the file)';
  const { input: _input, labels: _labels, ...manifestOverrides } = overrides;
  const candidate = {
    name,
    title: `${name} (${labels.filter(Boolean).length} classes)`,
    kind: 'objects',
    default: false,
    file,
    sha256,
    license,
    input: {
      name: input.name,
      layout: input.layout,
      dtype: 'float32',
      width: size.width,
      height: size.height,
      resize: 'letterbox',
      range: [0, 1],
      pad: ULTRALYTICS_DEFAULTS.pad,
      ...overrides.input,
    },
    outputs: { output: layout.output },
    decoder: layout.decoder,
    labels: LABELS_FROM_METADATA,
    scoreThreshold: ULTRALYTICS_DEFAULTS.scoreThreshold,
    iouThreshold: ULTRALYTICS_DEFAULTS.iouThreshold,
    maxDetections: ULTRALYTICS_DEFAULTS.maxDetections,
    ...manifestOverrides,
  };
  const parsed = manifestSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `the manifest's ${issue.path.join('.') || 'fields'} ${issue.message.toLowerCase()}` };
  }
  return { ok: true, manifest: parsed.data, labels, found };
}
