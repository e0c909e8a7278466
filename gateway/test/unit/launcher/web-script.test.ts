import { describe, expect, it } from 'vitest';
import { pnpmCommand, skipBuildRequested } from '../../../src/launcher/web-script.ts';

describe('the dashboard scripts the launcher runs', () => {
  it('runs them with the pnpm that runs the launcher: its JavaScript on its node, or the standalone executable', () => {
    expect(pnpmCommand({ npm_execpath: '/usr/lib/node_modules/pnpm/bin/pnpm.cjs', npm_node_execpath: '/usr/bin/node' })).toEqual({
      command: '/usr/bin/node',
      prefix: ['/usr/lib/node_modules/pnpm/bin/pnpm.cjs'],
    });
    expect(pnpmCommand({ npm_execpath: '/home/u/.local/share/pnpm/pnpm' })).toEqual({
      command: '/home/u/.local/share/pnpm/pnpm',
      prefix: [],
    });
    // Started by npm, or by hand: the pnpm on the PATH.
    expect(pnpmCommand({ npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' })).toEqual({ command: 'pnpm', prefix: [] });
    expect(pnpmCommand({})).toEqual({ command: 'pnpm', prefix: [] });
  });

  it('skips the build when SIGHTLINE_SKIP_WEB_BUILD is set to anything but 0 or empty', () => {
    expect(skipBuildRequested({ SIGHTLINE_SKIP_WEB_BUILD: '1' })).toBe(true);
    expect(skipBuildRequested({ SIGHTLINE_SKIP_WEB_BUILD: 'yes' })).toBe(true);
    expect(skipBuildRequested({ SIGHTLINE_SKIP_WEB_BUILD: '0' })).toBe(false);
    expect(skipBuildRequested({ SIGHTLINE_SKIP_WEB_BUILD: '' })).toBe(false);
    expect(skipBuildRequested({})).toBe(false);
  });
});
