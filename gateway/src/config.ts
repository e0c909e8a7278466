/**
 * Gateway configuration: defaults, overridden by environment variables, overridden by command-line flags.
 * Validated once at start so a typo fails loudly instead of running with a surprising value.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { z } from 'zod';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const configSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535),
  host: z.string().min(1),
  modelsDir: z.string().min(1),
  webDir: z.string().min(1),
  /** Model used when a frame names none; the manifest marked default when unset. */
  defaultModel: z.string().optional(),
  /** Overrides every model's own default score threshold when set. */
  scoreThreshold: z.coerce.number().min(0).max(1).optional(),
  /** onnxruntime intra-op threads of a frame inferred alone. */
  threads: z.coerce.number().int().min(1).max(64),
  /** Inference workers: frames inferred side by side when frames queue up, on an equal share of `threads` each. */
  workers: z.coerce.number().int().min(1).max(16),
  /** Frames per connection being processed at once. */
  maxInFlight: z.coerce.number().int().min(1).max(64),
  /** Frames per connection waiting beyond maxInFlight; the newest wins. 0 drops at once when busy. */
  queueLength: z.coerce.number().int().min(0).max(64),
  /** Frames from all connections waiting for an inference worker before new ones get `overloaded`. */
  maxPending: z.coerce.number().int().min(1).max(10_000),
  maxMessageBytes: z.coerce.number().int().min(1024),
  maxPixels: z.coerce.number().int().min(1),
  maxConnections: z.coerce.number().int().min(1),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
});

export type GatewayConfig = z.infer<typeof configSchema>;

export const DEFAULT_CONFIG: GatewayConfig = {
  port: 8080,
  host: '0.0.0.0',
  modelsDir: `${repoRoot}models`,
  webDir: `${repoRoot}web/dist`,
  threads: Math.max(1, availableParallelism()),
  workers: Math.min(16, Math.max(1, availableParallelism())),
  maxInFlight: 2,
  queueLength: 2,
  maxPending: 64,
  maxMessageBytes: 10 * 1024 * 1024,
  maxPixels: 40_000_000,
  maxConnections: 256,
  logLevel: 'info',
};

/** Environment variable for each setting. */
const ENV_NAMES: Record<keyof GatewayConfig, string> = {
  port: 'PORT',
  host: 'HOST',
  modelsDir: 'SIGHTLINE_MODELS_DIR',
  webDir: 'SIGHTLINE_WEB_DIR',
  defaultModel: 'SIGHTLINE_MODEL',
  scoreThreshold: 'SIGHTLINE_THRESHOLD',
  threads: 'SIGHTLINE_THREADS',
  workers: 'SIGHTLINE_WORKERS',
  maxInFlight: 'SIGHTLINE_MAX_IN_FLIGHT',
  queueLength: 'SIGHTLINE_QUEUE_LENGTH',
  maxPending: 'SIGHTLINE_MAX_PENDING',
  maxMessageBytes: 'SIGHTLINE_MAX_MESSAGE_BYTES',
  maxPixels: 'SIGHTLINE_MAX_PIXELS',
  maxConnections: 'SIGHTLINE_MAX_CONNECTIONS',
  logLevel: 'LOG_LEVEL',
};

function fromEnvironment(env: NodeJS.ProcessEnv): Partial<Record<keyof GatewayConfig, string>> {
  const values: Partial<Record<keyof GatewayConfig, string>> = {};
  for (const [key, name] of Object.entries(ENV_NAMES) as Array<[keyof GatewayConfig, string]>) {
    const value = env[name];
    if (value !== undefined && value !== '') values[key] = value;
  }
  return values;
}

function fromFlags(argv: readonly string[]): Partial<Record<keyof GatewayConfig, string>> {
  const program = new Command('sightline-gateway')
    .description('Sightline detection gateway: WebSocket and REST object detection over ONNX Runtime.')
    .option('-p, --port <n>', `port to listen on (${ENV_NAMES.port}, default ${DEFAULT_CONFIG.port})`)
    .option('--host <addr>', `address to bind (${ENV_NAMES.host}, default ${DEFAULT_CONFIG.host})`)
    .option('--models-dir <dir>', `folder of model manifests (${ENV_NAMES.modelsDir})`)
    .option('--web-dir <dir>', `dashboard build to serve (${ENV_NAMES.webDir})`)
    .option('-m, --default-model <name>', `model for frames that name none (${ENV_NAMES.defaultModel})`)
    .option('-t, --score-threshold <0..1>', `score threshold for every model (${ENV_NAMES.scoreThreshold})`)
    .option('--threads <n>', `onnxruntime intra-op threads of a frame inferred alone (${ENV_NAMES.threads}, default: cores)`)
    .option('--workers <n>', `frames inferred side by side once frames queue up, sharing the threads (${ENV_NAMES.workers}, default: cores)`)
    .option('--max-in-flight <n>', `frames processed at once per connection (${ENV_NAMES.maxInFlight}, default 2)`)
    .option('--queue-length <n>', `frames waiting per connection, newest wins (${ENV_NAMES.queueLength}, default 2)`)
    .option('--max-pending <n>', `frames waiting for inference, all connections (${ENV_NAMES.maxPending}, default 64)`)
    .option('--max-message-bytes <n>', `largest accepted message (${ENV_NAMES.maxMessageBytes}, default 10 MiB)`)
    .option('--max-pixels <n>', `largest accepted image, width x height (${ENV_NAMES.maxPixels}, default 40 M)`)
    .option('--max-connections <n>', `WebSocket connections at once (${ENV_NAMES.maxConnections}, default 256)`)
    .option('--log-level <level>', `pino log level (${ENV_NAMES.logLevel}, default info)`)
    .allowExcessArguments(false);
  program.parse([...argv], { from: 'user' });
  return program.opts<Partial<Record<keyof GatewayConfig, string>>>();
}

/** Builds the configuration; throws with every invalid setting named. */
export function loadConfig(
  argv: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): GatewayConfig {
  return parseConfig({ ...fromEnvironment(env), ...fromFlags(argv) });
}

export function parseConfig(overrides: Partial<Record<keyof GatewayConfig, unknown>>): GatewayConfig {
  const result = configSchema.safeParse({ ...DEFAULT_CONFIG, ...overrides });
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${ENV_NAMES[i.path[0] as keyof GatewayConfig] ?? i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  return result.data;
}
