import type { KubeClient } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { builtInSourceTypes, createNamespace, eventually, get, list, startCluster, startController } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let controller: Awaited<ReturnType<typeof startController>>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  controller = await startController(cluster.server, client, {
    catalogSourceTypes: builtInSourceTypes({ registryPod: { opmImage: 'quay.io/operator-framework/opm:v1.50.0', utilImage: 'quay.io/operator-framework/olm:v0.32.0' } }),
  });
  await createNamespace(client, 'pods-legacy');
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pods-restricted', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } });
});
afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

type PodSpec = {
  serviceAccountName?: string;
  imagePullSecrets?: Array<{ name: string }>;
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  affinity?: unknown;
  priorityClassName?: string;
  securityContext?: Record<string, unknown>;
  volumes?: unknown[];
  initContainers?: Array<Record<string, unknown>>;
  containers: Array<Record<string, unknown> & { securityContext?: Record<string, unknown>; resources?: unknown; env?: unknown }>;
};

async function imageCatalog(namespace: string, name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): Promise<void> {
  await client.create({
    ...Kinds.catalogSource,
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: { sourceType: 'grpc', image: 'quay.io/acme/catalog:latest', ...spec },
  });
}

/** The registry Pod of a catalog once there is exactly one, optionally one that passes `accept`. */
const registryPodOf = (namespace: string, name: string, accept: (pod: AnyObject) => boolean = () => true) =>
  eventually(async () => {
    const pods = (await list(client, { apiVersion: 'v1', kind: 'Pod' }, namespace)).filter((pod) => pod.metadata?.labels?.['olm.catalogSource'] === name);
    return pods.length === 1 && accept(pods[0]!) && pods[0]!;
  });
const specOf = (pod: AnyObject) => pod.spec as PodSpec;

