/**
 * Imported first by main.ts, so it runs before anything else loads: on an older Node the gateway would
 * fail later with an error that names a file extension or a missing API, not the cause. `pnpm start`
 * runs the Node 24 the workspace installs (the `node` package in node_modules/.bin); only starting the
 * gateway with another `node` by hand gets here.
 */
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `sightline gateway needs Node ${REQUIRED_MAJOR} or newer; this is Node ${process.versions.node}. Start it with \`pnpm start\` (which runs the Node ${REQUIRED_MAJOR} that \`pnpm install\` put in node_modules/.bin).`,
  );
  process.exit(1);
}
