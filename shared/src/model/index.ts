/**
 * The model's maths, one implementation for the gateway and the browser: the manifest, where an image
 * lands in the input, the input tensor, output decoding, NMS and mapping boxes back to the image.
 * Typed arrays only, no Node or DOM API.
 */
export { candidatesToDetections, type LabelledModel } from './detections.ts';
export {
  buildInputTensor,
  inputDims,
  MAX_BILINEAR_SHRINK,
  reusedFloatBuffers,
  shrinkInto,
  type FloatBuffers,
  type InputTensor,
  type RgbImage,
  type TensorSpec,
} from './input-tensor.ts';
export { letterboxPlacement, type Placement, type ResizeTarget } from './letterbox.ts';
export { DECODER_KINDS, manifestSchema, modelInputSchema, type DecoderKind, type Manifest, type ModelInput } from './manifest.ts';
export { mapBoxToImage } from './map-boxes.ts';
export { iou, nonMaxSuppression } from './nms.ts';
export { createDecoder, decoderRunsNms, type Candidate, type OutputDecoder, type OutputTensor } from './output-decoders/index.ts';
export {
  finishFrame,
  prepareFrame,
  runFrame,
  runFrames,
  warmUpFramePath,
  type BatchFrame,
  type DecodedFrame,
  type FrameDecoder,
  type FramePath,
  type FrameResult,
  type FrameStages,
  type ModelRunner,
  type PreparedFrame,
} from './frame-path.ts';
