import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  crdManifest,
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  groupSynced,
  historyUntil,
  useController,
  waitForPhase,
} from './helpers.js';

/**
 * upstream's OperatorGroup intersection rules (ReconcileAPIIntersection), each result in a static and a
 * non-static group, on the API server. Every test uses APIs of its own group, so groups of other tests
 * never intersect on them.
 */

const harness = useController();

interface Api {
  readonly crd: { name: string; version: string; kind: string };
  /** As `olm.providedAPIs` names it. */
  readonly key: string;
}

/** An API (`<kind>.v1.<group>`) whose CRD exists. */
async function api(kind: string, group: string): Promise<Api> {
  const plural = `${kind.toLowerCase()}s`;
  await harness.env.client.create(crdManifest(plural, group, kind));
  return { crd: { name: `${plural}.${group}`, version: 'v1', kind }, key: `${kind}.v1.${group}` };
}

async function group(namespace: string, spec: Record<string, unknown>, providedApis?: string) {
  await createNamespace(harness.env.client, namespace);
  await createOperatorGroup(harness.env.client, namespace, 'og', spec, providedApis === undefined ? undefined : { 'olm.providedAPIs': providedApis });
  await groupSynced(harness.env.client, namespace, 'og');
}

const providedApis = async (namespace: string) =>
  (await harness.env.client.get({ ...Kinds.operatorGroup, namespace, name: 'og' })).metadata?.annotations?.['olm.providedAPIs'];

const annotationIs = (namespace: string, value: string | undefined) =>
  eventually(async () => (await providedApis(namespace)) === value, { message: `${namespace} olm.providedAPIs = ${value}` });

const deployment = (namespace: string, name: string) => harness.env.client.find({ ...Kinds.deployment, namespace, name });

const sawCondition = (history: readonly string[], entry: string) => expect(history, history.join('\n')).toContain(entry);

describe('AddAPIs', () => {
  it('non-static: the group provides the union of its members’ APIs', async () => {
    const alpha = await api('Alpha', 'add.example.com');
    const beta = await api('Beta', 'add.example.com');
    await group('ia-add', { targetNamespaces: ['ia-add'] });
    await harness.env.client.create(csv({ namespace: 'ia-add', name: 'alpha.v1', ownedCrds: [alpha.crd] }));
    await waitForPhase(harness.env.client, 'ia-add', 'alpha.v1', 'Succeeded');
    expect(await providedApis('ia-add')).toBe(alpha.key);
    await harness.env.client.create(csv({ namespace: 'ia-add', name: 'beta.v1', ownedCrds: [beta.crd] }));
    await waitForPhase(harness.env.client, 'ia-add', 'beta.v1', 'Succeeded');
    expect(await providedApis('ia-add')).toBe(`${alpha.key},${beta.key}`);
  });

  it('static: CannotModifyStaticOperatorGroupProvidedAPIs, deployments removed, and recovery once the group lists the APIs', async () => {
    const gamma = await api('Gamma', 'static-add.example.com');
    const other = 'Other.v1.static-add.example.com';
    await group('ia-static-add', { targetNamespaces: ['ia-static-add'] });
    await harness.env.client.create(csv({ namespace: 'ia-static-add', name: 'gamma.v1', ownedCrds: [gamma.crd] }));
    await waitForPhase(harness.env.client, 'ia-static-add', 'gamma.v1', 'Succeeded');
    expect(await deployment('ia-static-add', 'gamma.v1-operator')).toBeDefined();

    // The group turns static without the CSV's API.
    await harness.env.client.patch(
      { ...Kinds.operatorGroup, namespace: 'ia-static-add', name: 'og' },
      { metadata: { annotations: { 'olm.providedAPIs': other } }, spec: { staticProvidedAPIs: true } },
    );
    const failed = await waitForPhase(harness.env.client, 'ia-static-add', 'gamma.v1', 'Failed', 'CannotModifyStaticOperatorGroupProvidedAPIs');
    expect(failed.status?.message).toBe('static provided api operatorgroup cannot be modified by these apis');
    await eventually(async () => !(await deployment('ia-static-add', 'gamma.v1-operator')), { message: 'deployment removed' });
    expect(await providedApis('ia-static-add')).toBe(other);

    // Not terminal: the admin lists the API in the static group.
    await harness.env.client.patch({ ...Kinds.operatorGroup, namespace: 'ia-static-add', name: 'og' }, { metadata: { annotations: { 'olm.providedAPIs': `${gamma.key},${other}` } } });
    const history = await historyUntil(harness.env.client, 'ia-static-add', 'gamma.v1', (current) => {
      const conditions = current.status?.conditions ?? [];
      return current.status?.phase === 'Succeeded' && conditions.some((condition) => condition.reason === 'CannotModifyStaticOperatorGroupProvidedAPIs');
    });
    sawCondition(history, 'Pending/RequirementsUnknown/static OperatorGroup and intersecting groups now support providedAPIs');
    expect(await deployment('ia-static-add', 'gamma.v1-operator')).toBeDefined();
    expect(await providedApis('ia-static-add')).toBe(`${gamma.key},${other}`);
  });
});

