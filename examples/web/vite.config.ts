/**
 * Vite config of the web example.
 *
 *   npx vite examples/web            dev server (demo model)
 *   npx vite build examples/web      static build in examples/web/dist
 *
 * `/api` is forwarded to the example proxy server (`examples/web/proxy-server.ts`, port 8787 by
 * default, or PROXY_TARGET), so `?proxy=/api/stream` works same-origin in dev and preview.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const target = process.env.PROXY_TARGET ?? "http://127.0.0.1:8787";
const api = { "/api": { target, changeOrigin: true } };

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  server: { host: "127.0.0.1", proxy: api },
  preview: { host: "127.0.0.1", proxy: api },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
});
