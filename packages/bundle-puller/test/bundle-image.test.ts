import type { KubeClient } from '@olm/core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDigestAnnotation, bundleImageAnnotation, unpackedConfigMapName } from '../src/index.js';
import { completedPlan, condition, createOperatorNamespace, eventually, get, Kinds, list, settledSubscription, startImageCatalog, subscription, unpackFailure, type ImageCatalogEnvironment, type TestObject } from './helpers.js';
import { blobDataPath, dockerRegistryBinary, gzip, imageOnlyPackage, pushImage, pushMinimalBundle, startDockerRegistry, tarLayer, thingAnnotationsYaml, thingCrdYaml, thingCsvYaml, type DockerRegistry, type PushedImage } from './oci-images.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('bundle image tests skipped: docker-registry not found (apt-get install docker-registry, or set DOCKER_REGISTRY to the binary)');

// removed again by a whiteout in the second layer: must never be installed
const staleYaml = `apiVersion: v1
kind: ConfigMap
metadata:
  name: stale-from-lower-layer
data: {}
`;

const stepsOf = (plan: TestObject) => ((plan.status as { plan?: Array<{ resolving: string; resource: { kind: string; name: string }; status: string }> }).plan ?? []);

describe.skipIf(!binary)('image-only bundles pulled from a registry', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-bundle-images-'));
  let environment: ImageCatalogEnvironment;
  let client: KubeClient;
  let images: DockerRegistry;
  let thing: PushedImage;
  let tampered: PushedImage;
  let missingImage: string;
  let slow: PushedImage;
  const operatorOptions = { controller: { bundleUnpackPollMs: 100 }, puller: { bundleUnpackErrorRetryMs: 100, bundleUnpackFailedRetryMs: 500, registryRequestTimeoutMs: 20_000 } };

  beforeAll(async () => {
    images = await startDockerRegistry(binary!, directory);
    // thing: a gzip layer with the CSV, metadata and a stale file, then a plain layer adding the CRD and whiting the stale file out
    const lower = gzip(
      await tarLayer([
        { name: 'manifests/', type: 'directory' },
        { name: 'manifests/thing.clusterserviceversion.yaml', content: thingCsvYaml },
        { name: 'manifests/stale.configmap.yaml', content: staleYaml },
        { name: 'metadata/', type: 'directory' },
        { name: 'metadata/annotations.yaml', content: thingAnnotationsYaml },
      ]),
    );
    const upper = await tarLayer([
      { name: 'manifests/things.crd.yaml', content: thingCrdYaml },
      { name: 'manifests/.wh.stale.configmap.yaml' },
    ]);
    thing = await pushImage(images, 'acme/thing-bundle', 'v1', [
      { bytes: lower, gzipped: true },
      { bytes: upper, gzipped: false },
    ]);
    // tampered: pushed correctly, then its layer corrupted in the registry's storage (same length, other bytes)
    const tamperedLayer = await tarLayer([{ name: 'manifests/thing.clusterserviceversion.yaml', content: thingCsvYaml.replaceAll('thing', 'tampered') }]);
    tampered = await pushImage(images, 'acme/tampered-bundle', 'v1', [{ bytes: tamperedLayer, gzipped: false }]);
    const stored = blobDataPath(images.storage, tampered.layers[0]!.digest);
    writeFileSync(stored, Buffer.from(readFileSync(stored).toString('latin1').replace('tampered.v1.0.0', 'tampered.v6.6.6'), 'latin1'));
    missingImage = `${images.host}/acme/missing-bundle:v1`;
    slow = await pushMinimalBundle(images, 'acme/slow-bundle', 'v1', 'slow');

    const blobs = [
      ...imageOnlyPackage('thing', thing.reference),
      ...imageOnlyPackage('tampered', tampered.reference),
      ...imageOnlyPackage('missing', missingImage),
      ...imageOnlyPackage('slow', slow.reference),
    ];
    environment = await startImageCatalog(directory, 'acme-images', blobs, operatorOptions);
    client = environment.client;
  });
  afterAll(async () => {
    await environment?.stop();
    await images?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const imageSubscription = (namespace: string, name: string) => subscription(namespace, name, { source: 'acme-images', sourceNamespace: 'olm' });

  it('reports BundleUnpacking while the image is pulled, creates no InstallPlan before, then installs the CSV and CRD from the image', async () => {
    await createOperatorNamespace(client, 'images-a');
    // a frozen registry keeps the pull in progress for as long as we look
    images.pause();
    try {
      await client.create(imageSubscription('images-a', 'thing'));
      const unpacking = await eventually(async () => {
        const found = await get(client, Kinds.subscription, 'images-a', 'thing');
        return condition(found, 'BundleUnpacking')?.status === 'True' && found;
      });
      expect(condition(unpacking, 'BundleUnpacking')).toMatchObject({
        reason: 'UnpackingInProgress',
        message: `unpacking bundle image ${thing.reference} of thing.v1.0.0 (catalogsource olm/acme-images)`,
      });
      expect(await list(client, Kinds.installPlan, 'images-a')).toEqual([]);
    } finally {
      images.resume();
    }

    const plan = await completedPlan(client, 'images-a');
    expect(plan.spec).toMatchObject({ clusterServiceVersionNames: ['thing.v1.0.0'], approved: true });
    const steps = stepsOf(plan);
    expect(steps.map((step) => `${step.resource.kind}/${step.resource.name}`)).toEqual(['ClusterServiceVersion/thing.v1.0.0', 'CustomResourceDefinition/things.acme.example.com']);
    expect(steps.every((step) => step.status === 'Created' || step.status === 'Present')).toBe(true);
    // the image-only bundle, as upstream lists it once unpacked
    const lookups = (plan.status as { bundleLookups?: Array<Record<string, unknown>> }).bundleLookups ?? [];
    expect(lookups.map(({ properties: _properties, ...lookup }) => lookup)).toEqual([
      { path: thing.reference, identifier: 'thing.v1.0.0', replaces: '', catalogSourceRef: { namespace: 'olm', name: 'acme-images' } },
    ]);
    expect(JSON.parse(String(lookups[0]!.properties))).toEqual({
      properties: [
        { type: 'olm.package', value: { packageName: 'thing', version: '1.0.0' } },
        { type: 'olm.gvk', value: { group: 'acme.example.com', version: 'v1', kind: 'Thing' } },
      ],
    });

    const csv = await get(client, Kinds.clusterServiceVersion, 'images-a', 'thing.v1.0.0');
    expect(csv?.metadata?.annotations).toMatchObject({ createdAt: '2024-01-02T03:04:05Z' });
    expect(JSON.parse(csv!.metadata!.annotations!['operatorframework.io/properties']!).properties).toContainEqual({
      type: 'olm.package',
      value: { packageName: 'thing', version: '1.0.0' },
    });
    expect(await get(client, Kinds.customResourceDefinition, undefined, 'things.acme.example.com')).toBeDefined();
    // the whited-out file of the lower layer was not installed
    expect(await get(client, Kinds.configMap, 'images-a', 'stale-from-lower-layer')).toBeUndefined();

    const settled = await settledSubscription(client, 'images-a', 'thing');
    expect(condition(settled, 'BundleUnpacking')).toBeUndefined();
    expect(condition(settled, 'BundleUnpackFailed')).toBeUndefined();

    // the unpacked bundle, kept for the next time
    const configMap = await get(client, Kinds.configMap, 'olm', unpackedConfigMapName(thing.reference));
    const source = await get(client, Kinds.catalogSource, 'olm', 'acme-images');
    expect(configMap?.metadata).toMatchObject({
      labels: { 'olm.managed': 'true', 'olm.catalogSource': 'acme-images' },
      annotations: {
        [bundleImageAnnotation]: thing.reference,
        [bundleDigestAnnotation]: thing.manifestDigest,
        'operators.operatorframework.io.bundle.package.v1': 'thing',
      },
      ownerReferences: [expect.objectContaining({ kind: 'CatalogSource', name: 'acme-images', uid: source?.metadata?.uid })],
    });
    expect(Object.keys((configMap as { data: Record<string, string> }).data).sort()).toEqual(['thing.clusterserviceversion.yaml', 'things.crd.yaml']);
  });

  it('reports a missing image as BundleUnpackFailed, installs nothing for it, and resolves other namespaces meanwhile', async () => {
    await createOperatorNamespace(client, 'images-missing');
    await client.create(imageSubscription('images-missing', 'missing'));
    const failed = await unpackFailure(client, 'images-missing', 'missing');
    const message = failed.message!;
    expect(failed.reason).toBe('BundleUnpackFailed');
    expect(message).toContain(`unpacking bundle image ${missingImage} of missing.v1.0.0 (catalogsource olm/acme-images) failed: bundle image ${missingImage} not found: registry ${images.host} answered HTTP 404`);
    expect(message).toContain('MANIFEST_UNKNOWN');
    expect(message).toContain('push the bundle image, or fix the bundle');
    expect(condition(await get(client, Kinds.subscription, 'images-missing', 'missing'), 'ResolutionFailed')).toBeUndefined();
    expect(await list(client, Kinds.installPlan, 'images-missing')).toEqual([]);

    // another namespace installing an unpacked bundle is not held up
    await createOperatorNamespace(client, 'images-b');
    await client.create(imageSubscription('images-b', 'thing'));
    await completedPlan(client, 'images-b');
    expect(await get(client, Kinds.clusterServiceVersion, 'images-b', 'thing.v1.0.0')).toBeDefined();
    expect(await list(client, Kinds.installPlan, 'images-missing')).toEqual([]);
  });

  it('refuses a layer whose content does not match its digest', async () => {
    await createOperatorNamespace(client, 'images-tampered');
    await client.create(imageSubscription('images-tampered', 'tampered'));
    const failed = await unpackFailure(client, 'images-tampered', 'tampered');
    expect(failed.reason).toBe('BundleUnpackFailed');
    expect(failed.message).toContain(
      `digest mismatch for layer ${tampered.layers[0]!.digest} of ${tampered.reference}: expected ${tampered.layers[0]!.digest}, got sha256:`,
    );
    expect(await list(client, Kinds.installPlan, 'images-tampered')).toEqual([]);
    expect(await get(client, Kinds.configMap, 'olm', unpackedConfigMapName(tampered.reference))).toBeUndefined();
    expect(await get(client, Kinds.clusterServiceVersion, 'images-tampered', 'tampered.v6.6.6')).toBeUndefined();
  });

  it('gives up a pull past the OperatorGroup\'s unpack timeout as upstream\'s DeadlineExceeded, and tries again after its minimum retry interval', async () => {
    await createOperatorNamespace(client, 'images-slow', {
      'operatorframework.io/bundle-unpack-timeout': '1s',
      'operatorframework.io/bundle-unpack-min-retry-interval': '3s',
    });
    // a frozen registry: the pull hangs past the deadline
    images.pause();
    try {
      await client.create(imageSubscription('images-slow', 'slow'));
      const failed = await unpackFailure(client, 'images-slow', 'slow');
      expect(failed.reason).toBe('BundleUnpackFailed');
      expect(failed.message).toBe(
        `bundle unpacking failed. Reason: DeadlineExceeded, and Message: Job was active longer than specified deadline: unpacking bundle image ${slow.reference} of slow.v1.0.0 (catalogsource olm/acme-images) took longer than 1s; ` +
          `raise the OperatorGroup's operatorframework.io/bundle-unpack-timeout annotation or the --bundle-unpack-timeout flag, or check that the registry answers (tried again in 3s)`,
      );
      expect(await list(client, Kinds.installPlan, 'images-slow')).toEqual([]);
    } finally {
      images.resume();
    }
    // the registry answers again: the next try (after the retry interval) installs it
    const plan = await completedPlan(client, 'images-slow');
    expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['slow.v1.0.0']);
    expect(condition(await settledSubscription(client, 'images-slow', 'slow'), 'BundleUnpackFailed')).toBeUndefined();
  });

  it('after a restart with the registry stopped, installs the bundle again from the ConfigMap without pulling', async () => {
    await images.stop();
    await environment.restartOperator();

    await createOperatorNamespace(client, 'images-c');
    await client.create(imageSubscription('images-c', 'thing'));
    const plan = await completedPlan(client, 'images-c');
    expect(stepsOf(plan).map((step) => step.resource.kind)).toEqual(['ClusterServiceVersion', 'CustomResourceDefinition']);
    expect(await get(client, Kinds.clusterServiceVersion, 'images-c', 'thing.v1.0.0')).toBeDefined();
    const sub = await get(client, Kinds.subscription, 'images-c', 'thing');
    expect(condition(sub, 'BundleUnpackFailed')).toBeUndefined();

    // an image never unpacked does need the registry: the failure now says it cannot be reached
    const unreachable = await unpackFailure(client, 'images-missing', 'missing', 'cannot reach registry');
    expect(unreachable.message).toContain(`cannot reach registry ${images.host} (http://${images.host}/v2/acme/missing-bundle/manifests/v1)`);
  });
});