describe('RemoveAPIs', () => {
  it('non-static: an intersecting group claims the API, so the group drops it and the CSV fails InterOperatorGroupOwnerConflict until that group goes', async () => {
    const delta = await api('Delta', 'remove.example.com');
    await group('ia-rm-a', { targetNamespaces: ['ia-rm-a'] });
    await harness.env.client.create(csv({ namespace: 'ia-rm-a', name: 'delta.v1', ownedCrds: [delta.crd] }));
    await waitForPhase(harness.env.client, 'ia-rm-a', 'delta.v1', 'Succeeded');
    expect(await providedApis('ia-rm-a')).toBe(delta.key);

    // Another namespace's group targets ia-rm-a and claims Delta.
    await group('ia-rm-b', { targetNamespaces: ['ia-rm-a'], staticProvidedAPIs: true }, delta.key);
    const failed = await waitForPhase(harness.env.client, 'ia-rm-a', 'delta.v1', 'Failed', 'InterOperatorGroupOwnerConflict');
    expect(failed.status?.message).toBe('intersecting operatorgroups provide the same apis');
    // RemoveAPIs took it out of the group first (then the CSV no longer fit: APIConflict).
    expect(await providedApis('ia-rm-a')).toBeUndefined();
    await eventually(async () => !(await deployment('ia-rm-a', 'delta.v1-operator')), { message: 'deployment removed' });

    await harness.env.client.delete({ ...Kinds.operatorGroup, namespace: 'ia-rm-b', name: 'og' });
    const history = await historyUntil(harness.env.client, 'ia-rm-a', 'delta.v1', (current) => current.status?.phase === 'Succeeded');
    sawCondition(history, 'Pending/RequirementsUnknown/OperatorGroup no longer intersecting with conflicting owner');
    expect(await providedApis('ia-rm-a')).toBe(delta.key);
    expect(await deployment('ia-rm-a', 'delta.v1-operator')).toBeDefined();
  });

  it('static: CannotModifyStaticOperatorGroupProvidedAPIs until the intersecting group goes', async () => {
    const epsilon = await api('Epsilon', 'static-remove.example.com');
    await group('ia-srm-a', { targetNamespaces: ['ia-srm-a'], staticProvidedAPIs: true }, epsilon.key);
    await harness.env.client.create(csv({ namespace: 'ia-srm-a', name: 'epsilon.v1', ownedCrds: [epsilon.crd] }));
    await waitForPhase(harness.env.client, 'ia-srm-a', 'epsilon.v1', 'Succeeded');

    await group('ia-srm-b', { targetNamespaces: ['ia-srm-a'], staticProvidedAPIs: true }, epsilon.key);
    const failed = await waitForPhase(harness.env.client, 'ia-srm-a', 'epsilon.v1', 'Failed', 'CannotModifyStaticOperatorGroupProvidedAPIs');
    expect(failed.status?.message).toBe('static provided api operatorgroup cannot be modified by these apis');
    await eventually(async () => !(await deployment('ia-srm-a', 'epsilon.v1-operator')), { message: 'deployment removed' });
    expect(await providedApis('ia-srm-a')).toBe(epsilon.key);

    await harness.env.client.delete({ ...Kinds.operatorGroup, namespace: 'ia-srm-b', name: 'og' });
    const history = await historyUntil(harness.env.client, 'ia-srm-a', 'epsilon.v1', (current) => current.status?.phase === 'Succeeded');
    sawCondition(history, 'Pending/RequirementsUnknown/static OperatorGroup and intersecting groups now support providedAPIs');
    expect(await deployment('ia-srm-a', 'epsilon.v1-operator')).toBeDefined();
  });
});

