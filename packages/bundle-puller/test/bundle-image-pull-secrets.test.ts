import type { KubeClient } from '@olm/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlAvailable, kubectlFor } from '@olm/testing';
import { completedPlan, condition, createNamespace, createOperatorNamespace, eventually, get, grpcCatalogSource, Kinds, list, settledSubscription, startImageCatalog, subscription, unpackFailure, type ImageCatalogEnvironment, type TestObject } from './helpers.js';
import { dockerRegistryBinary, htpasswdLine, imageOnlyPackage, pushMinimalBundle, startDockerRegistry, type DockerRegistry, type PushedImage } from './oci-images.js';

const binary = dockerRegistryBinary();
const user = 'olm-robot';
const password = 's3cret';
const htpasswd = binary ? htpasswdLine(user, password) : undefined;
if (binary && !htpasswd) console.warn('pull secret tests skipped: perl crypt cannot make the bcrypt hash the registry needs');

/**
 * A registry with basic authentication (distribution's htpasswd): bundle images from it are pulled
 * with the credentials of the CatalogSource's pull secrets, the `default` ServiceAccount's image pull
 * secrets, or the global pull secret.
 */
describe.skipIf(!binary || !htpasswd)('image-only bundles from a registry that needs credentials', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-pull-secrets-'));
  let environment: ImageCatalogEnvironment;
  let client: KubeClient;
  let images: DockerRegistry;
  const pushed: Record<string, PushedImage> = {};

  beforeAll(async () => {
    writeFileSync(join(directory, 'htpasswd'), `${htpasswd}\n`);
    images = await startDockerRegistry(binary!, directory, { htpasswd: join(directory, 'htpasswd') });
    const basic = { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
    for (const name of ['privatea', 'privateteam', 'privateglobal']) pushed[name] = await pushMinimalBundle(images, `acme/${name}-bundle`, 'v1', name, basic);

    const blobs = Object.entries(pushed).flatMap(([name, image]) => imageOnlyPackage(name, image.reference));
    environment = await startImageCatalog(directory, 'private', blobs, {
      controller: { bundleUnpackPollMs: 100 },
      puller: {
        bundleUnpackErrorRetryMs: 100,
        // long: a failure is tried again at once only because the pull secrets changed
        bundleUnpackFailedRetryMs: 10 * 60_000,
        registryRequestTimeoutMs: 20_000,
        globalPullSecret: { namespace: 'olm', name: 'global-pull' },
      },
    });
    client = environment.client;
  });
  afterAll(async () => {
    await environment?.stop();
    await images?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A pull secret, made the way a user makes one: `kubectl create secret docker-registry` (or the API when kubectl is missing). */
  async function createPullSecret(namespace: string, name: string, secretPassword: string): Promise<void> {
    if (kubectlAvailable()) {
      await kubectlFor(environment.cluster.server.kubeconfigPath).runOk(['create', 'secret', 'docker-registry', name, '-n', namespace, `--docker-server=${images.host}`, `--docker-username=${user}`, `--docker-password=${secretPassword}`]);
      return;
    }
    const config = { auths: { [images.host]: { username: user, password: secretPassword, auth: Buffer.from(`${user}:${secretPassword}`).toString('base64') } } };
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') } } as TestObject);
  }

  it('fails without credentials, says which were refused, and installs once the CatalogSource lists a working pull secret', async () => {
    const image = pushed.privatea!.reference;
    await createOperatorNamespace(client, 'secrets-a');
    await client.create(subscription('secrets-a', 'privatea', { source: 'private', sourceNamespace: 'olm' }));

    const anonymous = await unpackFailure(client, 'secrets-a', 'privatea', 'requires credentials');
    expect(anonymous.reason).toBe('BundleUnpackFailed');
    expect(anonymous.message).toContain(
      `unpacking bundle image ${image} of privatea.v1.0.0 (catalogsource olm/private) failed: registry ${images.host} requires credentials (basic authentication) to pull ${image} and no pull secret has credentials for it; ` +
        `create a kubernetes.io/dockerconfigjson Secret with credentials for ${images.host} in the CatalogSource's namespace and list it in the CatalogSource's spec.secrets`,
    );
    expect(anonymous.message).toContain('(pull secrets: secret olm/global-pull not found)');
    expect(await list(client, Kinds.installPlan, 'secrets-a')).toEqual([]);

    // a wrong password is refused by the registry, and the message names the secret
    await createPullSecret('olm', 'badcred', 'wrong');
    await client.patch({ ...Kinds.catalogSource, namespace: 'olm', name: 'private' }, { spec: { secrets: ['badcred'] } });
    const refused = await unpackFailure(client, 'secrets-a', 'privatea', 'refused');
    expect(refused.message).toContain(`not allowed to pull ${image}: registry ${images.host} refused the credentials of secret olm/badcred (HTTP 401); fix the credentials in that pull secret`);

    // the next secret's credentials work
    await createPullSecret('olm', 'regcred', password);
    await client.patch({ ...Kinds.catalogSource, namespace: 'olm', name: 'private' }, { spec: { secrets: ['badcred', 'regcred'] } });
    const plan = await completedPlan(client, 'secrets-a');
    expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['privatea.v1.0.0']);
    expect(await get(client, Kinds.clusterServiceVersion, 'secrets-a', 'privatea.v1.0.0')).toBeDefined();
    expect(condition(await settledSubscription(client, 'secrets-a', 'privatea'), 'BundleUnpackFailed')).toBeUndefined();
  });

  it('uses the image pull secrets of the default ServiceAccount when the CatalogSource lists none', async () => {
    await createOperatorNamespace(client, 'team');
    await createPullSecret('team', 'team-regcred', password);
    await eventually(() => get(client, Kinds.serviceAccount, 'team', 'default'));
    await client.patch({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'team', name: 'default' }, { imagePullSecrets: [{ name: 'team-regcred' }] });
    await client.create(grpcCatalogSource('team', 'team-catalog', environment.catalogServer.address));
    await client.create(subscription('team', 'privateteam', { source: 'team-catalog', sourceNamespace: 'team' }));
    await completedPlan(client, 'team');
    expect(await get(client, Kinds.clusterServiceVersion, 'team', 'privateteam.v1.0.0')).toBeDefined();
  });

  it('falls back to the global pull secret', async () => {
    await createNamespace(client, 'other');
    await createOperatorNamespace(client, 'other');
    await createPullSecret('olm', 'global-pull', password);
    await client.create(grpcCatalogSource('other', 'other-catalog', environment.catalogServer.address));
    await client.create(subscription('other', 'privateglobal', { source: 'other-catalog', sourceNamespace: 'other' }));
    await completedPlan(client, 'other');
    expect(await get(client, Kinds.clusterServiceVersion, 'other', 'privateglobal.v1.0.0')).toBeDefined();
  });
});
