import { defineConfig } from 'tsup';

export default defineConfig({
  // cli.ts is the `olm` bin; index.ts and local-cluster.ts are the public entries other distributions import.
  entry: ['src/cli.ts', 'src/index.ts', 'src/local-cluster.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts', 'src/local-cluster.ts'] },
  clean: true,
  sourcemap: true,
  target: 'node24',
  banner: { js: '#!/usr/bin/env node' },
});
