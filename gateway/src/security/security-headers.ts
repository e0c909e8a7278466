/**
 * Security headers on every answer (helmet), with a Content-Security-Policy the dashboard satisfies:
 * its own scripts, styles, workers and WebSocket only; WebAssembly compilation for on-device
 * inference; camera frames and captured images as blob: and data: URLs. Cross-origin isolated (COOP
 * same-origin + COEP require-corp), so on-device inference may run WASM threads.
 */
import helmet from 'helmet';

export function securityHeaders() {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
        // Inline style attributes (charts, tooltips, the plain pages) carry no script: allowed.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        workerSrc: ["'self'", 'blob:'],
        // 'self' covers ws: and wss: to this same host and port.
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // HSTS would stop a browser from letting its user past the warning of a self-signed certificate.
    strictTransportSecurity: false,
    // The dashboard opens no other origin's windows and embeds nothing foreign. With COEP require-corp
    // the page is cross-origin isolated, which gives on-device inference SharedArrayBuffer, i.e. WASM threads.
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: { policy: 'require-corp' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