describe('APIConflict', () => {
  it('non-static: a CSV providing an API an intersecting group provides fails InterOperatorGroupOwnerConflict; it recovers once the other provider goes', async () => {
    const zeta = await api('Zeta', 'conflict.example.com');
    await createNamespace(harness.env.client, 'ia-ac-shared');
    await group('ia-ac-b', { targetNamespaces: ['ia-ac-shared'] });
    await harness.env.client.create(csv({ namespace: 'ia-ac-b', name: 'zeta-b.v1', ownedCrds: [zeta.crd] }));
    await waitForPhase(harness.env.client, 'ia-ac-b', 'zeta-b.v1', 'Succeeded');
    await annotationIs('ia-ac-b', zeta.key);

    await group('ia-ac-a', { targetNamespaces: ['ia-ac-shared'] });
    await harness.env.client.create(csv({ namespace: 'ia-ac-a', name: 'zeta-a.v1', ownedCrds: [zeta.crd] }));
    const failed = await waitForPhase(harness.env.client, 'ia-ac-a', 'zeta-a.v1', 'Failed', 'InterOperatorGroupOwnerConflict');
    expect(failed.status?.message).toBe('intersecting operatorgroups provide the same apis');
    // It failed before installing anything, and did not get the API into its group.
    expect(await deployment('ia-ac-a', 'zeta-a.v1-operator')).toBeUndefined();
    expect(await providedApis('ia-ac-a')).toBeUndefined();
    expect((await getCsv(harness.env.client, 'ia-ac-b', 'zeta-b.v1'))?.status?.phase).toBe('Succeeded');

    // The other provider goes: its group prunes the API, and the conflicting CSV is requeued.
    await harness.env.client.delete({ ...Kinds.clusterServiceVersion, namespace: 'ia-ac-b', name: 'zeta-b.v1' });
    await annotationIs('ia-ac-b', undefined);
    const history = await historyUntil(harness.env.client, 'ia-ac-a', 'zeta-a.v1', (current) => current.status?.phase === 'Succeeded');
    sawCondition(history, 'Pending/RequirementsUnknown/OperatorGroup no longer intersecting with conflicting owner');
    expect(await providedApis('ia-ac-a')).toBe(zeta.key);
  });

  it('static: the conflict wins over the static rule, and the CSV keeps that reason until it fits the static group', async () => {
    const eta = await api('Eta', 'static-conflict.example.com');
    const other = 'Other.v1.static-conflict.example.com';
    await createNamespace(harness.env.client, 'ia-sac-shared');
    await createNamespace(harness.env.client, 'ia-sac-elsewhere');
    await group('ia-sac-b', { targetNamespaces: ['ia-sac-shared'] });
    await harness.env.client.create(csv({ namespace: 'ia-sac-b', name: 'eta-b.v1', ownedCrds: [eta.crd] }));
    await waitForPhase(harness.env.client, 'ia-sac-b', 'eta-b.v1', 'Succeeded');

    await group('ia-sac-a', { targetNamespaces: ['ia-sac-shared'], staticProvidedAPIs: true }, other);
    await harness.env.client.create(csv({ namespace: 'ia-sac-a', name: 'eta-a.v1', ownedCrds: [eta.crd] }));
    await waitForPhase(harness.env.client, 'ia-sac-a', 'eta-a.v1', 'Failed', 'InterOperatorGroupOwnerConflict');

    // The other group moves away: the CSV now only lacks its API in its static group, which (as upstream)
    // does not replace the InterOperatorGroupOwnerConflict reason.
    await harness.env.client.patch({ ...Kinds.operatorGroup, namespace: 'ia-sac-b', name: 'og' }, { spec: { targetNamespaces: ['ia-sac-elsewhere'] } });
    await eventually(async () => {
      const og = await harness.env.client.get<{ status?: { namespaces?: string[] } } & Record<string, unknown>>({ ...Kinds.operatorGroup, namespace: 'ia-sac-b', name: 'og' });
      return og.status?.namespaces?.[0] === 'ia-sac-elsewhere';
    }, { message: 'group moved' });
    await harness.env.client.patch({ ...Kinds.operatorGroup, namespace: 'ia-sac-a', name: 'og' }, { metadata: { annotations: { 'olm.providedAPIs': `${eta.key},${other}` } } });
    const history = await historyUntil(harness.env.client, 'ia-sac-a', 'eta-a.v1', (current) => current.status?.phase === 'Succeeded');
    sawCondition(history, 'Pending/RequirementsUnknown/OperatorGroup no longer intersecting with conflicting owner');
    expect(history.some((entry) => entry.includes('CannotModifyStaticOperatorGroupProvidedAPIs')), history.join('\n')).toBe(false);
  });
});

