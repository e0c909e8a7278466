/**
 * Gateway configuration: defaults, overridden by environment variables, overridden by command-line flags.
 * Validated once at start so a typo fails loudly instead of running with a surprising value.
 */
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { cpuBudget } from './cpu-budget.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The cores this process may run on, capped by a container's CPU quota: threads sized to the host would be throttled. */
const cpus = cpuBudget().cpus;

/** A comma-separated list in one variable or flag. */
const list = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .or(z.array(z.string()));

const configSchema = z
  .object({
    port: z.coerce.number().int().min(0).max(65535),
    /** Address to bind: this machine only by default; `--host` alone means every address (Vite's convention). */
    host: z.union([z.literal(true).transform(() => '0.0.0.0'), z.string().min(1)]),
    /** HTTPS and WSS: `auto` (a self-signed certificate kept in dataDir) or `off`; default off on localhost, auto when exposed. */
    tls: z.enum(['auto', 'off']).optional(),
    /** The user's own certificate and key (PEM files); both or neither. */
    tlsCert: z.string().min(1).optional(),
    tlsKey: z.string().min(1).optional(),
    dataDir: z.string().min(1),
    /** The access token; generated at start when exposed and unset. */
    token: z.string().min(16, 'at least 16 characters').optional(),
    /** `none` lets anyone who can reach an exposed gateway use it (logged as a warning at start). */
    auth: z.enum(['token', 'none']),
    /** Origins besides the gateway's own whose pages may use it (WebSocket and CORS). */
    allowedOrigins: list,
    /** Host names besides the machine's own the gateway answers to; `*` turns the Host check off. */
    allowedHosts: list,
    /** This gateway's name in hello, /healthz, metrics and logs: which replica served a client. */
    instance: z.string().min(1).max(100),
    /** WebSocket connections at once from one client address. */
    maxConnectionsPerIp: z.coerce.number().int().min(1),
    /** Serve /metrics on this separate port (plain HTTP, no token) instead of behind the token on the main one. */
    metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
    /** Proxies whose X-Forwarded-For is believed, for the client address (proxy-addr syntax: loopback, 10.0.0.0/8, ...). */
    trustProxy: list,
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
    /** Frames of one model a worker runs as one batch when they queue up, if the model's graph takes a batch (1: never). */
    maxBatch: z.coerce.number().int().min(1).max(64),
    /** Frames per connection being processed at once. */
    maxInFlight: z.coerce.number().int().min(1).max(64),
    /** Frames per connection waiting beyond maxInFlight; the newest wins. 0 drops at once when busy. */
    queueLength: z.coerce.number().int().min(0).max(64),
    /** Frames waiting across all connections before new ones get `overloaded`. */
    maxPending: z.coerce.number().int().min(1).max(10_000),
    /** Frames processed at once across the gateway (decode to reply); the rest wait, fairly per connection. Default: workers + 1. */
    maxProcessing: z.coerce.number().int().min(1).max(256).optional(),
    /** Longest predicted wait for a place a frame is accepted with; a frame predicted to wait longer is refused on receipt. */
    queueBudgetMs: z.coerce.number().int().min(0).max(60_000),
    /** MiB that the decodes of the frames processed at once may hold; a costly frame waits for room. */
    decodeBudgetMb: z.coerce.number().int().min(1).max(65_536),
    /** MiB one frame's decode may hold; more is `too_large` on receipt. */
    frameDecodeMb: z.coerce.number().int().min(1).max(65_536),
    /** MiB of messages and request bodies still arriving, across every connection; past it, reading waits. */
    receiveBudgetMb: z.coerce.number().int().min(1).max(65_536),
    /** Per connection: bytes waiting to be sent (replies, pongs) before the connection is closed as a slow consumer. */
    maxBufferedBytes: z.coerce.number().int().min(1024),
    /** Per connection: messages per second before `rate_limited`; persisting past it closes the connection. */
    maxMessagesPerSecond: z.coerce.number().int().min(1),
    /** JPEG decoding: `turbo` (libjpeg-turbo in the inference workers, sharp for the rest) or `sharp` for everything (to compare). */
    jpegDecoder: z.enum(['turbo', 'sharp']),
    /** Pings every connection this often; one that misses a ping by the next is closed (gone, or not reading). */
    heartbeatMs: z.coerce.number().int().min(100).max(600_000),
    /** From the first shutdown signal to exit, at most. */
    drainTimeoutMs: z.coerce.number().int().min(0).max(600_000),
    maxMessageBytes: z.coerce.number().int().min(1024),
    maxPixels: z.coerce.number().int().min(1),
    /** Model files larger than this are refused (reported, not served). */
    maxModelMb: z.coerce.number().int().min(1),
    /** A KServe v2 / Triton server that runs every model under its manifest name; unset: the gateway's own workers. */
    inferenceUrl: z.string().url().optional(),
    /** Bound on one request to the inference engine. */
    inferenceTimeoutMs: z.coerce.number().int().min(10).max(600_000),
    maxConnections: z.coerce.number().int().min(1),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  })
  .refine((config) => Boolean(config.tlsCert) === Boolean(config.tlsKey), {
    message: 'give both the certificate and its key, or neither',
    path: ['tlsCert'],
  })
  .refine((config) => config.frameDecodeMb <= config.decodeBudgetMb, {
    message: 'one frame may not hold more than the whole decode budget (SIGHTLINE_DECODE_BUDGET_MB)',
    path: ['frameDecodeMb'],
  });

