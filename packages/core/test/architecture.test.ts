import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The repository's architecture rules, checked by scripts/check-architecture.mjs over the real sources.
const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const script = join(repositoryRoot, 'scripts', 'check-architecture.mjs');

function check(root: string): { status: number | null; problems: string[] } {
  const result = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
  return { status: result.status, problems: result.stderr.split('\n').filter(Boolean) };
}

const fixtures: string[] = [];
afterAll(() => fixtures.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A repository of the given files (path → content) in a temporary directory. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'olm-architecture-'));
  fixtures.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe('the architecture rules', () => {
  it('hold in this repository: no controller depends on another, no import cycle in a package', () => {
    expect(check(repositoryRoot)).toEqual({ status: 0, problems: [] });
  });

  it('report a controller package that depends on or imports another controller', () => {
    const root = repository({
      'packages/controller-a/package.json': JSON.stringify({ name: '@olm/controller-a', dependencies: { '@olm/controller-b': '*', '@olm/controller-runtime': '*' } }),
      'packages/controller-a/src/a.ts': "import { b } from '@olm/controller-b/inner';\nexport const a = b;\n",
      'packages/controller-b/package.json': JSON.stringify({ name: '@olm/controller-b', devDependencies: { '@olm/controller-a': '*' } }),
      'packages/controller-b/src/b.test.ts': "import { a } from '@olm/controller-a';\n",
    });
    const { status, problems } = check(root);
    expect(status).toBe(1);
    expect(problems).toEqual([
      "@olm/controller-a has @olm/controller-b in dependencies: controllers meet in @olm/core's contracts or @olm/api, not in each other",
      "packages/controller-a/src/a.ts imports @olm/controller-b/inner: controllers meet in @olm/core's contracts or @olm/api, not in each other",
    ]);
  });

  it('report an import cycle between files of a package, but not one made only of type imports', () => {
    const root = repository({
      'packages/library/package.json': JSON.stringify({ name: '@olm/library' }),
      'packages/library/src/first.ts': "import { second } from './second.js';\nexport const first = () => second();\n",
      'packages/library/src/second.ts': "export { third as second } from './nested/third.js';\n",
      'packages/library/src/nested/third.ts': "import { first } from '../first.js';\nexport const third = () => first;\n",
      'packages/types/package.json': JSON.stringify({ name: '@olm/types' }),
      'packages/types/src/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'packages/types/src/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    const { status, problems } = check(root);
    expect(status).toBe(1);
    expect(problems).toEqual(['import cycle in packages/library: src/first.ts -> src/second.ts -> src/nested/third.ts -> src/first.ts']);
  });
});
