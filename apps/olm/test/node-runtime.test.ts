import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

// Node 20 left LTS on 2026-04-30. The set-up brings the pinned LTS from the npm registry (the root
// devDependency `node`); the tests, the CLI scripts and the image must all run on it.
describe('the Node runtime', () => {
  it('is the LTS pinned at the repository root, which the engines fields require', async () => {
    const root = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    const cli = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const major = (version: string) => Number(/(\d+)\./.exec(version)![1]);
    expect(process.versions.node).toBe(root.devDependencies.node);
    // Even majors are the LTS lines; 24 is the oldest still supported.
    expect(major(process.versions.node) % 2).toBe(0);
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(24);
    expect(major(root.engines.node.replace('>=', ''))).toBe(major(process.versions.node));
    expect(cli.engines.node).toBe(root.engines.node);
  });
});