export type GatewayConfig = z.output<typeof configSchema>;

export const DEFAULT_CONFIG: GatewayConfig = {
  port: 8080,
  host: '127.0.0.1',
  // XDG's data home: where the gateway keeps what must outlive a run (the generated certificate).
  dataDir: join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'sightline'),
  auth: 'token',
  allowedOrigins: [],
  allowedHosts: [],
  maxConnectionsPerIp: 64,
  // The host name is the container or pod name in a deployment; the pid tells apart gateways on one machine.
  instance: `${hostname()}-${process.pid}`,
  trustProxy: [],
  modelsDir: `${repoRoot}models`,
  webDir: `${repoRoot}web/dist`,
  threads: Math.min(64, cpus),
  workers: Math.min(16, cpus),
  maxBatch: 1,
  maxInFlight: 2,
  queueLength: 2,
  maxPending: 64,
  queueBudgetMs: 25,
  decodeBudgetMb: 256,
  frameDecodeMb: 128,
  receiveBudgetMb: 128,
  maxBufferedBytes: 1024 * 1024,
  maxMessagesPerSecond: 200,
  jpegDecoder: 'turbo',
  heartbeatMs: 5000,
  drainTimeoutMs: 5000,
  maxMessageBytes: 10 * 1024 * 1024,
  maxPixels: 16_777_216,
  maxModelMb: 512,
  inferenceTimeoutMs: 2000,
  maxConnections: 256,
  logLevel: 'info',
};

