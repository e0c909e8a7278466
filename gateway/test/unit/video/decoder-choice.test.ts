/**
 * The choices made once at start-up, as pure functions: which ffmpeg is recent enough (the maintained minimum
 * for PATH, the pinned release for the bundled one), which GPU decodes (SIGHTLINE_VIDEO_HWACCEL against the
 * device nodes and `-hwaccels`, each device opened once), what that adds to the command line, and the limits
 * a decoder process starts under. No GPU here: the devices and their opening are given.
 */
import { describe, expect, it } from 'vitest';
import pinFile from '../../../scripts/fetch-ffmpeg.json' with { type: 'json' };
import {
  addressSpaceFor,
  confinedCommand,
  decoderEnvironment,
  describeConfinement,
  findConfinement,
} from '../../../src/video/decoder-limits.ts';
import { decoderArgs } from '../../../src/video/ffmpeg-args.ts';
import { BUNDLED_FFMPEG, belowMinimum, findOnPath, parseRelease, PATH_MINIMUM, versionLabel } from '../../../src/video/ffmpeg-binary.ts';
import {
  deviceNodes,
  hardwareCandidates,
  hwaccelInputArgs,
  openDeviceArgs,
  parseHwaccelList,
  selectHardware,
  type HardwareCandidate,
  type HardwareFacts,
} from '../../../src/video/hwaccel.ts';

const build = (version: string, avutil: [number, number]) => ({
  version,
  release: parseRelease(version),
  libavutil: { major: avutil[0], minor: avutil[1] },
});

describe('which ffmpeg is recent enough', () => {
  it('release numbers from the version strings builds print; none for a git build', () => {
    expect(parseRelease('5.1.9-0+deb12u1')).toEqual({ major: 5, minor: 1, patch: 9 });
    expect(parseRelease('n9.0.2-17-g2a571b6068-20260930')).toEqual({ major: 9, minor: 0, patch: 2 });
    expect(parseRelease('7.1')).toEqual({ major: 7, minor: 1, patch: 0 });
    expect(parseRelease('6.1.1-3ubuntu5')).toEqual({ major: 6, minor: 1, patch: 1 });
    expect(parseRelease('N-47683-g0e8eb07980-static')).toBeUndefined();
    expect(parseRelease('4.1.2.3')).toBeUndefined();
  });

  it('from PATH: 5.1 (Debian 12) and newer; 4.4 (Ubuntu 22.04) and the 2018 npm build refused, with the reason', () => {
    expect(belowMinimum(build('5.1.9-0+deb12u1', [57, 28]), PATH_MINIMUM)).toBeUndefined();
    expect(belowMinimum(build('7.1.1', [59, 39]), PATH_MINIMUM)).toBeUndefined();
    expect(belowMinimum(build('4.4.2-0ubuntu0.22.04.1', [56, 70]), PATH_MINIMUM)).toBe('FFmpeg 4.4.2-0ubuntu0.22.04.1 is older than 5.1');
    // @ffmpeg-installer's "4.1": a git snapshot of December 2018, judged by its libavutil.
    expect(belowMinimum(build('N-47683-g0e8eb07980-static', [56, 24]), PATH_MINIMUM)).toBe(
      "a git build (N-47683-g0e8eb07980-static) with libavutil 56.24, older than 5.1's 57.28",
    );
    expect(belowMinimum(build('N-118000-gabcdef', [60, 3]), PATH_MINIMUM)).toBeUndefined();
  });

  it('the bundled one must be the pinned release line (9.0) or newer: no roll-back, no git build', () => {
    expect(BUNDLED_FFMPEG).toMatchObject({ version: pinFile.ffmpeg, from: `imageio-ffmpeg ${pinFile.version}` });
    expect(BUNDLED_FFMPEG.minimum.release).toEqual({ major: 9, minor: 0 });
    expect(belowMinimum(build('n9.0.2-17-g2a571b6068-20260930', [61, 1]), BUNDLED_FFMPEG.minimum)).toBeUndefined();
    expect(belowMinimum(build('n8.1.3', [60, 8]), BUNDLED_FFMPEG.minimum)).toBe('FFmpeg n8.1.3 is older than 9.0');
    expect(belowMinimum(build('N-120000-gabc', [61, 9]), BUNDLED_FFMPEG.minimum)).toContain('is not a release');
  });

  it('the version label of the metrics: the release, or the git version', () => {
    expect(versionLabel(build('n9.0.2-17-g2a571b6068-20260930', [61, 1]))).toBe('9.0.2');
    expect(versionLabel(build('N-47683-g0e8eb07980-static', [56, 24]))).toBe('N-47683-g0e8eb07980-static');
  });

  it('ffmpeg on PATH is found by its full path (a decoder starts with an empty environment)', () => {
    expect(findOnPath('sh', `/nonexistent:/bin:/usr/bin`)).toMatch(/^\/(usr\/)?bin\/sh$/);
    expect(findOnPath('no-such-program-here', '/bin:/usr/bin')).toBeUndefined();
  });
});

