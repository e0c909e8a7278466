/**
 * GPU decoding: whether a stream's ffmpeg decodes on NVDEC (through CUDA) or VAAPI, or in software. Chosen
 * once at start-up from `SIGHTLINE_VIDEO_HWACCEL` (`auto`, `none`, `cuda`, `vaapi`), the device nodes this
 * machine has and what the ffmpeg lists in `-hwaccels`; then the device is opened once by that ffmpeg
 * (`-init_hw_device`), under the same limits and environment as a decoder, so a driver that is missing or
 * refuses is found at start-up, not on a client's first frame. Whatever is not there falls back to software
 * with the reason logged.
 *
 * What a hardware choice changes on the command line: `-hwaccel cuda` or `-hwaccel vaapi -hwaccel_device
 * /dev/dri/renderD128` on the input, and nothing else. No `-hwaccel_output_format` on purpose: without it
 * ffmpeg copies each decoded picture from the GPU to system memory itself (`av_hwframe_transfer_data`, to NV12)
 * before the filters, so the filter chain (showinfo, the area scale, RGB) stays the software one; and a
 * stream the GPU cannot decode (VP8 on most AMD and recent Intel parts, a profile the GPU lacks) is decoded in
 * software by the same process. With `-hwaccel_output_format cuda|vaapi` and an explicit `hwdownload`, such a
 * stream's software frames would fail the `hwdownload` filter instead.
 *
 * Not run on a GPU: the machine this was written on has none. The selection, the device check's command and
 * the arguments are unit-tested (gateway/test/unit/video/hwaccel.test.ts).
 */

export const HWACCEL_SETTINGS = ['auto', 'none', 'cuda', 'vaapi'] as const;
export type HwaccelSetting = (typeof HWACCEL_SETTINGS)[number];
/** What decodes: the `hardware` label of `sightline_video_decoder_info`. */
export type Hardware = 'none' | 'cuda' | 'vaapi';

/** What the machine and the binary offer, gathered by hardwareFacts() (or written by a test). */
export interface HardwareFacts {
  /** NVIDIA GPUs' device nodes: /dev/nvidia0, /dev/nvidia1... */
  nvidiaDevices: readonly string[];
  /** DRM render nodes (VAAPI's devices): /dev/dri/renderD128... */
  renderNodes: readonly string[];
  /** The hardware accelerations the ffmpeg was built with (`ffmpeg -hwaccels`). */
  hwaccels: ReadonlySet<string>;
}

export interface HardwareCandidate {
  hardware: Exclude<Hardware, 'none'>;
  /** The device ffmpeg opens: CUDA's device index, VAAPI's render node. */
  device: string;
}

export interface HardwareChoice {
  hardware: Hardware;
  /** The device ffmpeg opens, when hardware is not `none`. */
  device?: string;
  /** Why this one, for the start-up log: one line. */
  reason: string;
  /** A hardware decoder was named (`cuda`, `vaapi`) and is not available: software instead, logged as a warning. */
  fellBack: boolean;
}

/** Why a kind of hardware cannot be used here, or its device when it can (before the device is opened). */
function candidateOf(hardware: HardwareCandidate['hardware'], facts: HardwareFacts): HardwareCandidate | string {
  if (hardware === 'cuda') {
    if (facts.nvidiaDevices.length === 0) return 'cuda: no NVIDIA device node (/dev/nvidia0)';
    if (!facts.hwaccels.has('cuda')) return 'cuda: this ffmpeg was built without it (not in -hwaccels)';
    // CUDA numbers the GPUs it can see from 0, whatever their nodes are called (CUDA_VISIBLE_DEVICES).
    return { hardware, device: '0' };
  }
  if (facts.renderNodes.length === 0) return 'vaapi: no render node (/dev/dri/renderD*)';
  if (!facts.hwaccels.has('vaapi')) return 'vaapi: this ffmpeg was built without it (not in -hwaccels)';
  return { hardware, device: [...facts.renderNodes].sort()[0]! };
}