describe('NoAPIConflict', () => {
  it('non-static: a CSV whose APIs its group already provides, next to a group providing others, installs and changes nothing', async () => {
    const theta = await api('Theta', 'none.example.com');
    await createNamespace(harness.env.client, 'ia-none-shared');
    await group('ia-none-b', { targetNamespaces: ['ia-none-shared'], staticProvidedAPIs: true }, 'Iota.v1.none.example.com');
    await group('ia-none-a', { targetNamespaces: ['ia-none-shared'] }, theta.key);
    await harness.env.client.create(csv({ namespace: 'ia-none-a', name: 'theta.v1', ownedCrds: [theta.crd] }));
    const done = await waitForPhase(harness.env.client, 'ia-none-a', 'theta.v1', 'Succeeded');
    expect((done.status?.conditions ?? []).map((condition) => condition.phase)).not.toContain('Failed');
    expect(await providedApis('ia-none-a')).toBe(theta.key);
    expect(await providedApis('ia-none-b')).toBe('Iota.v1.none.example.com');
  });

  it('static: a CSV providing a subset of its static group’s APIs installs and the group keeps its list', async () => {
    const kappa = await api('Kappa', 'static-none.example.com');
    const listed = `${kappa.key},Lambda.v1.static-none.example.com`;
    await group('ia-snone', { targetNamespaces: ['ia-snone'], staticProvidedAPIs: true }, listed);
    await harness.env.client.create(csv({ namespace: 'ia-snone', name: 'kappa.v1', ownedCrds: [kappa.crd] }));
    await waitForPhase(harness.env.client, 'ia-snone', 'kappa.v1', 'Succeeded');
    expect(await providedApis('ia-snone')).toBe(listed);
  });
});

describe('olm.providedAPIs pruning', () => {
  it('drops APIs no member provides from a non-static group, never from a static one', async () => {
    const mu = await api('Mu', 'prune.example.com');
    const nu = await api('Nu', 'prune.example.com');
    const stale = 'Stale.v1.prune.example.com';
    await group('ia-prune', { targetNamespaces: ['ia-prune'] }, stale);
    await group('ia-prune-static', { targetNamespaces: ['ia-prune-static'], staticProvidedAPIs: true }, `${nu.key},${stale}`);
    await harness.env.client.create(csv({ namespace: 'ia-prune', name: 'mu.v1', ownedCrds: [mu.crd] }));
    await harness.env.client.create(csv({ namespace: 'ia-prune-static', name: 'nu.v1', ownedCrds: [nu.crd] }));
    await waitForPhase(harness.env.client, 'ia-prune', 'mu.v1', 'Succeeded');
    await waitForPhase(harness.env.client, 'ia-prune-static', 'nu.v1', 'Succeeded');
    // AddAPIs made it Mu + Stale; once no provider is pending, Stale is pruned.
    await annotationIs('ia-prune', mu.key);

    // Delete the static group's member first, then the other: the static group's sync ran before the
    // other group's (one worker, in order), and kept its list.
    await harness.env.client.delete({ ...Kinds.clusterServiceVersion, namespace: 'ia-prune-static', name: 'nu.v1' });
    await eventually(async () => !(await getCsv(harness.env.client, 'ia-prune-static', 'nu.v1')), { message: 'static member gone' });
    await harness.env.client.delete({ ...Kinds.clusterServiceVersion, namespace: 'ia-prune', name: 'mu.v1' });
    await annotationIs('ia-prune', undefined);
    expect(await providedApis('ia-prune-static')).toBe(`${nu.key},${stale}`);
  });
});