describe('GPU decoding: the choice', () => {
  const none: HardwareFacts = { nvidiaDevices: [], renderNodes: [], hwaccels: new Set(['cuda', 'vaapi', 'qsv']) };
  const nvidia: HardwareFacts = { ...none, nvidiaDevices: ['/dev/nvidia0'] };
  const intel: HardwareFacts = { ...none, renderNodes: ['/dev/dri/renderD129', '/dev/dri/renderD128'] };
  const both: HardwareFacts = { ...nvidia, renderNodes: intel.renderNodes };
  const opens = async () => undefined;

  it('auto: CUDA where an NVIDIA device is and ffmpeg has cuda, else VAAPI on the first render node, else software with both reasons', async () => {
    expect(await selectHardware('auto', nvidia, opens)).toEqual({
      hardware: 'cuda',
      device: '0',
      reason: expect.stringContaining('cuda on 0'),
      fellBack: false,
    });
    expect(await selectHardware('auto', intel, opens)).toEqual({
      hardware: 'vaapi',
      device: '/dev/dri/renderD128',
      reason: 'vaapi on /dev/dri/renderD128 (cuda: no NVIDIA device node (/dev/nvidia0))',
      fellBack: false,
    });
    expect(await selectHardware('auto', both, opens)).toMatchObject({ hardware: 'cuda' });
    expect(await selectHardware('auto', none, opens)).toEqual({
      hardware: 'none',
      reason: 'software: cuda: no NVIDIA device node (/dev/nvidia0); vaapi: no render node (/dev/dri/renderD*)',
      fellBack: false,
    });
  });

  it('a device the binary was built without counts as absent', () => {
    const plain = { ...both, hwaccels: new Set<string>() };
    expect(hardwareCandidates('auto', plain)).toEqual({
      candidates: [],
      skipped: ['cuda: this ffmpeg was built without it (not in -hwaccels)', 'vaapi: this ffmpeg was built without it (not in -hwaccels)'],
    });
  });

  it('auto: a device that does not open is passed over for the next, with its reason', async () => {
    const tried: HardwareCandidate[] = [];
    const cudaFails = async (candidate: HardwareCandidate) => {
      tried.push(candidate);
      return candidate.hardware === 'cuda' ? 'Cannot load libcuda.so.1' : undefined;
    };
    expect(await selectHardware('auto', both, cudaFails)).toEqual({
      hardware: 'vaapi',
      device: '/dev/dri/renderD128',
      reason: 'vaapi on /dev/dri/renderD128 (cuda: 0 did not open (Cannot load libcuda.so.1))',
      fellBack: false,
    });
    expect(tried.map((c) => c.hardware)).toEqual(['cuda', 'vaapi']);
  });

  it('a named one that is not there, or does not open, falls back to software with fellBack (a warning); none is software', async () => {
    expect(await selectHardware('cuda', intel, opens)).toEqual({
      hardware: 'none',
      reason: 'software: cuda: no NVIDIA device node (/dev/nvidia0)',
      fellBack: true,
    });
    expect(await selectHardware('vaapi', intel, async () => 'No VA display found')).toEqual({
      hardware: 'none',
      reason: 'software: vaapi: /dev/dri/renderD128 did not open (No VA display found)',
      fellBack: true,
    });
    expect(await selectHardware('vaapi', both, opens)).toMatchObject({ hardware: 'vaapi', device: '/dev/dri/renderD128' });
    let asked = false;
    expect(
      await selectHardware('none', both, async () => {
        asked = true;
        return undefined;
      }),
    ).toEqual({ hardware: 'none', reason: 'software: SIGHTLINE_VIDEO_HWACCEL=none', fellBack: false });
    expect(asked).toBe(false);
  });

  it('device nodes: GPUs by number, render nodes only; nothing when /dev cannot be read', () => {
    const listing: Record<string, string[]> = {
      '/dev': ['nvidia0', 'nvidia1', 'nvidiactl', 'nvidia-uvm', 'null'],
      '/dev/dri': ['card0', 'renderD128'],
    };
    expect(deviceNodes((dir) => listing[dir] ?? [])).toEqual({
      nvidiaDevices: ['/dev/nvidia0', '/dev/nvidia1'],
      renderNodes: ['/dev/dri/renderD128'],
    });
    expect(
      deviceNodes(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual({ nvidiaDevices: [], renderNodes: [] });
  });

  it('`ffmpeg -hwaccels` as 9.0.2 prints it', () => {
    const text = 'Hardware acceleration methods:\ncuda\nvaapi\nqsv\ndrm\nopencl\nvulkan\namf\n\n';
    expect([...parseHwaccelList(text)]).toEqual(['cuda', 'vaapi', 'qsv', 'drm', 'opencl', 'vulkan', 'amf']);
  });
});

describe('GPU decoding: the command line (untested on a GPU)', () => {
  const base = { decoder: 'vp8', libavutil: { major: 61, minor: 1 }, output: { width: 300, height: 300 }, maxPixels: 40_000_000 };

  it('software adds nothing; CUDA and VAAPI add -hwaccel (and the device) before -c:v, the filters unchanged', () => {
    const software = decoderArgs(base);
    expect(software).not.toContain('-hwaccel');
    const cuda = decoderArgs({ ...base, hardware: { hardware: 'cuda', device: '0' } });
    const vaapi = decoderArgs({ ...base, hardware: { hardware: 'vaapi', device: '/dev/dri/renderD128' } });
    expect(hwaccelInputArgs({ hardware: 'cuda', device: '0' })).toEqual(['-hwaccel', 'cuda', '-hwaccel_device', '0']);
    expect(hwaccelInputArgs({ hardware: 'vaapi', device: '/dev/dri/renderD128' })).toEqual([
      '-hwaccel',
      'vaapi',
      '-hwaccel_device',
      '/dev/dri/renderD128',
    ]);
    for (const [args, kind] of [
      [cuda, 'cuda'],
      [vaapi, 'vaapi'],
    ] as const) {
      // Input options: before -c:v and -i, after -max_pixels; no -hwaccel_output_format, so no hwdownload needed.
      expect(args.indexOf('-hwaccel')).toBeGreaterThan(args.indexOf('-max_pixels'));
      expect(args.indexOf('-hwaccel')).toBeLessThan(args.indexOf('-c:v'));
      expect(args[args.indexOf('-hwaccel') + 1]).toBe(kind);
      expect(args).not.toContain('-hwaccel_output_format');
      expect(args[args.indexOf('-vf') + 1]).toBe(software[software.indexOf('-vf') + 1]);
      const at = args.indexOf('-hwaccel');
      expect([...args.slice(0, at), ...args.slice(at + 4)]).toEqual(software);
    }
  });

  it('the device check: open the device, one tiny frame, nothing written', () => {
    expect(openDeviceArgs({ hardware: 'vaapi', device: '/dev/dri/renderD128' }).join(' ')).toBe(
      '-hide_banner -nostdin -loglevel error -init_hw_device vaapi=gpu:/dev/dri/renderD128 -f lavfi -i nullsrc=s=64x64:d=0.04 -frames:v 1 -f null -',
    );
    expect(openDeviceArgs({ hardware: 'cuda', device: '0' })).toContain('cuda=gpu:0');
  });
});

describe('the limits a decoder process starts under', () => {
  it('prlimit where it is, else sh ulimit; none elsewhere than Linux', () => {
    expect(findConfinement('linux', (path) => path === '/usr/bin/prlimit')).toEqual({ via: 'prlimit', tool: '/usr/bin/prlimit' });
    expect(findConfinement('linux', (path) => path === '/bin/sh')).toEqual({ via: 'sh', shell: '/bin/sh' });
    expect(findConfinement('darwin', () => true)).toEqual({ via: 'none', reason: 'no address-space limit on darwin' });
  });

  it('512 MiB of address space, no core, no file; none of the address-space limit on CUDA', () => {
    expect(addressSpaceFor('none')).toBe(512 * 2 ** 20);
    expect(addressSpaceFor('vaapi')).toBe(512 * 2 ** 20);
    expect(addressSpaceFor('cuda')).toBeUndefined();
    const prlimit = { via: 'prlimit', tool: '/usr/bin/prlimit' } as const;
    expect(confinedCommand(prlimit, 536870912, '/x/ffmpeg', ['-i', 'pipe:0'])).toEqual({
      file: '/usr/bin/prlimit',
      args: ['--as=536870912', '--core=0', '--fsize=0', '--', '/x/ffmpeg', '-i', 'pipe:0'],
    });
    expect(confinedCommand(prlimit, undefined, '/x/ffmpeg', [])).toEqual({
      file: '/usr/bin/prlimit',
      args: ['--core=0', '--fsize=0', '--', '/x/ffmpeg'],
    });
    expect(confinedCommand({ via: 'sh', shell: '/bin/sh' }, 536870912, '/x/ffmpeg', ['-a'])).toEqual({
      file: '/bin/sh',
      args: ['-c', 'ulimit -v 524288 && ulimit -c 0 && ulimit -f 0 && exec "$0" "$@"', '/x/ffmpeg', '-a'],
    });
    expect(confinedCommand({ via: 'none', reason: '' }, 536870912, '/x/ffmpeg', ['-a'])).toEqual({ file: '/x/ffmpeg', args: ['-a'] });
    expect(describeConfinement(prlimit, 536870912)).toBe(
      'address space 512 MiB, no core dump, no file written, via /usr/bin/prlimit; empty environment',
    );
  });

  it('an empty environment in software; a GPU driver gets its own few variables, nothing of the gateway', () => {
    const env = { SIGHTLINE_TOKEN: 'secret-secret-secret', PATH: '/usr/bin', LD_LIBRARY_PATH: '/usr/lib/nvidia', LIBVA_DRIVER_NAME: 'iHD' };
    expect(decoderEnvironment('none', env)).toEqual({});
    expect(decoderEnvironment('cuda', env)).toEqual({ LD_LIBRARY_PATH: '/usr/lib/nvidia', LIBVA_DRIVER_NAME: 'iHD' });
  });
});
