/**
 * What a decoder process may use, wherever the gateway runs (under `pnpm start` as in the image): it parses
 * bytes any client sends, so it is started
 *
 * - with an **address-space limit** (512 MiB): a decoder driven to allocate without bound fails alone ("Cannot
 *   allocate memory": that stream's chunks are answered `decoder_exited` or `corrupt_chunk`, its next keyframe
 *   starts a new process) before the machine's memory runs out. Measured with FFmpeg 9.0.2 and the gateway's
 *   command line: 640x480 VP8 decodes from 240 MiB up (the 173 MB binary is mapped whole, its six threads
 *   reserve stacks), 4096x4096 VP8 (the default pixel cap's order) from 384 MiB, at 108 MB resident. CUDA
 *   reserves far more address space than that for itself, so a decoder on CUDA runs without this one limit
 *   (the others stay);
 * - with **no core dumps** (they would hold clients' pictures) and **no file written** (it writes to pipes only);
 * - with an **empty environment** (nothing of the gateway's: SIGHTLINE_TOKEN, TLS paths), except, for a GPU
 *   decoder, the few variables its driver reads (library path, visible devices, VA driver).
 *
 * The limits are set by util-linux's `prlimit`, which then executes ffmpeg in its own process (so the pid the
 * gateway watches is ffmpeg's), or by `/bin/sh`'s `ulimit` where prlimit is missing. Elsewhere than Linux,
 * no limit (logged at start-up). The image's `ffmpeg-limited.sh` sets the same limits again, and closes
 * inherited descriptors (docs/SECURITY.md, "Video decoding").
 */
import type { Hardware } from './hwaccel.ts';

export const DECODER_ADDRESS_SPACE_BYTES = 512 * 1024 * 1024;

export type Confinement = { via: 'prlimit'; tool: string } | { via: 'sh'; shell: string } | { via: 'none'; reason: string };

/** How limits can be set on this machine: prlimit, else sh's ulimit, else not at all. */
export function findConfinement(platform: NodeJS.Platform, exists: (path: string) => boolean): Confinement {
  if (platform !== 'linux') return { via: 'none', reason: `no address-space limit on ${platform}` };
  for (const tool of ['/usr/bin/prlimit', '/bin/prlimit']) if (exists(tool)) return { via: 'prlimit', tool };
  if (exists('/bin/sh')) return { via: 'sh', shell: '/bin/sh' };
  return { via: 'none', reason: 'neither prlimit nor /bin/sh found' };
}

/** The address-space limit a decoder on this hardware gets: none on CUDA (see the top of this file). */
export function addressSpaceFor(hardware: Hardware): number | undefined {
  return hardware === 'cuda' ? undefined : DECODER_ADDRESS_SPACE_BYTES;
}

/** The command that starts `file args` under the limits. */
export function confinedCommand(
  confinement: Confinement,
  addressSpaceBytes: number | undefined,
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  if (confinement.via === 'prlimit') {
    const as = addressSpaceBytes === undefined ? [] : [`--as=${addressSpaceBytes}`];
    return { file: confinement.tool, args: [...as, '--core=0', '--fsize=0', '--', file, ...args] };
  }
  if (confinement.via === 'sh') {
    // ulimit -v counts KiB. "$0" is the program, "$@" its arguments: nothing is interpolated into the script.
    const as = addressSpaceBytes === undefined ? '' : `ulimit -v ${Math.floor(addressSpaceBytes / 1024)} && `;
    return { file: confinement.shell, args: ['-c', `${as}ulimit -c 0 && ulimit -f 0 && exec "$0" "$@"`, file, ...args] };
  }
  return { file, args: [...args] };
}

/** The variables a GPU driver reads, passed on to a hardware decoder when the gateway has them. */
const DRIVER_VARIABLES = [
  'LD_LIBRARY_PATH',
  'CUDA_VISIBLE_DEVICES',
  'NVIDIA_VISIBLE_DEVICES',
  'NVIDIA_DRIVER_CAPABILITIES',
  'LIBVA_DRIVER_NAME',
  'LIBVA_DRIVERS_PATH',
];

/** The decoder's environment: empty in software; a GPU driver's few variables on hardware. */
export function decoderEnvironment(hardware: Hardware, env: NodeJS.ProcessEnv): Record<string, string> {
  if (hardware === 'none') return {};
  const picked: Record<string, string> = {};
  for (const name of DRIVER_VARIABLES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** For the start-up log: what the decoder processes run under. */
export function describeConfinement(confinement: Confinement, addressSpaceBytes: number | undefined): string {
  if (confinement.via === 'none') return confinement.reason;
  const as = addressSpaceBytes === undefined ? 'no address-space limit (CUDA)' : `address space ${addressSpaceBytes / 2 ** 20} MiB`;
  return `${as}, no core dump, no file written, via ${confinement.via === 'prlimit' ? confinement.tool : `${confinement.shell} ulimit`}; empty environment`;
}
