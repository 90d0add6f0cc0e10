import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import sibling packages from source (the "@olm/source" export condition),
// so a change in one package is seen by another's tests without a rebuild.
const sourceConditions = ['@olm/source', 'node', 'import', 'module', 'default'];

// Paths from the repository root, so `pnpm test` inside a package finds the projects too.
const root = fileURLToPath(new URL('.', import.meta.url));
const projectDirs = ['packages', 'apps', 'examples/plugins'].flatMap((group) =>
  existsSync(join(root, group))
    ? readdirSync(join(root, group))
        .map((name) => join(root, group, name))
        .filter((dir) => existsSync(join(dir, 'package.json')))
    : [],
);

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@olm/source'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files share a worker's module cache: each file otherwise re-imports @kubernetes/client-node
    // and the packages under test (about 1.5 s a file, 40 % of the suite's time on a 2-core machine).
    // Tests therefore must not rely on fresh module state: none mocks modules, and those that set
    // process.env restore it after each test.
    isolate: false,
    // Most test time is spent waiting on servers and child processes, so two files at once pay off
    // even on two cores (vitest's default there is one worker).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: projectDirs.map((dir) => ({
      extends: true,
      test: {
        name: dir.split('/').at(-1)!,
        root: dir,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      },
    })),
  },
});
