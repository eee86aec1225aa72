import { tanstackRouter } from "@tanstack/router-plugin/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The BFF listens here in embedded mode; proxying keeps the SPA same-origin in dev,
// so auth cookies behave as they do behind the BFF in production.
const BFF_URL = "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [
    // The router plugin must run before react() so route files are code-split
    // before the React transform sees them.
    tanstackRouter({ target: "react", autoCodeSplitting: true, routesDirectory: "./src/routes" }),
    react(),
  ],
  build: { outDir: "dist", emptyOutDir: true },
  // `vite preview` reuses server.proxy, so the built app can be checked against a running BFF too.
  server: {
    proxy: {
      "/api": { target: BFF_URL, changeOrigin: false },
      "/auth": { target: BFF_URL, changeOrigin: false },
    },
  },
});
