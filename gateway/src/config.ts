/**
 * Gateway configuration: defaults, overridden by environment variables, overridden by command-line flags.
 * Validated once at start so a typo fails loudly instead of running with a surprising value.
 *
 * Each setting is one row of SETTINGS; the schema, DEFAULT_CONFIG, the CLI and its --help, and the README's
 * table (`pnpm docs:settings`) are derived from the rows. Adding a setting is adding a row.
 */
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { z } from 'zod';
import { schemaShape, defaultValues, setting, settingsCli } from './config/setting.ts';
import { cpuBudget } from './cpu-budget.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The cores this process may run on, capped by a container's CPU quota: threads sized to the host would be throttled. */
const cpus = cpuBudget().cpus;
const CPUS_AVAILABLE = "CPUs available, a container's CPU quota included";

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
const port = z.coerce.number().int().min(0).max(65535);
/** "MIN-MAX", an inclusive UDP port range. */
const portRange = z
  .string()
  .regex(/^\s*\d{1,5}\s*-\s*\d{1,5}\s*$/, 'a range MIN-MAX, e.g. 40000-40099')
  .transform((text) => {
    const [min, max] = text.split('-').map((part) => Number(part.trim())) as [number, number];
    return { min, max };
  })
  .refine(({ min, max }) => min >= 1024 && max <= 65535 && min <= max, 'within 1024-65535, MIN at most MAX');
/** STUN/TURN servers: a JSON array of RTCIceServer objects, or comma-separated stun:/turn: URLs. */
const iceServers = z
  .string()
  .transform((text, ctx) => {
    const trimmed = text.trim();
    if (trimmed.startsWith('[')) {
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
        return z.NEVER;
      }
    }
    return trimmed
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean)
      .map((urls) => ({ urls }));
  })
  .or(z.array(z.unknown()))
  .pipe(
    z.array(
      z.strictObject({
        urls: z.union([z.string().regex(/^(stun|turns?):/, 'a stun: or turn: URL'), z.array(z.string().regex(/^(stun|turns?):/))]),
        username: z.string().optional(),
        credential: z.string().optional(),
      }),
    ),
  );
const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

