import { defineConfig } from 'tsup';

export default defineConfig([
  // The server: a library for apps/olm's `olm console`.
  { entry: ['src/index.ts'], format: ['esm'], dts: true, clean: false, sourcemap: true, target: 'node24' },
  // The page: one script and one stylesheet, served from dist/ui by the server; no runtime fetch of anything else.
  {
    entry: { app: 'src/ui/main.ts' },
    outDir: 'dist/ui',
    format: ['iife'],
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    dts: false,
    clean: false,
    outExtension: () => ({ js: '.js' }),
  },
]);
