import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { runCliCaptured, startBuiltOlmRun } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

const login = `Basic ${Buffer.from('olm:s3cret').toString('base64')}`;

/** An image manifest listing three layers (never fetched: the layer count is checked first). */
const threeLayers = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${'c'.repeat(64)}`, size: 2 },
  layers: ['a', 'b', 'd'].map((hex) => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: `sha256:${hex.repeat(64)}`, size: 1024 })),
});

/**
 * A registry stand-in: `acme/slow-bundle` never answers; every other repository needs basic credentials
 * (401 without them) and then has no such manifest (404, so the message says whether credentials were
 * sent), except `acme/layered-bundle:v1`, an image of three layers.
 */
async function startFakeRegistry(): Promise<{ host: string; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    if (request.url?.startsWith('/v2/acme/slow-bundle/')) {
      held.push(response);
      return;
    }
    if (request.headers.authorization !== login) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="fake"' }).end();
      return;
    }
    if (request.url === '/v2/acme/layered-bundle/manifests/v1') {
      response.writeHead(200, { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' }).end(threeLayers);
      return;
    }
    response.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN', message: 'manifest unknown' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function imageOnlyPackage(name: string, image: string) {
  return [
    { schema: 'olm.package', name, defaultChannel: 'stable' },
    { schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] },
    { schema: 'olm.bundle', name: `${name}.v1.0.0`, package: name, image, properties: [{ type: 'olm.package', value: { packageName: name, version: '1.0.0' } }] },
  ];
}

/** `olm run --bundle-unpack-timeout` and `--global-pull-secret`, through the built CLI. */
describe('olm run bundle unpack flags (the built CLI)', () => {
  let cluster: OlmCluster;
  let client: KubeClient;
  let directory: string;
  let kubeconfig: string;
  let registry: Awaited<ReturnType<typeof startFakeRegistry>>;

  beforeAll(async () => {
    registry = await startFakeRegistry();
    directory = await mkdtemp(join(tmpdir(), 'olm-unpack-flags-'));
    await mkdir(join(directory, 'catalog'));
    await writeFile(
      join(directory, 'catalog', 'catalog.json'),
      [
        ...imageOnlyPackage('slow', `${registry.host}/acme/slow-bundle:v1`),
        ...imageOnlyPackage('private', `${registry.host}/acme/private-bundle:v1`),
        ...imageOnlyPackage('layered', `${registry.host}/acme/layered-bundle:v1`),
      ]
        .map((blob) => JSON.stringify(blob))
        .join('\n'),
    );
    cluster = await startOlmCluster({ catalogs: [{ name: 'fake-images', directory: join(directory, 'catalog') }], operatorNamespaces: ['unpack-slow', 'unpack-private', 'unpack-layered'] });
    ({ client, kubeconfigPath: kubeconfig } = cluster);
    const config = { auths: { [registry.host]: { auth: Buffer.from('olm:s3cret').toString('base64') } } };
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'global-pull', namespace: 'olm' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
    } as Json);
    for (const [namespace, name] of [['unpack-slow', 'slow'], ['unpack-private', 'private'], ['unpack-layered', 'layered']] as const) {
      await client.create({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'Subscription',
        metadata: { name, namespace },
        spec: { name, channel: 'stable', source: 'fake-images', sourceNamespace: 'olm', installPlanApproval: 'Automatic' },
      } as Json);
    }
  });
  afterAll(async () => {
    await cluster?.stop();
    await registry?.close();
    await rm(directory, { recursive: true, force: true });
  });

  const unpackFailure = async (namespace: string, name: string) => {
    for (let tries = 0; tries < 600; tries += 1) {
      const sub = await client.get<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace, name });
      const failed = (sub.status?.conditions ?? []).find((condition: Json) => condition.type === 'BundleUnpackFailed' && condition.status === 'True');
      if (failed) return failed as { reason: string; message: string };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no BundleUnpackFailed on ${namespace}/${name}`);
  };

  it('gives up an unpack past --bundle-unpack-timeout, pulls with --global-pull-secret and bounds images with --bundle-max-layers', async () => {
    const olmRun = startBuiltOlmRun(kubeconfig, ['--bundle-unpack-timeout', '1s', '--global-pull-secret', 'olm/global-pull', '--bundle-max-layers', '2']);
    try {
      const slow = await unpackFailure('unpack-slow', 'slow');
      expect(slow.reason, olmRun.output()).toBe('BundleUnpackFailed');
      expect(slow.message).toContain(
        `bundle unpacking failed. Reason: DeadlineExceeded, and Message: Job was active longer than specified deadline: unpacking bundle image ${registry.host}/acme/slow-bundle:v1 of slow.v1.0.0 (catalogsource olm/fake-images) took longer than 1s`,
      );
      // the registry accepted the global pull secret's credentials: the image is then missing, not forbidden
      const missing = await unpackFailure('unpack-private', 'private');
      expect(missing.message).toContain(`bundle image ${registry.host}/acme/private-bundle:v1 not found: registry ${registry.host} answered HTTP 404 (MANIFEST_UNKNOWN: manifest unknown)`);
      const layered = await unpackFailure('unpack-layered', 'layered');
      expect(layered.message).toContain(`bundle image ${registry.host}/acme/layered-bundle:v1 is over its limit of 2 layers: its manifest lists 3 layers`);
      expect(layered.message).toContain("raise the bundle puller's bundleImageLimits.maxLayers (olm run/up --bundle-max-layers)");
    } finally {
      await olmRun.stop();
    }
  }, 90_000);

  it('refuses values it cannot use', async () => {
    const timeout = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--bundle-unpack-timeout', 'soon', '--exit-after-start']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('--bundle-unpack-timeout "soon": time: invalid duration "soon"; give a duration such as 90s, 5m or 1h30m');
    const secret = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--global-pull-secret', 'pull-secret', '--exit-after-start']);
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain('--global-pull-secret "pull-secret": give the Secret as NAMESPACE/NAME, e.g. olm/global-pull-secret');
    const limit = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--bundle-max-uncompressed-bytes', '0', '--exit-after-start']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain("option '--bundle-max-uncompressed-bytes <bytes>' argument '0' is invalid. give a whole number greater than 0");
  });
});
