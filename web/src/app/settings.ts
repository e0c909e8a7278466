/**
 * What the person controls: the settings, and the one table that says for each its query parameter, its
 * label, the values it takes (one check for the address and storage alike), its default, whether it is kept
 * across visits and whether links carry it. The address (url-settings.ts), storage (settings-storage.ts) and
 * the READMEs' parameter tables (checked by test/unit/app/url-settings-docs.test.ts) all follow from it: a new
 * setting is one field of StreamSettings and one row of SETTINGS.
 */
import { DEFAULT_CAMERA } from '@sightline/shared/protocol';
import { DEFAULT_FRAME_SIZE, FRAME_SIZE_STEPS, type FrameSize } from '../capture/frame-size.ts';
import { RUN_ON_CHOICES, type RunOn } from '../frame-routes/run-on.ts';
import { THREAD_CHOICES, type ThreadsSetting } from '../inference/threads.ts';
import { LINK_CHOICES, runnableLink } from '../link/link-check.ts';
import { CAMERA_NAME_EXPECTS, isCameraName } from '../scene-rules/camera-name.ts';
import { BOX_MODES, type BoxMode } from '../tracking/box-mode.ts';
import { MAX_IN_FLIGHT, MIN_IN_FLIGHT } from '../transport/frame-sender.ts';
import { STREAM_CODECS, type StreamCodec } from '../transport/stream-codecs.ts';
import { TRANSPORTS, type Transport } from '../transport/transports.ts';
import { DEFAULT_VIDEO_BITRATE_KBPS, MAX_VIDEO_BITRATE_KBPS, MIN_VIDEO_BITRATE_KBPS } from '../video/video-bitrate.ts';
import { canonicalText, choiceOf, decimal, either, nameOf, onOff, percent, wholeNumber, type SettingValues } from './setting-values.ts';

export interface StreamSettings {
  /** A JPEG per frame in a wire codec (json, msgpack), or the camera as video (vp8, vp9, h264, av1). */
  codec: StreamCodec;
  /** Alternate the codec every `abEvery` frames. */
  abMode: boolean;
  abEvery: number;
  /** 1..8 frames sent and not yet answered. */
  maxInFlight: number;
  frameSize: FrameSize;
  /** JPEG quality 0..1. */
  jpegQuality: number;
  /** Model name; undefined until the model list is known (the gateway's default is used). */
  model: string | undefined;
  /** Minimum score 0..1 sent with every frame. */
  threshold: number;
  paused: boolean;
  /** Show the picture (and boxes) mirrored, like a mirror for a selfie camera. */
  mirror: boolean;
  /** Samples per codec the stats are computed over. */
  statsWindow: number;
  /** Where frames are computed: the gateway, this device, or both in turn. */
  runOn: RunOn;
  /** WASM threads of on-device inference (used when the page is cross-origin isolated). */
  deviceThreads: ThreadsSetting;
  /** Boxes drawn predicted to the frame on screen, or as the latest answer had them. */
  boxes: BoxMode;
  /** The WebSocket, or a WebRTC peer connection (a data channel for JPEG frames, a video track for video). */
  transport: Transport;
  /** Target bitrate of the video codecs, kbit/s. */
  videoBitrate: number;
  /** The emulated link the gateway's connection (socket, WebRTC peer) runs behind: a canonical spec, `none` for none. */
  link: string;
  /**
   * The camera the stream's frames belong to (`?camera=` on the WebSocket and on WHIP): its rules (lines, zones)
   * turn them into events, and the rules, counts and events shown are that camera's. CAMERA_NAME_PATTERN.
   */
  camera: string;
}

/** One setting: a row of the table. */
export interface Setting<T> {
  /** Its query parameter (`?codec=`). */
  param: string;
  /** Its control's name on the page. */
  label: string;
  /** The values it takes, in words: the READMEs' tables and the notice about a value it cannot take. */
  expects: string;
  /** The one check of a value, stored or from the address, and how the address reads and writes it. */
  values: SettingValues<T>;
  default: T;
  /** Kept in localStorage across visits. Source-specific ones (the model, its threshold, mirror, pause) are not. */
  persisted: boolean;
  /**
   * Written into Copy link and the address bar. The others the address sets for that page load only: `paused`
   * (a moment, not a choice) and `mirror` (it depends on the camera of whoever opens the link).
   */
  shared: boolean;
}

export const STATS_WINDOWS: readonly number[] = [100, 500, 2000, 10_000];

/** Frame sizes a setting may hold: "auto", "native", or a long side in px between these. */
const MIN_LONG_SIDE = 32;
const MAX_LONG_SIDE = FRAME_SIZE_STEPS[FRAME_SIZE_STEPS.length - 1]!;
const MAX_AB_EVERY = 1000;
const MAX_MODEL_NAME = 200;

/** Model names are folder names, kept as written (the gateway's list decides, once it is known). */
const isModelName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_MODEL_NAME;

/**
 * Every setting, in the order links write them. Typed per setting, so a setting without a row, or a row whose
 * values or default are not its setting's, does not compile.
 */