/**
 * The hardware to try, in order, and why the others are out: `auto` is CUDA then VAAPI; a named one is only
 * that one; `none` is nothing. Pure: the facts are passed in.
 */
export function hardwareCandidates(setting: HwaccelSetting, facts: HardwareFacts): { candidates: HardwareCandidate[]; skipped: string[] } {
  const kinds: Array<HardwareCandidate['hardware']> = setting === 'auto' ? ['cuda', 'vaapi'] : setting === 'none' ? [] : [setting];
  const candidates: HardwareCandidate[] = [];
  const skipped: string[] = [];
  for (const kind of kinds) {
    const candidate = candidateOf(kind, facts);
    if (typeof candidate === 'string') skipped.push(candidate);
    else candidates.push(candidate);
  }
  return { candidates, skipped };
}

/**
 * Walks the candidates, opening each device with `openDevice` (which resolves to undefined when it opens, or
 * the reason it does not), and returns the first that opens, or software with every reason.
 */
export async function selectHardware(
  setting: HwaccelSetting,
  facts: HardwareFacts,
  openDevice: (candidate: HardwareCandidate) => Promise<string | undefined>,
): Promise<HardwareChoice> {
  if (setting === 'none') return { hardware: 'none', reason: 'software: SIGHTLINE_VIDEO_HWACCEL=none', fellBack: false };
  const { candidates, skipped } = hardwareCandidates(setting, facts);
  const reasons = [...skipped];
  for (const candidate of candidates) {
    const failure = await openDevice(candidate);
    if (failure === undefined) {
      const others = reasons.length > 0 ? ` (${reasons.join('; ')})` : '';
      return {
        hardware: candidate.hardware,
        device: candidate.device,
        reason: `${candidate.hardware} on ${candidate.device}${others}`,
        fellBack: false,
      };
    }
    reasons.push(`${candidate.hardware}: ${candidate.device} did not open (${failure})`);
  }
  return { hardware: 'none', reason: `software: ${reasons.join('; ')}`, fellBack: setting !== 'auto' };
}

/** The input options a choice adds, before `-i`: see the top of this file for why nothing more. */
export function hwaccelInputArgs(choice: Pick<HardwareChoice, 'hardware' | 'device'>): string[] {
  if (choice.hardware === 'none') return [];
  return ['-hwaccel', choice.hardware, ...(choice.device ? ['-hwaccel_device', choice.device] : [])];
}

/**
 * The command line that opens a candidate's device and runs one tiny frame through, nothing else: it fails
 * when the driver library is missing (libcuda.so.1, a VA driver), the node cannot be opened, or the address
 * space limit is too tight for the driver.
 */
export function openDeviceArgs(candidate: HardwareCandidate): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-init_hw_device',
    `${candidate.hardware}=gpu:${candidate.device}`,
    '-f',
    'lavfi',
    '-i',
    'nullsrc=s=64x64:d=0.04',
    '-frames:v',
    '1',
    '-f',
    'null',
    '-',
  ];
}

/** Parses `ffmpeg -hwaccels`: a heading line, then one name a line. */
export function parseHwaccelList(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = line.trim();
    if (/^[a-z0-9_]+$/.test(name)) names.add(name);
  }
  return names;
}

/** The device nodes of this machine (Linux); none elsewhere or when /dev cannot be read. */
export function deviceNodes(list: (dir: string) => string[]): Pick<HardwareFacts, 'nvidiaDevices' | 'renderNodes'> {
  const read = (dir: string) => {
    try {
      return list(dir);
    } catch {
      return [];
    }
  };
  return {
    nvidiaDevices: read('/dev')
      .filter((name) => /^nvidia\d+$/.test(name))
      .map((name) => `/dev/${name}`),
    renderNodes: read('/dev/dri')
      .filter((name) => /^renderD\d+$/.test(name))
      .map((name) => `/dev/dri/${name}`),
  };
}
