import preact from '@preact/preset-vite';
import { defineConfig, type ProxyOptions } from 'vite';

/**
 * The viewer is served by the daemon under `/viewer/` (packages/daemon/src/http/viewer-static.ts).
 * `npm run dev -w @svc/viewer` serves it from source instead and proxies the API to a running
 * daemon's TCP listener, `SVC_VIEWER_DAEMON` (e.g. http://127.0.0.1:8787, from `svc status`).
 */
const daemon = process.env.SVC_VIEWER_DAEMON ?? 'http://127.0.0.1:8787';
// The daemon honours a viewer cookie from its own origin only: the proxy speaks as that origin.
const asDaemon: ProxyOptions = {
  target: daemon,
  changeOrigin: true,
  configure: (proxy) => {
    proxy.on('proxyReq', (req) => req.setHeader('origin', daemon));
  },
};

export default defineConfig({
  base: '/viewer/',
  plugins: [preact()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/v1': asDaemon, '/viewer/login': asDaemon } },
});
