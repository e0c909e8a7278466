// Which module may import which, for the whole workspace: `pnpm lint` runs it (`depcruise`), as `pnpm test` does.
// Reaching into another package's src/ by a relative path is ESLint's `no-restricted-imports` (eslint.config.js).
//
// Known violations are listed in .dependency-cruiser-known-violations.json (`pnpm lint:deps:baseline` rebuilds
// it from whatever fails now: run it only to record a violation on purpose, with the reason here). None today.

/**
 * The gateway's layers, lowest first. A module imports from its own layer and the layers below it, never from
 * one above: the lower a folder, the less it knows about how frames arrive and leave. A new folder (or file
 * directly in gateway/src) goes into the list where it belongs; until then `gateway-module-in-a-layer` fails.
 */
const GATEWAY_LAYERS = [
  // What every layer may use: settings, logging, metrics, the process's life, CPU budget and memory.
  {
    name: 'base',
    holds: ['config.ts', 'config', 'cpu-budget.ts', 'lifecycle.ts', 'logger.ts', 'logging', 'memory', 'metrics.ts', 'runtime-check.ts'],
  },
  // Reading a frame's bytes (images; video streams, one ffmpeg process each); reading model folders (specs, manifests,
  // zero-config inference, sync); RTP to encoded frames, the WebRTC stack (peers, offers) and a connection's
  // emulated link, which know nothing of frames' detection.
  { name: 'decode-models', holds: ['decode', 'video', 'models', 'rtp', 'webrtc', 'link'] },
  // Serving engines a model can run on (KServe v2 client, remote runner, circuit breaker, monitor).
  { name: 'engines', holds: ['engines'] },
  // The workers that run models (may use decode, engines, models): the executor of the one queue.
  { name: 'inference', holds: ['inference'] },
  // A frame's checks on receipt (model, engine, image, price, plan) and the policy that queues or refuses it.
  { name: 'admission', holds: ['admission'] },
  // The one queue: lanes, round-robin, places on the executor.
  { name: 'scheduling', holds: ['scheduling'] },
  { name: 'tracking', holds: ['tracking'] },
  // The frame core every way in plugs into: streams, answers, replies.
  { name: 'frames', holds: ['frames'] },
  // A client speaking the frame protocol over any message channel (WebSocket, data channel).
  { name: 'sessions', holds: ['sessions'] },
  { name: 'security', holds: ['security'] },
  // What becomes of detected frames beyond their reply: rules, events, their history and delivery (the tap's consumer).
  { name: 'events', holds: ['events'] },
  // The contract every way in keeps with the composition root.
  { name: 'way-contract', holds: ['ways'] },
  // The ways in: each one an adapter onto the frame core (see WAYS_IN).
  { name: 'ways-in', holds: ['http', 'ws', 'whip'] },
  // The composition root and what starts it (launcher: the process `pnpm start` runs, which runs main.ts).
  { name: 'root', holds: ['gateway.ts', 'index.ts', 'main.ts', 'startup-banner.ts', 'warm-up.ts', 'cli', 'launcher'] },
];

/** Ways frames come in: none imports another, and only the composition root imports them. */
const WAYS_IN = ['http', 'ws', 'whip'];
const COMPOSITION_ROOT = ['gateway.ts', 'index.ts', 'main.ts'];

/** A path pattern matching the given folders and files of gateway/src (`decode` -> gateway/src/decode/...). */
function gatewayPaths(entries) {
  const alternatives = entries.map((entry) => (entry.endsWith('.ts') ? `${entry.replaceAll('.', '\\.')}$` : `${entry}/`));
  return `^gateway/src/(${alternatives.join('|')})`;
}

const ALL_LAYERS = GATEWAY_LAYERS.flatMap((layer) => layer.holds);

const layerRules = GATEWAY_LAYERS.slice(0, -1).map((layer, index) => ({
  name: `gateway-layer-${layer.name}`,
  comment: `gateway/src: ${layer.holds.join(', ')} may not import a higher layer (GATEWAY_LAYERS in .dependency-cruiser.mjs).`,
  severity: 'error',
  from: { path: gatewayPaths(layer.holds) },
  to: { path: gatewayPaths(GATEWAY_LAYERS.slice(index + 1).flatMap((higher) => higher.holds)) },
}));

const WORKSPACE_PACKAGES = ['shared', 'models', 'gateway', 'web', 'bench', 'e2e', 'deploy'];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle (type-only imports count): move what both sides need into a module of its own that imports neither.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve: fix it, or the rules above cannot see where it leads.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'shared-imports-no-workspace-package',
      comment: 'shared/ is the one source of truth every package builds on: it imports no other workspace package.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: `^(${WORKSPACE_PACKAGES.filter((p) => p !== 'shared').join('|')})/` },
    },
    {
      name: 'web-imports-no-gateway',
      comment:
        'The dashboard speaks to the gateway over the protocol (@sightline/shared), never through its code (vite.config.ts borrows its dev certificate at dev time only).',
      severity: 'error',
      from: { path: '^web/(src|test)/' },
      to: { path: '^gateway/' },
    },
    {
      name: 'gateway-module-in-a-layer',
      comment: 'Every folder and file of gateway/src has a layer: add it to GATEWAY_LAYERS in .dependency-cruiser.mjs.',
      severity: 'error',
      from: {},
      to: { path: '^gateway/src/', pathNot: gatewayPaths(ALL_LAYERS) },
    },
    {
      name: 'gateway-module-in-a-layer-imports',
      comment: 'Every folder and file of gateway/src has a layer: add it to GATEWAY_LAYERS in .dependency-cruiser.mjs.',
      severity: 'error',
      from: { path: '^gateway/src/', pathNot: gatewayPaths(ALL_LAYERS) },
      to: {},
    },
    ...layerRules,
    ...WAYS_IN.map((way) => ({
      name: `gateway-way-in-${way}-apart`,
      comment: `gateway/src/${way}/ is one way in: no other way in imports it, nor does anything but the composition root (${COMPOSITION_ROOT.join(', ')}).`,
      severity: 'error',
      from: { path: '^gateway/src/', pathNot: [gatewayPaths([way]), gatewayPaths(COMPOSITION_ROOT)] },
      to: { path: gatewayPaths([way]) },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: {
      path: '(^|/)(node_modules|dist|\\.git|\\.venvs?|bench-results|test-results|playwright-report)/|^e2e/artifacts/|^models/\\.generated/',
    },
    // Type-only imports are edges too: a circle through them still ties the modules together.
    tsPreCompilationDeps: true,
    // Workspace packages are imported through their exports maps, which point at their sources.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    progress: { type: 'none' },
  },
};
