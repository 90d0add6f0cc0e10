import type { KubeObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { makeCsv, makeOperatorGroup } from '../test/support.js';
import { generateCsvPermissions } from './csv-permissions.js';
import { generateOperatorGroupPermissions } from './operator-group-permissions.js';
import { upstreamOwnership } from './ownership.js';

const csv = makeCsv({ uid: 'csv-uid', permissions: [{ serviceAccountName: 'operator', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }] });

const labelsOf = (object: KubeObject) => (object.metadata.labels ?? {}) as Record<string, string>;

/** Whether `object`'s labels match a selector of `key=value` terms, as the API server would match them. */
function matches(selector: string, object: KubeObject): boolean {
  const labels = labelsOf(object);
  return selector.split(',').every((term) => {
    const [key, value] = term.split('=');
    return labels[key!] === value;
  });
}

describe('upstreamOwnership', () => {
  it("names the CSV that upstream's labels name, on its own objects and on copies", () => {
    const [, role] = generateCsvPermissions(csv);
    expect(upstreamOwnership.ownerOf(labelsOf(role!))).toEqual({ kind: 'ClusterServiceVersion', name: csv.metadata.name, namespace: csv.metadata.namespace });
    const copy = generateOperatorGroupPermissions({ csv, operatorGroup: makeOperatorGroup({ namespaces: ['team-a'] }) }).find((object) => object.kind === 'Role')!;
    expect(upstreamOwnership.ownerOf(labelsOf(copy))).toMatchObject({ kind: 'ClusterServiceVersion', name: csv.metadata.name, copiedFrom: csv.metadata.namespace });
    expect(upstreamOwnership.ownerOf({ 'olm.owner': 'x', 'olm.owner.kind': 'Deployment' })).toBeUndefined();
    expect(upstreamOwnership.ownerOf({})).toBeUndefined();
  });

  it('selects the objects made for an owner, and with `copies` only the copies', () => {
    const owner = { kind: 'ClusterServiceVersion' as const, name: csv.metadata.name!, namespace: csv.metadata.namespace! };
    const [, role] = generateCsvPermissions(csv);
    const copy = generateOperatorGroupPermissions({ csv, operatorGroup: makeOperatorGroup({ namespaces: ['team-a'] }) }).find((object) => object.kind === 'Role')!;
    expect(upstreamOwnership.selector(owner)).toBe(`olm.owner=${owner.name},olm.owner.namespace=${owner.namespace},olm.owner.kind=ClusterServiceVersion`);
    expect(matches(upstreamOwnership.selector(owner), role!)).toBe(true);
    expect(matches(upstreamOwnership.selector(owner, { copies: true }), role!)).toBe(false);
    expect(matches(upstreamOwnership.selector(owner, { copies: true }), copy)).toBe(true);
    expect(upstreamOwnership.labelKeys).toEqual(['olm.owner', 'olm.owner.namespace', 'olm.owner.kind', 'olm.copiedFrom']);
  });
});