/** Flag, environment variable and help text of each setting: the CLI is built from this, and --help lists it. */
const SETTINGS: Record<keyof GatewayConfig, { flags: string; env: string; help: string }> = {
  port: { flags: '-p, --port <n>', env: 'PORT', help: `port to listen on (default ${DEFAULT_CONFIG.port})` },
  host: {
    flags: '--host [addr]',
    env: 'HOST',
    help: 'address to bind; --host alone exposes the gateway on every address (default 127.0.0.1: this machine only)',
  },
  tls: {
    flags: '--tls <mode>',
    env: 'SIGHTLINE_TLS',
    help: 'HTTPS and WSS: auto (self-signed certificate, kept) or off (default: off on localhost, auto when exposed)',
  },
  tlsCert: { flags: '--tls-cert <file>', env: 'SIGHTLINE_TLS_CERT', help: 'your own certificate (PEM), with --tls-key' },
  tlsKey: { flags: '--tls-key <file>', env: 'SIGHTLINE_TLS_KEY', help: 'the key of --tls-cert (PEM)' },
  dataDir: {
    flags: '--data-dir <dir>',
    env: 'SIGHTLINE_DATA_DIR',
    help: 'where the generated certificate is kept (default ~/.local/share/sightline)',
  },
  token: { flags: '--token <token>', env: 'SIGHTLINE_TOKEN', help: 'access token (default: generated at start when exposed)' },
  auth: { flags: '--auth <mode>', env: 'SIGHTLINE_AUTH', help: 'token, or none to expose the gateway without a token (default token)' },
  allowedOrigins: {
    flags: '--allowed-origins <list>',
    env: 'SIGHTLINE_ALLOWED_ORIGINS',
    help: 'comma-separated origins whose pages may use the gateway besides its own',
  },
  allowedHosts: {
    flags: '--allowed-hosts <list>',
    env: 'SIGHTLINE_ALLOWED_HOSTS',
    help: "comma-separated host names to answer to besides the machine's own; * for any",
  },
  instance: {
    flags: '--instance <name>',
    env: 'SIGHTLINE_INSTANCE',
    help: 'name of this gateway in hello, /healthz, metrics and logs (default: host name and pid)',
  },
  maxConnectionsPerIp: {
    flags: '--max-connections-per-ip <n>',
    env: 'SIGHTLINE_MAX_CONNECTIONS_PER_IP',
    help: `WebSocket connections at once from one address (default ${DEFAULT_CONFIG.maxConnectionsPerIp})`,
  },
  metricsPort: {
    flags: '--metrics-port <n>',
    env: 'SIGHTLINE_METRICS_PORT',
    help: 'serve /metrics on this separate port without a token (default: on the main port, behind the token)',
  },
  trustProxy: {
    flags: '--trust-proxy <list>',
    env: 'SIGHTLINE_TRUST_PROXY',
    help: 'proxies whose X-Forwarded-For names the client (loopback, CIDRs)',
  },
  modelsDir: { flags: '--models-dir <dir>', env: 'SIGHTLINE_MODELS_DIR', help: 'folder of model manifests (default: models/)' },
  webDir: { flags: '--web-dir <dir>', env: 'SIGHTLINE_WEB_DIR', help: 'dashboard build to serve (default: web/dist/)' },
  defaultModel: {
    flags: '-m, --default-model <name>',
    env: 'SIGHTLINE_MODEL',
    help: 'model for frames that name none (default: the manifest marked default)',
  },
  scoreThreshold: {
    flags: '-t, --score-threshold <0..1>',
    env: 'SIGHTLINE_THRESHOLD',
    help: "score threshold for every model (default: each model's own)",
  },
  threads: {
    flags: '--threads <n>',
    env: 'SIGHTLINE_THREADS',
    help: "onnxruntime intra-op threads of a frame inferred alone (default: CPUs available, a container's CPU quota included)",
  },
  workers: {
    flags: '--workers <n>',
    env: 'SIGHTLINE_WORKERS',
    help: "frames inferred side by side once frames queue up, sharing the threads (default: CPUs available, a container's CPU quota included)",
  },
  maxBatch: {
    flags: '--max-batch <n>',
    env: 'SIGHTLINE_MAX_BATCH',
    help: `frames of one model run as one batch when they queue up, for models whose graph takes a batch (default ${DEFAULT_CONFIG.maxBatch}: every frame alone)`,
  },
  maxInFlight: {
    flags: '--max-in-flight <n>',
    env: 'SIGHTLINE_MAX_IN_FLIGHT',
    help: `frames processed at once per connection (default ${DEFAULT_CONFIG.maxInFlight})`,
  },
  queueLength: {
    flags: '--queue-length <n>',
    env: 'SIGHTLINE_QUEUE_LENGTH',
    help: `frames waiting per connection, newest wins (default ${DEFAULT_CONFIG.queueLength})`,
  },
  maxPending: {
    flags: '--max-pending <n>',
    env: 'SIGHTLINE_MAX_PENDING',
    help: `frames waiting across all connections (default ${DEFAULT_CONFIG.maxPending})`,
  },
  maxProcessing: {
    flags: '--max-processing <n>',
    env: 'SIGHTLINE_MAX_PROCESSING',
    help: 'frames processed at once across the gateway, decode to reply (default: workers + 1)',
  },
  queueBudgetMs: {
    flags: '--queue-budget-ms <ms>',
    env: 'SIGHTLINE_QUEUE_BUDGET_MS',
    help: `longest predicted wait a frame is accepted with; longer ones are answered overloaded at once, with retryAfterMs (default ${DEFAULT_CONFIG.queueBudgetMs})`,
  },
  decodeBudgetMb: {
    flags: '--decode-budget-mb <MiB>',
    env: 'SIGHTLINE_DECODE_BUDGET_MB',
    help: `MiB the decodes of the frames processed at once may hold; a costly frame waits for room (default ${DEFAULT_CONFIG.decodeBudgetMb})`,
  },
  receiveBudgetMb: {
    flags: '--receive-budget-mb <MiB>',
    env: 'SIGHTLINE_RECEIVE_BUDGET_MB',
    help: `MiB of messages and request bodies still arriving, across every connection; past it the gateway reads them later (TCP makes senders wait) (default ${DEFAULT_CONFIG.receiveBudgetMb})`,
  },
  frameDecodeMb: {
    flags: '--frame-decode-mb <MiB>',
    env: 'SIGHTLINE_FRAME_DECODE_MB',
    help: `MiB one frame's decode may hold, estimated from its header (a progressive or interlaced encoding holds far more than its pixels); more is too_large (default ${DEFAULT_CONFIG.frameDecodeMb})`,
  },
  maxBufferedBytes: {
    flags: '--max-buffered-bytes <n>',
    env: 'SIGHTLINE_MAX_BUFFERED_BYTES',
    help: 'per connection, bytes waiting to be sent before it is closed as a slow consumer (default 1 MiB)',
  },
  maxMessagesPerSecond: {
    flags: '--max-messages-per-second <n>',
    env: 'SIGHTLINE_MAX_MESSAGES_PER_SECOND',
    help: `per connection, messages per second before rate_limited (default ${DEFAULT_CONFIG.maxMessagesPerSecond})`,
  },
  jpegDecoder: {
    flags: '--jpeg-decoder <name>',
    env: 'SIGHTLINE_JPEG_DECODER',
    help: 'turbo: libjpeg-turbo in the inference workers, DCT-scaled (default); sharp: libvips for every frame',
  },
  heartbeatMs: {
    flags: '--heartbeat-ms <ms>',
    env: 'SIGHTLINE_HEARTBEAT_MS',
    help: `ping interval; a connection that misses a ping by the next is closed (default ${DEFAULT_CONFIG.heartbeatMs})`,
  },
  drainTimeoutMs: {
    flags: '--drain-timeout-ms <ms>',
    env: 'SIGHTLINE_DRAIN_TIMEOUT_MS',
    help: `on SIGTERM/SIGINT, longest the drain may take before the gateway exits (default ${DEFAULT_CONFIG.drainTimeoutMs})`,
  },
  maxMessageBytes: {
    flags: '--max-message-bytes <n>',
    env: 'SIGHTLINE_MAX_MESSAGE_BYTES',
    help: 'largest accepted message (default 10 MiB)',
  },
  maxPixels: {
    flags: '--max-pixels <n>',
    env: 'SIGHTLINE_MAX_PIXELS',
    help: 'largest accepted image, width x height (default 16 M = 4096 x 4096: a 12 MP phone photo passes)',
  },
  maxModelMb: {
    flags: '--max-model-mb <MiB>',
    env: 'SIGHTLINE_MAX_MODEL_MB',
    help: `model files larger than this are refused and reported (default ${DEFAULT_CONFIG.maxModelMb})`,
  },
  inferenceUrl: {
    flags: '--inference-url <url>',
    env: 'SIGHTLINE_INFERENCE_URL',
    help: 'run every model on this KServe v2 / Triton server (http://host:port) under its manifest name; the gateway still decodes, builds the tensor and decodes the outputs (default: its own workers)',
  },
  inferenceTimeoutMs: {
    flags: '--inference-timeout-ms <ms>',
    env: 'SIGHTLINE_INFERENCE_TIMEOUT_MS',
    help: `bound on one request to the inference engine; a frame it exceeds is answered unavailable (default ${DEFAULT_CONFIG.inferenceTimeoutMs})`,
  },
  maxConnections: {
    flags: '--max-connections <n>',
    env: 'SIGHTLINE_MAX_CONNECTIONS',
    help: `WebSocket connections at once (default ${DEFAULT_CONFIG.maxConnections})`,
  },
  logLevel: { flags: '--log-level <level>', env: 'LOG_LEVEL', help: `pino log level (default ${DEFAULT_CONFIG.logLevel})` },
};

