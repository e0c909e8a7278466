/**
 * A model output as onnxruntime hands it over, in Node (onnxruntime-node) or in the browser
 * (onnxruntime-web): its element type, values and shape. Decoders need no more of it.
 */
export interface OutputTensor {
  readonly type: string;
  readonly data: unknown;
  readonly dims: readonly number[];
}

/**
 * One candidate box as a model's output decoder sees it, before NMS and before mapping back to the
 * submitted image. Coordinates are normalised to the model's input tensor: 0..1 on each axis of the
 * (possibly letterboxed) input, x1 < x2, y1 < y2.
 */
export interface Candidate {
  /** Index into the manifest's `labels` array. */
  labelIndex: number;
  score: number;
  box: [x1: number, y1: number, x2: number, y2: number];
}

/** Turns a model's raw outputs (keyed by output name) into scored candidates above `threshold`. */
export type OutputDecoder = (outputs: Readonly<Record<string, OutputTensor>>, threshold: number) => Candidate[];
