import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, subscription, waitForSucceeded, type Json } from './kubectl-objects.js';
import { e2eUnavailableReason, eventually, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

// Operator scoping with OperatorGroups, as upstream documents it: an admin makes a ServiceAccount with
// rights in one namespace, names it in the OperatorGroup, and OLM installs there with those rights only.
const namespace = 'scoped';
const scopedNamespace = `
apiVersion: v1
kind: Namespace
metadata: {name: ${namespace}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: installer, namespace: ${namespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: installer, namespace: ${namespace}}
rules:
  - apiGroups: ['*']
    resources: ['*']
    verbs: ['*']
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: installer, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: installer}
subjects:
  - {kind: ServiceAccount, name: installer, namespace: ${namespace}}
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: ${namespace}, namespace: ${namespace}}
spec:
  targetNamespaces: [${namespace}]
  serviceAccountName: installer
`;

describe.skipIf(unavailable !== undefined)('end to end: a scoped install with kubectl against olm up', () => {
  let up: OlmUp;

  beforeAll(async () => {
    up = await startOlmUp();
  });
  afterAll(async () => {
    const code = await up?.stop();
    expect(code).toBe(0);
  });

  it('reports what the OperatorGroup\'s ServiceAccount may not do on the InstallPlan, and completes once an admin grants it', async () => {
    await up.kubectlOk(['apply', '-f', '-'], scopedNamespace + '---' + subscription(namespace, 'acme-database'));
    const plan = await eventually('the InstallPlan to report the refused step', async () => {
      const plans = ((await getJson(up, ['installplans', '-n', namespace]))?.items ?? []) as Json[];
      return plans.length === 1 && /forbidden/.test(plans[0]!.status?.message ?? '') ? plans[0] : undefined;
    });
    expect(plan.status.phase).toBe('Installing');
    expect(plan.status.attenuatedServiceAccountRef).toMatchObject({ kind: 'ServiceAccount', namespace, name: 'installer' });
    expect(plan.status.message).toMatch(
      /^retrying execution due to error: error creating clusterrole acme-database\.v1\.2\.0-\S+: clusterroles\.rbac\.authorization\.k8s\.io is forbidden: User "system:serviceaccount:scoped:installer" cannot create resource "clusterroles" in API group "rbac\.authorization\.k8s\.io" at the cluster scope$/,
    );
    // What kubectl shows a user, and nothing of the operator runs.
    const table = await up.kubectlOk(['get', 'csv', 'acme-database.v1.2.0', '-n', namespace, '-o', 'jsonpath={.status.phase}/{.status.reason}']);
    expect(table).toBe('Pending/RequirementsNotMet');
    expect((await up.kubectl(['get', 'deployment', 'acme-database-operator', '-n', namespace])).code).not.toBe(0);
    const canI = await up.kubectl(['auth', 'can-i', 'create', 'clusterroles', `--as=system:serviceaccount:${namespace}:installer`]);
    expect(canI.stdout.trim()).toBe('no');

    // The admin grants the cluster-wide RBAC the operator needs (escalate/bind: it may grant what it does not hold).
    await up.kubectlOk(['create', 'clusterrole', 'scoped-installer-clusterroles', '--verb=get,create,update,patch,escalate,bind', '--resource=clusterroles.rbac.authorization.k8s.io']);
    await up.kubectlOk(['create', 'clusterrole', 'scoped-installer-clusterrolebindings', '--verb=get,create,update,patch', '--resource=clusterrolebindings.rbac.authorization.k8s.io']);
    for (const role of ['scoped-installer-clusterroles', 'scoped-installer-clusterrolebindings']) {
      await up.kubectlOk(['create', 'clusterrolebinding', role, `--clusterrole=${role}`, `--serviceaccount=${namespace}:installer`]);
    }
    await waitForSucceeded(up, namespace, 'acme-database.v1.2.0');
    const done = (await getJson(up, ['installplan', plan.metadata.name, '-n', namespace]))!;
    expect(done.status.phase).toBe('Complete');
    expect(done.status.message).toBeUndefined();
    expect(await up.kubectlOk(['get', 'deployment', 'acme-database-operator', '-n', namespace, '-o', 'jsonpath={.metadata.labels.olm\\.owner}'])).toBe('acme-database.v1.2.0');
  }, 180_000);
});