export function gatewayCli(): Command {
  const program = new Command('sightline-gateway')
    .description('Sightline detection gateway: WebSocket and REST object detection over ONNX Runtime.')
    .allowExcessArguments(false);
  for (const { flags, env, help } of Object.values(SETTINGS)) program.addOption(new Option(flags, help).env(env));
  return program;
}

/**
 * Builds the configuration from defaults < environment < flags; throws with every invalid setting named.
 * `pnpm start -- --help` hands the script a literal `--` first: it is skipped rather than read as an argument.
 */
export function loadConfig(argv: readonly string[] = process.argv.slice(2)): GatewayConfig {
  const program = gatewayCli();
  program.parse(argv[0] === '--' ? argv.slice(1) : [...argv], { from: 'user' });
  const values: Partial<Record<keyof GatewayConfig, unknown>> = {};
  for (const [key, value] of Object.entries(program.opts())) {
    // An empty environment variable means "not set", as in most shells' configs.
    if (value === '' && program.getOptionValueSource(key) === 'env') continue;
    values[key as keyof GatewayConfig] = value;
  }
  return parseConfig(values);
}

export function parseConfig(overrides: Partial<Record<keyof GatewayConfig, unknown>>): GatewayConfig {
  const result = configSchema.safeParse({ ...DEFAULT_CONFIG, ...overrides });
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${SETTINGS[i.path[0] as keyof GatewayConfig]?.env ?? i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  return result.data;
}
