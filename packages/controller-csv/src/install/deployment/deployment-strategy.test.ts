import { describe, expect, it } from 'vitest';
import { buildDeployment, checkDeployment, deploymentSpecHashLabel, type StrategyDeployment } from './deployment-strategy.js';

const csv = {
  metadata: {
    name: 'etcdoperator.v0.9.4',
    namespace: 'operators',
    uid: 'csv-uid-1',
    annotations: {
      'olm.targetNamespaces': 'operators',
      'olm.operatorGroup': 'og',
      'kubectl.kubernetes.io/last-applied-configuration': '{"huge":true}',
    },
  },
};

const entry = (): StrategyDeployment => ({
  name: 'etcd-operator',
  label: { 'app.kubernetes.io/name': 'etcd-operator' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { name: 'etcd-operator' } },
    template: {
      metadata: { labels: { name: 'etcd-operator' }, annotations: { 'olm.targetNamespaces': 'stale', team: 'etcd' } },
      spec: {
        serviceAccountName: 'etcd-operator',
        containers: [
          {
            name: 'etcd-operator',
            image: 'quay.io/coreos/etcd-operator@sha256:1',
            env: [{ name: 'MY_POD_NAMESPACE', value: 'x' }, { name: 'LOG', value: 'info' }],
            volumeMounts: [{ name: 'certs', mountPath: '/certs' }],
          },
        ],
        volumes: [{ name: 'certs', secret: { secretName: 'old' } }],
        tolerations: [{ key: 'a', operator: 'Exists' }],
        affinity: { nodeAffinity: { x: 1 }, podAffinity: { y: 2 } },
      },
    },
  },
});

type Obj = Record<string, any>;

describe('building the deployment', () => {
  it('adds OLM labels, a non-blocking owner, the CSV annotations and OPERATOR_CONDITION_NAME', () => {
    const deployment = buildDeployment(csv, entry()) as Obj;
    expect(deployment.metadata.labels).toMatchObject({
      'app.kubernetes.io/name': 'etcd-operator',
      'olm.managed': 'true',
      'olm.owner': 'etcdoperator.v0.9.4',
      'olm.owner.namespace': 'operators',
      'olm.owner.kind': 'ClusterServiceVersion',
    });
    expect(deployment.metadata.labels[deploymentSpecHashLabel]).toMatch(/^[0-9a-zA-Z]+$/);
    expect(deployment.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        name: 'etcdoperator.v0.9.4',
        uid: 'csv-uid-1',
        controller: false,
        blockOwnerDeletion: false,
      },
    ]);
    expect(deployment.spec.template.metadata.annotations).toEqual({
      'olm.targetNamespaces': 'operators',
      'olm.operatorGroup': 'og',
      team: 'etcd',
    });
    expect(deployment.spec.revisionHistoryLimit).toBe(1);
    expect(deployment.spec.template.spec.containers[0].env.at(-1)).toEqual({
      name: 'OPERATOR_CONDITION_NAME',
      value: 'etcdoperator.v0.9.4',
    });
  });

  it('gives the same hash for the same input and a new hash when the config changes', () => {
    const a = buildDeployment(csv, entry()) as Obj;
    const b = buildDeployment(csv, entry()) as Obj;
    const c = buildDeployment(csv, entry(), { nodeSelector: { disk: 'ssd' } }) as Obj;
    expect(a.metadata.labels[deploymentSpecHashLabel]).toBe(b.metadata.labels[deploymentSpecHashLabel]);
    expect(c.metadata.labels[deploymentSpecHashLabel]).not.toBe(a.metadata.labels[deploymentSpecHashLabel]);
  });

  it('hashes and merges whatever order the keys of the CSV or the Subscription come in', () => {
    const reordered = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(reordered) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).reverse().map(([key, field]) => [key, reordered(field)])) : value;
    const a = buildDeployment(csv, entry()) as Obj;
    const b = buildDeployment(csv, reordered(entry()) as StrategyDeployment) as Obj;
    expect(b.metadata.labels[deploymentSpecHashLabel]).toBe(a.metadata.labels[deploymentSpecHashLabel]);
    // The bundle's toleration, written by the Subscription with its keys the other way round, is not added twice.
    const pod = (buildDeployment(csv, entry(), { tolerations: [{ operator: 'Exists', key: 'a' }] }) as Obj).spec.template.spec;
    expect(pod.tolerations).toEqual([{ key: 'a', operator: 'Exists' }]);
  });

  it('applies Subscription config overrides as upstream merges them', () => {
    const deployment = buildDeployment(csv, entry(), {
      env: [{ name: 'LOG', value: 'debug' }, { name: 'PROXY', value: 'http://proxy' }],
      envFrom: [{ secretRef: { name: 'license' } }, { secretRef: { name: 'license' } }],
      volumes: [{ name: 'certs', secret: { secretName: 'new' } }, { name: 'cache', emptyDir: {} }],
      volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
      tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }],
      resources: { limits: { memory: '1Gi' } },
      nodeSelector: { disk: 'ssd' },
      affinity: { podAffinity: {}, podAntiAffinity: { z: 3 } },
      annotations: { team: 'ignored', owner: 'platform' },
    }) as Obj;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.env.map((env: Obj) => `${env.name}=${env.value}`)).toEqual([
      'MY_POD_NAMESPACE=x',
      'LOG=debug',
      'OPERATOR_CONDITION_NAME=etcdoperator.v0.9.4',
      'PROXY=http://proxy',
    ]);
    expect(container.envFrom).toEqual([{ secretRef: { name: 'license' } }]);
    expect(container.volumeMounts.map((mount: Obj) => mount.name)).toEqual(['certs', 'cache']);
    expect(container.resources).toEqual({ limits: { memory: '1Gi' } });
    expect(pod.volumes).toEqual([{ name: 'certs', secret: { secretName: 'new' } }, { name: 'cache', emptyDir: {} }]);
    expect(pod.tolerations.map((toleration: Obj) => toleration.key)).toEqual(['a', 'b']);
    expect(pod.nodeSelector).toEqual({ disk: 'ssd' });
    expect(pod.affinity).toEqual({ nodeAffinity: { x: 1 }, podAntiAffinity: { z: 3 } });
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ team: 'etcd', owner: 'platform' });
    expect(deployment.metadata.annotations).toEqual({ team: 'ignored', owner: 'platform' });
  });

  it('removes all affinity with an empty override', () => {
    const deployment = buildDeployment(csv, entry(), { affinity: {} }) as Obj;
    expect(deployment.spec.template.spec.affinity).toBeUndefined();
  });

  it('does not modify the CSV strategy it was given', () => {
    const original = entry();
    const before = JSON.stringify(original);
    buildDeployment(csv, original, { env: [{ name: 'X', value: '1' }] });
    expect(JSON.stringify(original)).toBe(before);
  });
});

