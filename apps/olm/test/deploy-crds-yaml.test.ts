import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { GROUP, GROUP_V1 } from '@olm/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCrdsYaml, documents, kubectlMinorVersion, repository, runCommand, startLocalCluster, type Json, type LocalCluster } from './deploy-tools.js';
import { runCliCaptured } from './run-cli.js';

// The static crds.yaml is a build output (pnpm build; CI builds before testing).
const notBuilt = existsSync(builtCrdsYaml) ? undefined : `${builtCrdsYaml} is missing: run \`pnpm build\` (or \`pnpm --filter @olm/api build\`) first`;

describe('the static crds.yaml that @olm/api builds, for GitOps', () => {
  it('exists after the build', () => {
    expect(notBuilt).toBeUndefined();
  });

  it.skipIf(notBuilt !== undefined)('is exactly what `olm crds` prints', async () => {
    const printed = await runCliCaptured(['crds']);
    expect(printed.code).toBe(0);
    expect(await readFile(builtCrdsYaml, 'utf8')).toBe(printed.stdout);
    const crds = await documents(builtCrdsYaml);
    // the eight operators.coreos.com CRDs and OLM v1's ClusterCatalog and ClusterExtension, sorted by name
    expect(crds.map((crd) => crd.spec.group)).toEqual([GROUP, GROUP_V1, GROUP_V1, ...Array(7).fill(GROUP)]);
  });

  it.skipIf(notBuilt !== undefined)('ships in the npm package, exported as @olm/api/crds.yaml', async () => {
    const packageDirectory = join(repository, 'packages', 'api');
    const pack = await runCommand('pnpm', ['pack', '--dry-run', '--json'], { cwd: packageDirectory });
    expect(pack.code, pack.stderr).toBe(0);
    const files = (JSON.parse(pack.stdout) as { files: Array<{ path: string }> }).files.map((file) => file.path);
    expect(files).toContain('dist/crds.yaml');
    expect(createRequire(join(repository, 'apps', 'olm', 'package.json')).resolve('@olm/api/crds.yaml')).toBe(builtCrdsYaml);
  });
});

const kubectlMissing = kubectlMinorVersion() === undefined ? 'kubectl not found; scripts/setup.sh installs it' : undefined;
if (kubectlMissing !== undefined) console.warn(`deploy crds.yaml: ${kubectlMissing}; the API server checks are skipped`);

describe.skipIf(notBuilt !== undefined || kubectlMissing !== undefined)('crds.yaml against the local API server, as deploy/README.md applies it', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('passes kubectl apply --server-side --dry-run=server and stores nothing', async () => {
    const result = await cluster.kubectl(['apply', '--server-side', '--dry-run=server', '-f', builtCrdsYaml]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(10);
    for (const line of lines) expect(line).toMatch(/^customresourcedefinition\.apiextensions\.k8s\.io\/\S+\.(operators\.coreos\.com|olm\.operatorframework\.io) serverside-applied \(server dry run\)$/);
    expect(await cluster.kubectlOk(['get', 'customresourcedefinitions', '-o', 'name'])).toBe('');
  });

  it('kubectl apply --server-side -f crds.yaml then serves every kind, and a second apply changes nothing', async () => {
    const applied = await cluster.kubectl(['apply', '--server-side', '-f', builtCrdsYaml]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    await expect
      .poll(
        async () =>
          (await Promise.all([GROUP, GROUP_V1].map(async (group) => (await cluster.kubectl(['api-resources', '--api-group', group, '-o', 'name'])).stdout.trim().split('\n'))))
            .flat()
            .sort(),
        { timeout: 20_000 },
      )
      .toEqual((await documents(builtCrdsYaml)).map((crd) => crd.metadata.name).sort());
    await cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=20s', '-f', builtCrdsYaml]);
    // Compared as data: every spec as applied, none changed again (generation 1).
    const live = async () => JSON.parse(await cluster.kubectlOk(['get', '-f', builtCrdsYaml, '-o', 'json'])).items.map((crd: Json) => ({ name: crd.metadata.name, generation: crd.metadata.generation, spec: crd.spec }));
    const before = await live();
    expect(before.map((crd: { generation: number }) => crd.generation)).toEqual(Array(10).fill(1));
    const again = await cluster.kubectl(['apply', '--server-side', '-f', builtCrdsYaml]);
    expect(again.code).toBe(0);
    expect(await live()).toEqual(before);
  });
});