export const SETTINGS: { readonly [K in keyof StreamSettings]: Setting<StreamSettings[K]> } = {
  codec: {
    param: 'codec',
    label: 'Codec',
    expects: STREAM_CODECS.join(', '),
    values: choiceOf(STREAM_CODECS),
    default: 'msgpack',
    persisted: true,
    shared: true,
  },
  transport: {
    param: 'transport',
    label: 'Transport',
    expects: TRANSPORTS.join(' or '),
    values: choiceOf(TRANSPORTS),
    default: 'websocket',
    persisted: true,
    shared: true,
  },
  videoBitrate: {
    param: 'bitrate',
    label: 'Video bitrate',
    expects: `${MIN_VIDEO_BITRATE_KBPS} to ${MAX_VIDEO_BITRATE_KBPS} (kbit/s)`,
    values: wholeNumber(MIN_VIDEO_BITRATE_KBPS, MAX_VIDEO_BITRATE_KBPS),
    default: DEFAULT_VIDEO_BITRATE_KBPS,
    persisted: true,
    shared: true,
  },
  runOn: {
    param: 'run',
    label: 'Run on',
    expects: RUN_ON_CHOICES.join(', '),
    values: choiceOf(RUN_ON_CHOICES),
    default: 'gateway',
    persisted: true,
    shared: true,
  },
  model: {
    param: 'model',
    label: 'Model',
    expects: 'the name of a model the gateway serves',
    values: nameOf(isModelName),
    // None until the model list is known (the gateway's default is used).
    default: undefined,
    persisted: false,
    shared: true,
  },
  threshold: {
    param: 'threshold',
    label: 'Score threshold',
    expects: 'a score from 0 to 1',
    values: decimal(0, 1),
    default: 0.5,
    persisted: false,
    shared: true,
  },
  boxes: {
    param: 'boxes',
    label: 'Boxes',
    expects: BOX_MODES.join(' or '),
    values: choiceOf(BOX_MODES),
    default: 'predicted',
    persisted: true,
    shared: true,
  },
  abMode: { param: 'ab', label: 'A/B mode', expects: 'on or off', values: onOff, default: false, persisted: true, shared: true },
  abEvery: {
    param: 'ab-every',
    label: 'A/B mode: frames per codec',
    expects: `1 to ${MAX_AB_EVERY}`,
    values: wholeNumber(1, MAX_AB_EVERY),
    default: 30,
    persisted: true,
    shared: true,
  },
  maxInFlight: {
    param: 'in-flight',
    label: 'Frames in flight',
    expects: `${MIN_IN_FLIGHT} to ${MAX_IN_FLIGHT}`,
    values: wholeNumber(MIN_IN_FLIGHT, MAX_IN_FLIGHT),
    default: 1,
    persisted: true,
    shared: true,
  },
  frameSize: {
    param: 'size',
    label: 'Frame size (long side)',
    expects: `auto, native, or ${MIN_LONG_SIDE} to ${MAX_LONG_SIDE} (px)`,
    values: either(choiceOf(['auto', 'native'] as const), wholeNumber(MIN_LONG_SIDE, MAX_LONG_SIDE)),
    default: DEFAULT_FRAME_SIZE,
    persisted: true,
    shared: true,
  },
  jpegQuality: {
    param: 'quality',
    label: 'JPEG quality',
    expects: '10 to 100 (percent)',
    values: percent(10, 100),
    default: 0.8,
    persisted: true,
    shared: true,
  },
  deviceThreads: {
    param: 'threads',
    label: 'On-device threads',
    expects: THREAD_CHOICES.join(', '),
    values: choiceOf(THREAD_CHOICES),
    default: 'auto',
    persisted: true,
    shared: true,
  },
  statsWindow: {
    param: 'stats',
    label: 'Statistics window (codec comparison)',
    expects: `${STATS_WINDOWS.join(', ')} (samples)`,
    values: choiceOf(STATS_WINDOWS),
    default: 500,
    persisted: true,
    shared: true,
  },
  link: {
    param: 'link',
    label: 'Link',
    expects: `${LINK_CHOICES.map((preset) => preset.name).join(', ')}, or a spec such as bw=2mbit/10mbit,delay=40ms (loss only over WebRTC)`,
    // Loss too, which WebRTC runs (with the WebSocket chosen, the page runs the link without it and says so).
    values: canonicalText(runnableLink),
    default: 'none',
    persisted: true,
    shared: true,
  },
  camera: {
    param: 'camera',
    label: 'Camera',
    expects: CAMERA_NAME_EXPECTS,
    values: nameOf(isCameraName),
    default: DEFAULT_CAMERA,
    persisted: true,
    shared: true,
  },
  mirror: { param: 'mirror', label: 'Mirror view', expects: 'on or off', values: onOff, default: true, persisted: false, shared: false },
  paused: { param: 'paused', label: 'Pause', expects: 'on or off', values: onOff, default: false, persisted: false, shared: false },
};

/** A row of the table with its setting's name, types erased: what the address and storage go through. */
export type SettingRow = Setting<unknown> & { key: keyof StreamSettings };

/** The table's rows, in its order. */
export const SETTING_ROWS: readonly SettingRow[] = (Object.keys(SETTINGS) as (keyof StreamSettings)[]).map((key) => ({
  key,
  ...SETTINGS[key],
}));

export const DEFAULT_SETTINGS: StreamSettings = Object.fromEntries(
  SETTING_ROWS.map((row) => [row.key, row.default]),
) as unknown as StreamSettings;

/** Messages shown in the latency chart. */
export const CHART_WINDOW = 200;
