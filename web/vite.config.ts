import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { devCertificate } from '@sightline/gateway/dev-certificate';

// SIGHTLINE_TLS=auto pnpm dev: Vite and the gateway both serve HTTPS with the gateway's kept certificate.
// This is the dashboard's one use of the gateway package, and only at dev time (a devDependency, through
// its `./dev-certificate` export): the same certificate file, so the browser accepts one exception for
// both servers. Nothing in src/ imports the gateway; the build the gateway serves contains none of it.
const tls = await devCertificate();

/**
 * Cross-origin isolation (as the gateway sends it): SharedArrayBuffer, so on-device inference runs WASM
 * threads. Every resource of the dashboard is same-origin, so require-corp blocks nothing it uses.
 */
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/** Where the dev server forwards the WebSocket and the HTTP API: a running gateway. */
const gateway = process.env.SIGHTLINE_GATEWAY ?? `${tls ? 'https' : 'http'}://localhost:8080`;

export default defineConfig({
  plugins: [react()],
  // Served by the gateway at '/', so absolute asset paths from the root are right in both dev and prod.
  base: '/',
  server: {
    port: 5173,
    headers: isolation,
    ...(tls ? { https: { cert: tls.cert, key: tls.key } } : {}),
    // The gateway's certificate is self-signed: the proxy (on this machine) does not verify it.
    proxy: {
      '/ws': { target: gateway, ws: true, changeOrigin: true, secure: false },
      '/api': { target: gateway, changeOrigin: true, secure: false },
      '/healthz': { target: gateway, changeOrigin: true, secure: false },
    },
  },
  preview: {
    headers: isolation,
    proxy: {
      '/ws': { target: gateway, ws: true, changeOrigin: true, secure: false },
      '/api': { target: gateway, changeOrigin: true, secure: false },
      '/healthz': { target: gateway, changeOrigin: true, secure: false },
    },
  },
  // onnxruntime-web finds its .wasm files next to its own module (new URL(…, import.meta.url)): pre-bundling
  // would move the module away from them, so the dev server serves the package as it is.
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // None in the build the gateway serves (they would publish the sources); `vite build --sourcemap` to debug.
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Long-lived vendor chunks: the app's own code changes far more often than React or recharts.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            {
              name: 'charts',
              test: /node_modules[\\/](recharts|d3-[^\\/]+|victory-vendor|@reduxjs|redux|immer|reselect|es-toolkit|decimal\.js-light|eventemitter3|react-redux|use-sync-external-store)[\\/]/,
            },
            { name: 'protocol', test: /node_modules[\\/](zod|@msgpack)[\\/]/ },
          ],
        },
      },
    },
  },
});
