/**
 * The gateway's public surface for the packages that drive it (the benchmark, the e2e suite): start one
 * in-process, build its configuration, read the model specs and the onnxruntime session options the
 * gateway itself uses. Anything not exported here is internal and may change without notice.
 */
export { DEFAULT_CONFIG, loadConfig, parseConfig, type GatewayConfig } from './config.ts';
export { startGateway, type RunningGateway } from './gateway.ts';
export { createLogger, type Logger } from './logger.ts';
export { readModelSpecs, type ModelSpec } from './models/manifest.ts';
export { sharedThreads } from './pipeline/inference-schedule.ts';
export { inferenceSessionOptions } from './pipeline/session-options.ts';
export { planDecode, type DecodePlan } from './pipeline/decode-plan.ts';
export { readImageHeader, type ImageHeader } from './pipeline/image-header.ts';
export { TurboJpegDecoder, TurboJpegRefusal, type DctScale } from './pipeline/jpeg-turbo.ts';
export { decodeWithSharp, type DecodedImage } from './pipeline/decode-image.ts';
