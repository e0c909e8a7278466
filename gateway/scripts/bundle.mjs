// The production build: the gateway's entry and its inference worker, each bundled with esbuild into one
// ES module in gateway/dist/ (main.mjs, inference-worker.mjs), so production runs plain JavaScript with no
// TypeScript loader. Usage: pnpm --filter @sightline/gateway build (the Dockerfile runs it).
//
// Native modules stay external, installed beside the bundle: they load .node / .so files by paths of
// their own. Everything else (express, ws, pino, zod, the workspace's shared/ code) is inside.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const gatewayDir = fileURLToPath(new URL('../', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/', import.meta.url));

/** Imported by the gateway and kept out of the bundle: listed in dist/externals.json for the image to install. */
const NATIVE_EXTERNALS = ['onnxruntime-node', 'sharp', 'koffi', '@julusian/jpeg-turbo', 'node-datachannel'];
/** ws's optional native speed-ups: absent, ws falls back to JavaScript (it requires them inside a try). */
const OPTIONAL_EXTERNALS = ['bufferutil', 'utf-8-validate'];

/**
 * In a bundle, `import.meta.url` is the bundle's own URL. The gateway's modules sit two folders below the
 * workspace root, as the bundle does (gateway/src/config.ts, gateway/dist/main.mjs), so the paths they
 * compute from it stay right: `../../` is the root (models/, web/dist/), `./inference-worker.mjs` the
 * bundled worker beside it, node_modules is gateway/node_modules. Modules of other workspace packages
 * find their own package's files (shared/src/fixtures.ts: the warm-up photo in shared/fixtures/photos/):
 * there `import.meta.url` is pinned to the module's source location, relative to the bundle, so the
 * bundle reads the files where the workspace, and the image, keep them.
 */
const sourceRelativeImportMetaUrl = {
  name: 'source-relative-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`) || args.path.startsWith(gatewayDir)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      return {
        contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`),
        loader: 'ts',
      };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: gatewayDir,
  entryPoints: { main: 'src/main.ts', 'inference-worker': 'src/inference/inference-worker.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: [...NATIVE_EXTERNALS, ...OPTIONAL_EXTERNALS],
  // Bundled CommonJS packages (express, pino, ...) call require(): an ES module has none, so give it one.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  // Whitespace and syntax only (~40% smaller): identifiers stay, so stack traces keep readable names,
  // which the missing source maps would otherwise have to restore.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: false,
  legalComments: 'eof',
  plugins: [sourceRelativeImportMetaUrl],
  logLevel: 'warning',
  metafile: true,
});
await writeFile(`${outdir}externals.json`, `${JSON.stringify(NATIVE_EXTERNALS)}\n`);
for (const [file, { bytes }] of Object.entries(result.metafile.outputs)) {
  console.log(`${file}  ${(bytes / 1024).toFixed(0)} KiB`);
}
