import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The window loads only what is built here; no remote content.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { target: "safari15", outDir: "dist", emptyOutDir: true, sourcemap: false },
});