/** Every setting, in the order --help and the README list them. */
export const SETTINGS = {
  port: setting({ schema: port, default: 8080, flag: '-p, --port <n>', env: 'PORT', help: 'port to listen on' }),
  host: setting({
    // `--host` alone means every address (Vite's convention).
    schema: z.union([z.literal(true).transform(() => '0.0.0.0'), z.string().min(1)]),
    default: '127.0.0.1',
    flag: '--host [addr]',
    env: 'HOST',
    help: 'address to listen on, this machine only by default; `--host` alone (or `HOST=0.0.0.0`) exposes the gateway on every address',
  }),
  tls: setting({
    schema: z.enum(['auto', 'off']).optional(),
    defaultText: 'off on localhost, `auto` when exposed',
    flag: '--tls <mode>',
    env: 'SIGHTLINE_TLS',
    help: '`auto`: HTTPS and WSS with a self-signed certificate kept in the data directory; `off`',
  }),
  tlsCert: setting({
    schema: z.string().min(1).optional(),
    flag: '--tls-cert <file>',
    env: 'SIGHTLINE_TLS_CERT',
    help: 'your own certificate (PEM), given with its key: both or neither',
  }),
  tlsKey: setting({
    schema: z.string().min(1).optional(),
    flag: '--tls-key <file>',
    env: 'SIGHTLINE_TLS_KEY',
    help: 'the key of your own certificate (PEM)',
  }),
  dataDir: setting({
    schema: z.string().min(1),
    // XDG's data home: where the gateway keeps what must outlive a run (the generated certificate).
    default: join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'sightline'),
    defaultText: '`$XDG_DATA_HOME/sightline`, else `~/.local/share/sightline`',
    flag: '--data-dir <dir>',
    env: 'SIGHTLINE_DATA_DIR',
    help: 'where the generated certificate is kept',
  }),
  token: setting({
    schema: z.string().min(16, 'at least 16 characters').optional(),
    defaultText: 'generated when exposed',
    flag: '--token <token>',
    env: 'SIGHTLINE_TOKEN',
    help: 'access token (at least 16 characters); browsers present it once (`?token=`) and get a cookie, programs send `Authorization: Bearer`',
  }),
  auth: setting({
    schema: z.enum(['token', 'none']),
    default: 'token',
    flag: '--auth <mode>',
    env: 'SIGHTLINE_AUTH',
    help: '`token`, or `none` to let anyone who reaches an exposed gateway use it (warned at start)',
  }),
  allowedOrigins: setting({
    schema: list,
    default: [],
    flag: '--allowed-origins <list>',
    env: 'SIGHTLINE_ALLOWED_ORIGINS',
    help: 'comma-separated origins whose pages may use the gateway (WebSocket and CORS) besides its own (see docs/SECURITY.md)',
  }),
  allowedHosts: setting({
    schema: list,
    default: [],
    flag: '--allowed-hosts <list>',
    env: 'SIGHTLINE_ALLOWED_HOSTS',
    help: "comma-separated host names the gateway answers to besides the machine's own; `*` turns the Host check off (see docs/SECURITY.md)",
  }),
  instance: setting({
    schema: z.string().min(1).max(100),
    // The host name is the container or pod name in a deployment; the pid tells apart gateways on one machine.
    default: `${hostname()}-${process.pid}`,
    defaultText: 'host name and pid',
    flag: '--instance <name>',
    env: 'SIGHTLINE_INSTANCE',
    help: "this gateway's name in `hello`, `/healthz`, metrics (`gateway_instance` label) and every log line: which replica served a client",
  }),
  maxConnectionsPerIp: setting({
    schema: integer(1),
    default: 64,
    flag: '--max-connections-per-ip <n>',
    env: 'SIGHTLINE_MAX_CONNECTIONS_PER_IP',
    help: 'WebSocket connections at once from one client address',
  }),
  metricsPort: setting({
    schema: port.optional(),
    defaultText: 'the main port, behind the token',
    flag: '--metrics-port <n>',
    env: 'SIGHTLINE_METRICS_PORT',
    help: 'serve `/metrics` on this port of its own (plain HTTP, no token)',
  }),
  trustProxy: setting({
    schema: list,
    default: [],
    flag: '--trust-proxy <list>',
    env: 'SIGHTLINE_TRUST_PROXY',
    help: 'comma-separated proxies whose `X-Forwarded-For` names the client (proxy-addr syntax: `loopback`, CIDRs)',
  }),
  defaultModel: setting({
    schema: z.string().optional(),
    defaultText: 'the manifest marked default',
    flag: '-m, --default-model <name>',
    env: 'SIGHTLINE_MODEL',
    help: 'model for frames that name none',
  }),
  scoreThreshold: setting({
    schema: z.coerce.number().min(0).max(1).optional(),
    defaultText: "each model's own",
    flag: '-t, --score-threshold <0..1>',
    env: 'SIGHTLINE_THRESHOLD',
    help: 'score threshold for every model',
  }),
  threads: setting({
    schema: integer(1, 64),
    default: Math.min(64, cpus),
    defaultText: CPUS_AVAILABLE,
    flag: '--threads <n>',
    env: 'SIGHTLINE_THREADS',
    help: 'onnxruntime intra-op threads of a frame inferred alone',
  }),
  workers: setting({
    schema: integer(1, 16),
    default: Math.min(16, cpus),
    defaultText: CPUS_AVAILABLE,
    flag: '--workers <n>',
    env: 'SIGHTLINE_WORKERS',
    help: 'inference workers, the places frames are processed on (decode to boxes): a frame alone gets every thread, frames that start together run side by side on an equal share each',
  }),
  maxBatch: setting({
    schema: integer(1, 64),
    default: 1,
    flag: '--max-batch <n>',
    env: 'SIGHTLINE_MAX_BATCH',
    help: 'frames of one model that start together run as one batch, up to this many, where the graph takes a batch dimension (1: every frame alone)',
  }),
  inferenceUrl: setting({
    schema: z.string().url().optional(),
    defaultText: "the gateway's own workers",
    flag: '--inference-url <url>',
    env: 'SIGHTLINE_INFERENCE_URL',
    help: 'run every model, under its manifest name, on this KServe v2 / Triton server (`http://host:port`); the gateway still decodes, builds the tensor and reads the outputs (see docs/DEPLOY.md)',
  }),
  inferenceTimeoutMs: setting({
    schema: integer(10, 600_000),
    default: 2000,
    flag: '--inference-timeout-ms <ms>',
    env: 'SIGHTLINE_INFERENCE_TIMEOUT_MS',
    help: 'bound on one request to the inference server; past it the frame is answered `unavailable`',
  }),
  inferenceStallMs: setting({
    schema: integer(100, 3_600_000),
    default: 10_000,
    flag: '--inference-stall-ms <ms>',
    env: 'SIGHTLINE_INFERENCE_STALL_MS',
    help: "a run that has not returned this long after it reached its worker has stalled: its frames are answered `unavailable` and a new worker takes the stalled one's place",
  }),
  jpegDecoder: setting({
    schema: z.enum(['turbo', 'sharp']),
    default: 'turbo',
    flag: '--jpeg-decoder <name>',
    env: 'SIGHTLINE_JPEG_DECODER',
    help: "`turbo`: libjpeg-turbo in the inference workers, DCT-scaled where the model's input allows; `sharp`: libvips for every frame (for A/B runs)",
  }),
  maxInFlight: setting({
    schema: integer(1, 64),
    default: 2,
    flag: '--max-in-flight <n>',
    env: 'SIGHTLINE_MAX_IN_FLIGHT',
    help: 'frames processed at once per connection',
  }),
  queueLength: setting({
    schema: integer(0, 64),
    default: 2,
    flag: '--queue-length <n>',
    env: 'SIGHTLINE_QUEUE_LENGTH',
    help: 'frames waiting per connection beyond those; the newest wins, pushed-out frames are answered `dropped` (0: dropped at once when busy)',
  }),
  maxWaiting: setting({
    schema: integer(1, 10_000),
    default: 64,
    flag: '--max-waiting <n>',
    env: 'SIGHTLINE_MAX_WAITING',
    help: 'frames waiting across all connections before new ones are answered `dropped` / `overloaded`, with `retryAfterMs`',
  }),
  queueBudgetMs: setting({
    schema: integer(0, 60_000),
    default: 10,
    flag: '--queue-budget-ms <ms>',
    env: 'SIGHTLINE_QUEUE_BUDGET_MS',
    help: "longest an open-loop or pipelining frame waits for a place, and is predicted to on receipt, before it is answered `dropped` / `overloaded` with `retryAfterMs`; never less than one place interval (the service time over the workers). A stop-and-wait client's only frame is always queued and never dropped for lateness",
  }),
  decodeBudgetMb: setting({
    schema: integer(1, 65_536),
    default: 256,
    flag: '--decode-budget-mb <MiB>',
    env: 'SIGHTLINE_DECODE_BUDGET_MB',
    help: 'MiB the frames decoded at once may hold (each priced from its encoding before decoding); a frame waits for room',
  }),
  frameDecodeMb: setting({
    schema: integer(1, 65_536),
    default: 128,
    flag: '--frame-decode-mb <MiB>',
    env: 'SIGHTLINE_FRAME_DECODE_MB',
    help: "MiB one frame's decode may hold, estimated from its header (a progressive or interlaced encoding holds far more than its pixels); more is `too_large` on receipt. At most the decode budget",
  }),
  receiveBudgetMb: setting({
    schema: integer(1, 65_536),
    default: 128,
    flag: '--receive-budget-mb <MiB>',
    env: 'SIGHTLINE_RECEIVE_BUDGET_MB',
    help: 'MiB of messages and request bodies still arriving, across connections; past it the gateway stops reading their sockets until bytes are released (TCP makes senders wait)',
  }),
  maxMessagesPerSecond: setting({
    schema: integer(1),
    default: 200,
    flag: '--max-messages-per-second <n>',
    env: 'SIGHTLINE_MAX_MESSAGES_PER_SECOND',
    help: 'per connection; above it `rate_limited`, persisting closes the connection (1008)',
  }),
  maxBufferedBytes: setting({
    schema: integer(1024),
    default: 1024 * 1024,
    flag: '--max-buffered-bytes <n>',
    env: 'SIGHTLINE_MAX_BUFFERED_BYTES',
    help: 'per connection, bytes waiting to be sent (answers, pongs) before it is closed as a slow consumer (4002)',
  }),
  heartbeatMs: setting({
    schema: integer(100, 600_000),
    default: 5000,
    flag: '--heartbeat-ms <ms>',
    env: 'SIGHTLINE_HEARTBEAT_MS',
    help: 'ping interval; a connection that neither answers a ping nor sends a byte by the next is closed (4002)',
  }),
  drainTimeoutMs: setting({
    schema: integer(0, 600_000),
    default: 5000,
    flag: '--drain-timeout-ms <ms>',
    env: 'SIGHTLINE_DRAIN_TIMEOUT_MS',
    help: 'on SIGTERM/SIGINT: answer what is in flight, close every connection (1001), exit 0 within this',
  }),
  maxMessageBytes: setting({
    schema: integer(1024),
    default: 10 * 1024 * 1024,
    flag: '--max-message-bytes <n>',
    env: 'SIGHTLINE_MAX_MESSAGE_BYTES',
    help: 'largest message or request body (a WebSocket message up to 1 MiB over it is answered `too_large`; more closes with 1009)',
  }),
  maxPixels: setting({
    schema: integer(1),
    default: 16_777_216,
    flag: '--max-pixels <n>',
    env: 'SIGHTLINE_MAX_PIXELS',
    help: 'largest image (width x height, 4096²: a 12 MP phone photo and a 16 MP sensor pass), checked from the header on receipt',
  }),
  maxModelMb: setting({
    schema: integer(1),
    default: 512,
    flag: '--max-model-mb <MiB>',
    env: 'SIGHTLINE_MAX_MODEL_MB',
    help: 'model files larger than this are not loaded, and reported in `/api/models`',
  }),
  maxConnections: setting({
    schema: integer(1),
    default: 256,
    flag: '--max-connections <n>',
    env: 'SIGHTLINE_MAX_CONNECTIONS',
    help: 'WebSocket connections at once',
  }),
  maxVideoStreams: setting({
    schema: integer(0, 1024),
    default: 8,
    flag: '--max-video-streams <n>',
    env: 'SIGHTLINE_MAX_VIDEO_STREAMS',
    help: 'video streams decoded at once (one ffmpeg process each, about 15 MB); past it a keyframe is answered `dropped` / `overloaded`; 0 turns video off',
  }),
  ffmpeg: setting({
    schema: z.string().min(1).optional(),
    defaultText: 'FFmpeg 9.0.2 as `pnpm install` fetches it (gateway/.ffmpeg), else `ffmpeg` on `PATH` if 5.1 or newer',
    flag: '--ffmpeg <path>',
    env: 'SIGHTLINE_FFMPEG',
    help: 'the ffmpeg that decodes video streams (VP8, VP9, H.264)',
  }),
  videoHwaccel: setting({
    schema: z.enum(['auto', 'none', 'cuda', 'vaapi']),
    default: 'auto',
    flag: '--video-hwaccel <kind>',
    env: 'SIGHTLINE_VIDEO_HWACCEL',
    help: 'GPU video decoding: `auto` takes CUDA (NVDEC) where an NVIDIA device is, else VAAPI where a render node is, else software; `cuda` or `vaapi` that cannot be used falls back to software with a warning; `none`',
  }),
  webrtcMaxPeers: setting({
    schema: integer(0, 1024),
    default: 16,
    flag: '--webrtc-max-peers <n>',
    env: 'SIGHTLINE_WEBRTC_MAX_PEERS',
    help: 'WebRTC peers (WHIP sessions) at once; 0 turns WHIP off',
  }),
  webrtcPorts: setting({
    schema: portRange.optional(),
    defaultText: 'any the system gives',
    flag: '--webrtc-ports <min-max>',
    env: 'SIGHTLINE_WEBRTC_PORTS',
    help: 'the UDP ports WebRTC peers use, e.g. `40000-40099`, for a firewall, a container or a Kubernetes Service to expose',
  }),
  webrtcIceServers: setting({
    schema: iceServers,
    default: [],
    defaultText: 'none: host candidates only',
    flag: '--webrtc-ice-servers <list>',
    env: 'SIGHTLINE_WEBRTC_ICE_SERVERS',
    help: 'STUN/TURN servers for peers behind NAT: comma-separated `stun:`/`turn:` URLs, or a JSON array of RTCIceServer objects (TURN with `username`, `credential`); also sent to WHIP clients in `Link` headers',
  }),
  modelsDir: setting({
    schema: z.string().min(1),
    default: `${repoRoot}models`,
    defaultText: '`models/`',
    flag: '--models-dir <dir>',
    env: 'SIGHTLINE_MODELS_DIR',
    help: 'where the models live; the folder is watched (and re-read on SIGHUP)',
  }),
  webDir: setting({
    schema: z.string().min(1),
    default: `${repoRoot}web/dist`,
    defaultText: '`web/dist/`',
    flag: '--web-dir <dir>',
    env: 'SIGHTLINE_WEB_DIR',
    help: 'the dashboard build to serve',
  }),
  eventsMaxAgeDays: setting({
    schema: integer(1, 36_500),
    default: 30,
    flag: '--events-max-age-days <days>',
    env: 'SIGHTLINE_EVENTS_MAX_AGE_DAYS',
    help: 'events older than this are removed from the history (`<data dir>/events.sqlite`)',
  }),
  eventsMaxRows: setting({
    schema: integer(100, 1_000_000_000),
    default: 1_000_000,
    flag: '--events-max-rows <n>',
    env: 'SIGHTLINE_EVENTS_MAX_ROWS',
    help: 'events kept in the history at most (about 500 bytes each); past it the oldest are removed',
  }),
  eventsBacklogMax: setting({
    schema: integer(1, 1_000_000_000),
    default: 100_000,
    flag: '--events-backlog-max <n>',
    env: 'SIGHTLINE_EVENTS_BACKLOG_MAX',
    help: 'events waiting for one sink (MQTT, webhook) at most while it is unreachable; past it the oldest are dropped for that sink (logged, counted)',
  }),
  mqttUrl: setting({
    schema: z
      .string()
      .url()
      .refine((url) => /^(mqtts?|wss?):\/\//.test(url), 'an mqtt://, mqtts://, ws:// or wss:// URL')
      .optional(),
    defaultText: 'off',
    flag: '--mqtt-url <url>',
    env: 'SIGHTLINE_MQTT_URL',
    help: 'publish events and counts to this MQTT broker (`mqtt://user:password@broker:1883`, `mqtts://` for TLS); the gateway serves frames while it is unreachable, and delivers what it missed when it is back',
  }),
  mqttTopicPrefix: setting({
    schema: z
      .string()
      .min(1)
      .max(100)
      .refine((prefix) => !/[#+]/.test(prefix) && !prefix.includes('\u0000'), 'no `#`, `+` or NUL')
      .refine((prefix) => !prefix.startsWith('/') && !prefix.endsWith('/'), 'no `/` at either end'),
    default: 'sightline',
    flag: '--mqtt-topic-prefix <prefix>',
    env: 'SIGHTLINE_MQTT_TOPIC_PREFIX',
    help: 'topics are `<prefix>/<camera>/events` (QoS 1), `<prefix>/<camera>/counts/<rule>` (retained), `<prefix>/<instance>/availability` (retained, last will `offline`)',
  }),
  mqttUsername: setting({
    schema: z.string().min(1).optional(),
    defaultText: "the URL's",
    flag: '--mqtt-username <name>',
    env: 'SIGHTLINE_MQTT_USERNAME',
    help: 'MQTT user name',
  }),
  mqttPassword: setting({
    schema: z.string().min(1).optional(),
    defaultText: "the URL's",
    flag: '--mqtt-password <password>',
    env: 'SIGHTLINE_MQTT_PASSWORD',
    help: 'MQTT password',
  }),
  mqttCa: setting({
    schema: z.string().min(1).optional(),
    defaultText: "the system's",
    flag: '--mqtt-ca <file>',
    env: 'SIGHTLINE_MQTT_CA',
    help: "the CA certificate (PEM) that signed an `mqtts://` broker's certificate",
  }),
  mqttDiscovery: setting({
    // A flag given alone is `true`; a variable says on/off, true/false, 1/0.
    schema: z
      .union([z.boolean(), z.enum(['on', 'off', 'true', 'false', '1', '0'], { error: 'on or off' })])
      .transform((value) => value === true || value === 'on' || value === 'true' || value === '1'),
    default: false,
    defaultText: 'off',
    flag: '--mqtt-discovery [on|off]',
    env: 'SIGHTLINE_MQTT_DISCOVERY',
    help: "announce each rule's counts to Home Assistant (MQTT discovery): one sensor per rule and direction, grouped in a device per camera",
  }),
  mqttDiscoveryPrefix: setting({
    schema: z
      .string()
      .min(1)
      .max(100)
      .refine((prefix) => !/[#+]/.test(prefix) && !prefix.includes('\u0000'), 'no `#`, `+` or NUL'),
    default: 'homeassistant',
    flag: '--mqtt-discovery-prefix <prefix>',
    env: 'SIGHTLINE_MQTT_DISCOVERY_PREFIX',
    help: "Home Assistant's discovery prefix",
  }),
  webhookUrl: setting({
    schema: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//.test(url), 'an http:// or https:// URL')
      .optional(),
    defaultText: 'off',
    flag: '--webhook-url <url>',
    env: 'SIGHTLINE_WEBHOOK_URL',
    help: 'POST every event here as JSON, one per request, in order; anything but a 2xx answer (or none within the timeout) is retried with backoff',
  }),
  webhookSecret: setting({
    schema: z.string().min(1).optional(),
    defaultText: 'none: unsigned',
    flag: '--webhook-secret <secret>',
    env: 'SIGHTLINE_WEBHOOK_SECRET',
    help: 'signs each webhook request: `X-Sightline-Signature: sha256=<hex HMAC-SHA256 of the body>`',
  }),
  webhookTimeoutMs: setting({
    schema: integer(100, 600_000),
    default: 5000,
    flag: '--webhook-timeout-ms <ms>',
    env: 'SIGHTLINE_WEBHOOK_TIMEOUT_MS',
    help: 'a webhook request not answered within this is retried',
  }),
  logLevel: setting({
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    flag: '--log-level <level>',
    env: 'LOG_LEVEL',
    help: 'pino level (`fatal` ... `trace`, `silent`); logs are JSON lines (pipe through `pnpm exec pino-pretty` to read)',
  }),
};

const configSchema = z
  .object(schemaShape(SETTINGS))
  .refine((config) => Boolean(config.tlsCert) === Boolean(config.tlsKey), {
    message: 'give both the certificate and its key, or neither',
    path: ['tlsCert'],
  })
  .refine((config) => config.frameDecodeMb <= config.decodeBudgetMb, {
    message: `one frame may not hold more than the whole decode budget (${SETTINGS.decodeBudgetMb.env})`,
    path: ['frameDecodeMb'],
  });

export type GatewayConfig = z.output<typeof configSchema>;

export const DEFAULT_CONFIG = defaultValues(SETTINGS) as GatewayConfig;

export function gatewayCli(): Command {
  return settingsCli('sightline-gateway', 'Sightline detection gateway: WebSocket and REST object detection over ONNX Runtime.', SETTINGS);
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
