import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

let server: ApiServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const deployment = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers, ...extra } } },
});

describe('built-in kinds are decoded and validated as kube-apiserver does', () => {
  it('refuses values of the wrong type with Go decoding errors (400)', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' }, data: { key: { nested: true } } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ConfigMap.data of type string'],
      ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'c', labels: { app: 7 } } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
      ['/apis/apps/v1/namespaces/default/deployments', deployment([{ name: 5, image: 'x' }]), 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.name of type string'],
      ['/apis/apps/v1/namespaces/default/deployments', { ...deployment([]), spec: { replicas: 'two' } }, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
      ['/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'r' }, rules: { verbs: ['get'] } }, 'ClusterRole in version "v1" cannot be handled as a ClusterRole: json: cannot unmarshal object into Go struct field ClusterRole.rules of type []v1.PolicyRule'],
    ];
    for (const [path, body, message] of cases) {
      const response = await call(server, 'POST', path, body);
      expect(response.status, message).toBe(400);
      expect(response.body.message).toBe(message);
    }
  });

  it('refuses invalid pod templates with kube-apiserver field errors (422)', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const cases: Array<[unknown, string]> = [
      [deployment([]), 'spec.template.spec.containers: Required value'],
      [deployment([{ image: 'nginx' }]), 'spec.template.spec.containers[0].name: Required value'],
      [deployment([{ name: 'Web', image: 'nginx' }]), 'spec.template.spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of'],
      [deployment([{ name: 'web', image: 'nginx' }, { name: 'web', image: 'nginx' }]), 'spec.template.spec.containers[1].name: Duplicate value: "web"'],
      [deployment([{ name: 'web' }]), 'spec.template.spec.containers[0].image: Required value'],
      [deployment([{ name: 'web', image: 'nginx', ports: [{ containerPort: 70000 }] }]), 'spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'],
      [deployment([{ name: 'web', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }]), 'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    ];
    for (const [body, message] of cases) {
      const response = await call(server, 'POST', path, body);
      expect(response.status, message).toBe(422);
      expect(response.body.message).toContain(`Deployment.apps "web" is invalid: ${message}`);
    }
    const valid = await call(server, 'POST', path, deployment([{ name: 'web', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], { volumes: [{ name: 'data', emptyDir: {} }] }));
    expect(valid.status).toBe(201);
  });

  it('refuses RBAC rules, role references and subjects kube-apiserver refuses', async () => {
    const role = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'] }] });
    expect(role.status).toBe(422);
    expect(role.body.message).toBe('Role.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: verbs must contain at least one value');
    const binding = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'default' }],
    });
    expect(binding.status).toBe(422);
    expect(binding.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual(['roleRef.kind', 'subjects[0].namespace']);
  });
});
