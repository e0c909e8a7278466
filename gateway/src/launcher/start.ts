/**
 * The launcher behind `pnpm start`, `pnpm dev` and the gateway's own `start` and `dev`: runs the gateway so
 * that stopping `pnpm start` stops the gateway, and on the allocator the image uses where the system has it.
 *
 * pnpm runs a script through `sh -c`, and `node` in a script is node_modules/.bin/node, a shell script
 * that runs the real binary as its child: neither shell passes a signal on, so a SIGTERM to `pnpm start`
 * used to end pnpm and a shell and leave the gateway running, orphaned, on its port. The scripts `exec`
 * the workspace's node binary on this file instead, so this process is pnpm's own child and receives what
 * pnpm passes on (SIGTERM, SIGINT); the gateway is this process's child (gateway-child.ts says how stop
 * requests reach it), and how it ends is how this process ends (child-exit.ts), hence `pnpm start`.
 *
 *   node src/launcher/start.ts [--web-build | --web-dev] [--dev] [gateway options...]
 *
 * --web-build  first `pnpm --filter @sightline/web build` (skipped with SIGHTLINE_SKIP_WEB_BUILD=1)
 * --web-dev    Vite's dev server (`pnpm --filter @sightline/web dev`) alongside, stopped with the gateway
 * --dev        the gateway under `node --watch` (restarted when its sources change), accepting the Vite
 *              dev server's pages (--allowed-origins)
 * Anything after the launcher's own options is the gateway's (`pnpm start --port 9000`).
 */
import { fileURLToPath } from 'node:url';
import { allocatorSetup, type AllocatorSetup } from './allocator.ts';
import { exitAs } from './child-exit.ts';
import { runGateway } from './gateway-child.ts';
import { onStopRequests } from './stop-causes.ts';
import { SKIP_BUILD_ENV, skipBuildRequested, startWebScript } from './web-script.ts';

const GATEWAY_DIR = fileURLToPath(new URL('../../', import.meta.url));
const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** As the image sets it: V8 sizes its young generation from the host's RAM otherwise (64 MB semi-spaces on 24 GB). */
const NODE_OPTIONS = '--max-semi-space-size=16';
/** Vite's dev server, over HTTP or with the gateway's certificate (web/vite.config.ts). */
const DEV_ORIGINS = ['--allowed-origins', 'http://localhost:5173,https://localhost:5173'];
const OWN_OPTIONS = ['--web-build', '--web-dev', '--dev'];

const say = (line: string) => process.stderr.write(`sightline launcher: ${line}\n`);
// After a terminal hang-up writing to it fails; the launcher must outlive that until the gateway has drained.
process.stderr.on('error', () => {});

const args = process.argv.slice(2);
const own = new Set<string>();
while (args[0] !== undefined && OWN_OPTIONS.includes(args[0])) own.add(args.shift()!);

if (own.has('--web-build')) {
  if (skipBuildRequested(process.env)) say(`${SKIP_BUILD_ENV} is set: serving the dashboard build already in web/dist/`);
  else {
    const build = startWebScript('build', WORKSPACE_ROOT);
    let stoppedBy: NodeJS.Signals | undefined;
    const stopListening = onStopRequests((cause) => {
      stoppedBy ??= cause === 'parent-gone' ? 'SIGTERM' : cause;
      build.stop();
    });
    const exit = await build.exited;
    stopListening();
    // Stopped while building: the gateway is not started, and `pnpm start` ends as the signal asked.
    if (stoppedBy) exitAs({ code: null, signal: stoppedBy });
    if (exit.code !== 0) exitAs(exit);
  }
}

function chooseAllocator(): AllocatorSetup {
  try {
    return allocatorSetup();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
}
const allocator = chooseAllocator();
say(`gateway on Node ${process.versions.node}, allocator: ${allocator.summary}`);

const web = own.has('--web-dev') ? startWebScript('dev', WORKSPACE_ROOT) : undefined;
const exit = await runGateway({
  cwd: GATEWAY_DIR,
  nodeFlags: own.has('--dev') ? ['--watch'] : [],
  args: own.has('--dev') ? [...DEV_ORIGINS, ...args] : args,
  env: { ...process.env, ...allocator.env, NODE_OPTIONS: [NODE_OPTIONS, process.env.NODE_OPTIONS].filter(Boolean).join(' ') },
  say,
});
if (web) {
  web.stop();
  await web.exited;
}
exitAs(exit);