describe('checking deployment health', () => {
  const expected = buildDeployment(csv, entry());
  const live = (patch: { status?: Obj; metadata?: Obj; spec?: Obj } = {}): Obj => {
    const copy: Obj = structuredClone(expected);
    copy.metadata = { ...copy.metadata, generation: 1, ...patch.metadata };
    copy.spec = { ...copy.spec, ...patch.spec };
    copy.status = {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
      conditions: [{ type: 'Available', status: 'True' }],
      ...patch.status,
    };
    return copy;
  };

  it('is healthy when rolled out with matching annotations and hash', () => {
    expect(checkDeployment(expected, live())).toEqual({ healthy: true });
  });

  it.each([
    { name: 'missing', deployment: undefined, reason: 'ComponentMissing', message: 'missing deployment with name=etcd-operator' },
    { name: 'not observed yet', deployment: live({ metadata: { generation: 2 } }), reason: 'Waiting', message: /to be observed/ },
    { name: 'still updating', deployment: live({ status: { updatedReplicas: 0 } }), reason: 'Waiting', message: /0 out of 1 new replicas have been updated/ },
    { name: 'old replicas left', deployment: live({ status: { replicas: 2 } }), reason: 'Waiting', message: /1 old replicas are pending termination/ },
    { name: 'not available', deployment: live({ status: { availableReplicas: 0, conditions: [] } }), reason: 'Waiting', message: /0 of 1 updated replicas are available/ },
  ])('$name → $reason', ({ deployment, reason, message }) => {
    const status = checkDeployment(expected, deployment);
    expect(status.healthy).toBe(false);
    expect(status.reason).toBe(reason);
    expect(status.message).toMatch(message as string | RegExp);
  });

  it('reports a deployment past its progress deadline as unrecoverable', () => {
    const status = checkDeployment(
      expected,
      live({ status: { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] } }),
    );
    expect(status).toMatchObject({ healthy: false, reason: 'Timeout', unrecoverable: true });
  });

  it('detects annotations removed from the pod template', () => {
    const deployment = live();
    delete deployment.spec.template.metadata.annotations['olm.operatorGroup'];
    expect(checkDeployment(expected, deployment)).toMatchObject({ reason: 'AnnotationsMissing' });
  });

  it('detects a spec that no longer matches what OLM would apply', () => {
    const newer = buildDeployment(csv, entry(), { env: [{ name: 'X', value: '1' }] });
    const status = checkDeployment(newer, live());
    expect(status.reason).toBe('DeploymentUpdated');
    expect(status.message).toBe(
      `deployment changed old hash=${expected.metadata.labels[deploymentSpecHashLabel]}, new hash=${newer.metadata.labels[deploymentSpecHashLabel]}`,
    );
  });
});
