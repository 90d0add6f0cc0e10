import { defineConfig } from 'tsup';

export default defineConfig({
  // cli.ts is the `olm` bin; index.ts is the public entry other distributions import.
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
