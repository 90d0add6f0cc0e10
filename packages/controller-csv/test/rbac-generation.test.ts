import { isDeepStrictEqual } from 'node:util';
import type { RbacGenerator } from '@olm/core';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  groupSynced,
  installPermissions,
  sleep,
  useController,
  waitForPhase,
  type RbacObject,
} from './helpers.js';

/** The real generator, counting how often the controller asks it for a CSV's target-namespace RBAC. */
function countingGenerator(): RbacGenerator & { calls: Map<string, number> } {
  const real = createRbacGenerator();
  const calls = new Map<string, number>();
  return {
    name: real.name,
    ownership: real.ownership,
    calls,
    permissionsForCsv: (input) => real.permissionsForCsv(input),
    operatorGroupClusterRoles: (input) => real.operatorGroupClusterRoles(input),
    providedApiClusterRoles: (input) => real.providedApiClusterRoles(input),
    policyRulesHash: (rules) => real.policyRulesHash(rules),
    roleBindingHash: (...args: Parameters<RbacGenerator['roleBindingHash']>) => real.roleBindingHash(...args),
    permissionsForOperatorGroup(input) {
      const key = `${input.csv.metadata.namespace}/${input.csv.metadata.name}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      return real.permissionsForOperatorGroup(input);
    },
  };
}

const generator = countingGenerator();
const harness = useController({}, { rbacGenerator: generator });

/** The count once it has not moved for a while (the CSV and its copies have settled). */
async function settledCount(key: string): Promise<number> {
  let last = -1;
  for (;;) {
    const now = generator.calls.get(key) ?? 0;
    if (now === last) return now;
    last = now;
    await sleep(700);
  }
}

/** A CSV in `namespace` whose group targets `target`, with the permissions an InstallPlan made; the name of its Role. */
async function installWithTarget(namespace: string, target: string, name: string): Promise<string> {
  const { client } = harness.env;
  await createNamespace(client, target);
  await createNamespace(client, namespace);
  await createOperatorGroup(client, namespace, 'og', { targetNamespaces: [target] });
  await groupSynced(client, namespace, 'og');
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace, name: 'operator' } });
  await client.create(csv({ namespace, name, serviceAccounts: ['operator'] }));
  return (await installPermissions(client, namespace, name)).find((object) => object.kind === 'Role')!.metadata!.name!;
}

describe('RBAC generation across syncs', () => {
  it('repairs a deleted copy without generating again, and generates again when the CSV changes', async () => {
    const { client } = harness.env;
    const roleName = await installWithTarget('gen-op', 'gen-target', 'gen.v1');
    await waitForPhase(client, 'gen-op', 'gen.v1', 'Succeeded');
    const copy = { ...Kinds.role, namespace: 'gen-target', name: roleName };
    await eventually(() => client.find(copy), { message: 'the Role copied into the target namespace' });
    const before = await settledCount('gen-op/gen.v1');
    expect(before).toBeGreaterThan(0);

    // Drift: the copy goes. The controller puts it back from what it generated before.
    await client.delete(copy);
    const restored = await eventually(() => client.find<RbacObject>(copy), { message: 'the deleted copy restored' });
    expect(restored.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    expect(await settledCount('gen-op/gen.v1')).toBe(before);

    // A new spec is a new input: generated again, and the copy follows the new rules.
    const live = await client.get<{ spec: { install: { spec: { permissions: Array<{ rules: unknown }> } } } } & RbacObject>({
      ...Kinds.clusterServiceVersion,
      namespace: 'gen-op',
      name: 'gen.v1',
    });
    const wider = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];
    live.spec.install.spec.permissions[0]!.rules = wider;
    await client.replace(live);
    const newName = (await installPermissions(client, 'gen-op', 'gen.v1')).find((object) => object.kind === 'Role')!.metadata!.name!;
    const newCopy = await eventually(() => client.find<RbacObject>({ ...Kinds.role, namespace: 'gen-target', name: newName }), {
      message: 'the copy of the new Role',
    });
    expect(newCopy.rules).toEqual(wider);
    expect(generator.calls.get('gen-op/gen.v1')).toBeGreaterThan(before);
  });

  it('puts back a copy someone edited (the watch event of the edit brings the controller back)', async () => {
    const { client } = harness.env;
    const roleName = await installWithTarget('gen-edit', 'gen-edit-target', 'edit.v1');
    const copy = { ...Kinds.role, namespace: 'gen-edit-target', name: roleName };
    await eventually(() => client.find(copy), { message: 'the copy' });

    // Someone widens the copy; the watch event of that edit brings the controller back to narrow it.
    await client.patch(copy, { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
    await eventually(
      async () => {
        const live = await client.find<RbacObject>(copy);
        return isDeepStrictEqual(live?.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]) ? live : undefined;
      },
      { message: 'the edited copy put back' },
    );
  });
});