describe('the registry Pod of an image catalog, as upstream builds it', () => {
  it('runs as the catalog\'s ServiceAccount with its pull secrets, with upstream\'s probes, resources and annotations, legacy security by default', async () => {
    await imageCatalog('pods-legacy', 'plain', { secrets: ['regcred'] }, { 'team.example.com/owner': 'a' });
    const pod = await registryPodOf('pods-legacy', 'plain');
    const source = await get(client, Kinds.catalogSource, 'pods-legacy', 'plain');
    expect(pod.metadata?.name).toMatch(/^plain-/);
    expect(pod.metadata?.labels).toMatchObject({ 'olm.catalogSource': 'plain', 'olm.managed': 'true', 'olm.pod-spec-hash': expect.any(String) });
    expect(pod.metadata?.annotations).toEqual({ 'team.example.com/owner': 'a', 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' });
    const spec = specOf(pod);
    expect(spec.serviceAccountName).toBe('plain');
    expect(spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    // kube-apiserver defaults an absent pod security context to {}
    expect(spec.securityContext ?? {}).toEqual({});
    // toMatchObject: the server adds its defaults (terminationMessagePath, ...)
    expect(spec.containers).toMatchObject([
      {
        name: 'registry-server',
        image: 'quay.io/acme/catalog:latest',
        ports: [{ name: 'grpc', containerPort: 50051 }],
        readinessProbe: { exec: { command: ['grpc_health_probe', '-addr=:50051'] }, initialDelaySeconds: 5, timeoutSeconds: 5 },
        livenessProbe: { exec: { command: ['grpc_health_probe', '-addr=:50051'] }, initialDelaySeconds: 10, timeoutSeconds: 5 },
        startupProbe: { exec: { command: ['grpc_health_probe', '-addr=:50051'] }, failureThreshold: 10, periodSeconds: 10, timeoutSeconds: 5 },
        resources: { requests: { cpu: '10m', memory: '50Mi' } },
        securityContext: { readOnlyRootFilesystem: false },
        imagePullPolicy: 'Always',
        terminationMessagePolicy: 'FallbackToLogsOnError',
      },
    ]);
    const account = await get(client, { apiVersion: 'v1', kind: 'ServiceAccount' }, 'pods-legacy', 'plain');
    expect((account as { imagePullSecrets?: unknown }).imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(account?.metadata?.ownerReferences).toMatchObject([{ kind: 'CatalogSource', name: 'plain', uid: source?.metadata?.uid, controller: true }]);

    // other pull secrets: the ServiceAccount follows and the Pod is replaced
    await client.patch({ ...Kinds.catalogSource, namespace: 'pods-legacy', name: 'plain' }, { spec: { secrets: ['other'] } });
    const replaced = await registryPodOf('pods-legacy', 'plain', (candidate) => specOf(candidate).imagePullSecrets?.[0]?.name === 'other');
    expect(replaced.metadata?.name).not.toBe(pod.metadata?.name);
    const updated = await get(client, { apiVersion: 'v1', kind: 'ServiceAccount' }, 'pods-legacy', 'plain');
    expect((updated as { imagePullSecrets?: unknown }).imagePullSecrets).toEqual([{ name: 'other' }]);
  });

  it('defaults to the restricted security context in a namespace that enforces it', async () => {
    await imageCatalog('pods-restricted', 'strict', {});
    const spec = specOf(await registryPodOf('pods-restricted', 'strict'));
    expect(spec.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' }, runAsUser: 1001, runAsNonRoot: true });
    expect(spec.containers[0]!.securityContext).toEqual({ readOnlyRootFilesystem: false, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  });

  it('applies grpcPodConfig: node selector, tolerations, affinity, priority class, security context, memory target', async () => {
    const tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'catalogs', effect: 'NoSchedule' }];
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } };
    const digest = `sha256:${'b'.repeat(64)}`;
    await imageCatalog('pods-restricted', 'configured', {
      image: `quay.io/acme/catalog@${digest}`,
      grpcPodConfig: { nodeSelector: { disk: 'ssd' }, tolerations, affinity, priorityClassName: 'catalog-high', securityContextConfig: 'legacy', memoryTarget: '80Mi' },
    });
    const spec = specOf(await registryPodOf('pods-restricted', 'configured'));
    // the node selector replaces the default one
    expect(spec.nodeSelector).toEqual({ disk: 'ssd' });
    // the server's DefaultTolerationSeconds admission adds the not-ready/unreachable tolerations
    expect(spec.tolerations?.filter((toleration) => !String((toleration as { key?: string }).key).startsWith('node.kubernetes.io/'))).toEqual(tolerations);
    expect(spec.affinity).toEqual(affinity);
    expect(spec.priorityClassName).toBe('catalog-high');
    // legacy, although the namespace enforces restricted
    expect(spec.securityContext ?? {}).toEqual({});
    expect(spec.containers[0]).toMatchObject({
      image: `quay.io/acme/catalog@${digest}`,
      imagePullPolicy: 'IfNotPresent',
      resources: { requests: { cpu: '10m', memory: '80Mi' } },
      env: [{ name: 'GOMEMLIMIT', value: '80MiB' }],
    });
    expect((spec.containers[0]!.resources as { limits?: unknown }).limits).toBeUndefined();
  });

  it('lets the operatorframework.io/priorityclass annotation set the priority class', async () => {
    await imageCatalog('pods-legacy', 'prioritized', { grpcPodConfig: { priorityClassName: 'ignored' } }, { 'operatorframework.io/priorityclass': 'system-cluster-critical' });
    expect(specOf(await registryPodOf('pods-legacy', 'prioritized')).priorityClassName).toBe('system-cluster-critical');
  });

  it('extracts the catalog and its cache from the image and serves them with opm (extractContent)', async () => {
    await imageCatalog('pods-restricted', 'extracted', { grpcPodConfig: { extractContent: { catalogDir: '/configs', cacheDir: '/tmp/cache' } } });
    const spec = specOf(await registryPodOf('pods-restricted', 'extracted'));
    const dropAll = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
    expect(spec.volumes).toEqual([
      { name: 'utilities', emptyDir: {} },
      { name: 'catalog-content', emptyDir: {} },
    ]);
    expect(spec.initContainers).toMatchObject([
      {
        name: 'extract-utilities',
        image: 'quay.io/operator-framework/olm:v0.32.0',
        command: ['cp'],
        args: ['/bin/copy-content', '/utilities/copy-content'],
        volumeMounts: [{ name: 'utilities', mountPath: '/utilities' }],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        securityContext: { readOnlyRootFilesystem: true, ...dropAll },
      },
      {
        name: 'extract-content',
        image: 'quay.io/acme/catalog:latest',
        imagePullPolicy: 'Always',
        command: ['/utilities/copy-content'],
        args: ['--catalog.from=/configs', '--catalog.to=/extracted-catalog/catalog', '--cache.from=/tmp/cache', '--cache.to=/extracted-catalog/cache'],
        volumeMounts: [
          { name: 'utilities', mountPath: '/utilities' },
          { name: 'catalog-content', mountPath: '/extracted-catalog' },
        ],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        securityContext: { readOnlyRootFilesystem: true, ...dropAll },
      },
    ]);
    expect(spec.containers[0]).toMatchObject({
      name: 'registry-server',
      image: 'quay.io/operator-framework/opm:v1.50.0',
      command: ['/bin/opm'],
      args: ['serve', '/extracted-catalog/catalog', '--cache-dir=/extracted-catalog/cache'],
      volumeMounts: [{ name: 'catalog-content', mountPath: '/extracted-catalog' }],
      securityContext: { readOnlyRootFilesystem: true, ...dropAll },
    });

    // without a cache directory opm writes its cache to /tmp, given an emptyDir
    await imageCatalog('pods-legacy', 'extracted-nocache', { grpcPodConfig: { extractContent: { catalogDir: '/configs' } } });
    const noCache = specOf(await registryPodOf('pods-legacy', 'extracted-nocache'));
    expect(noCache.volumes).toContainEqual({ name: 'tmpdir', emptyDir: {} });
    expect(noCache.containers[0]).toMatchObject({
      args: ['serve', '/extracted-catalog/catalog'],
      volumeMounts: [
        { name: 'tmpdir', mountPath: '/tmp/' },
        { name: 'catalog-content', mountPath: '/extracted-catalog' },
      ],
    });
    expect(noCache.initContainers?.[1]?.args).toEqual(['--catalog.from=/configs', '--catalog.to=/extracted-catalog/catalog']);
  });
});
