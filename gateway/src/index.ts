/**
 * The gateway's public surface for the packages that drive it (the benchmark, the e2e suite): start one
 * in-process, build its configuration, read its models directory as it serves it (zero-config folders
 * included), and open a model in the caller's own thread exactly as the gateway's inference workers run it
 * (the frame path with nothing around it, for the benchmark's bare loops). Anything not exported here is
 * internal and may change without notice.
 */
export { DEFAULT_CONFIG, loadConfig, parseConfig, type GatewayConfig } from './config.ts';
export { startGateway, type RunningGateway } from './gateway.ts';
export { createLogger, type Logger } from './logger.ts';
export type { ModelSpec } from './models/manifest.ts';
export type { FolderOptions } from './models/model-folder.ts';
export { readModelsDir, type ModelsDirReading } from './models/models-dir.ts';
export { sharedThreads } from './inference/inference-schedule.ts';
export { inferenceSessionOptions } from './inference/session-options.ts';
export { openFramePath, type OpenedFramePath, type OpenFramePathOptions } from './inference/local-frame-path.ts';
export { TurboJpegDecoder, type DctScale } from './decode/jpeg-turbo.ts';
