/**
 * Scenario table: each `test/cases/<name>/input.json` (a CSV, its OperatorGroup, the CRDs/APIServices
 * and copied CSVs) against `expected.json` (every object each generator method returns). Rewrite the
 * expectations after a deliberate change with `UPDATE_RBAC_CASES=1`, then review the diff.
 *
 * Besides exact equality, every case checks the invariant that matters most: nothing grants more than
 * the CSV asks for, plus the namespaces view of lifted roles and the documented aggregation roles.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createRbacGenerator, namespaceViewRule, readInstallPermissions } from '../src/index.js';
import { expectedSha224Base62 } from './support.js';

interface CaseInput {
  readonly description: string;
  readonly csv: KubeObject;
  readonly operatorGroup: KubeObject;
  readonly crds?: KubeObject[];
  readonly apiServices?: KubeObject[];
  readonly copiedCsvs?: KubeObject[];
}

type Rules = readonly Record<string, unknown>[];
type Generated = KubeObject & { rules?: Rules; roleRef?: { kind: string; name: string }; subjects?: { name: string; namespace: string }[] };

const casesDir = join(import.meta.dirname, 'cases');
const generator = createRbacGenerator();

function generateAll(input: CaseInput) {
  return {
    permissionsForCsv: generator.permissionsForCsv({ csv: input.csv }),
    permissionsForOperatorGroup: generator.permissionsForOperatorGroup({
      csv: input.csv,
      operatorGroup: input.operatorGroup,
      ...(input.copiedCsvs ? { copiedCsvs: input.copiedCsvs } : {}),
    }),
    operatorGroupClusterRoles: generator.operatorGroupClusterRoles({ operatorGroup: input.operatorGroup }),
    providedApiClusterRoles: generator.providedApiClusterRoles({
      csv: input.csv,
      ...(input.crds ? { crds: input.crds } : {}),
      ...(input.apiServices ? { apiServices: input.apiServices } : {}),
    }),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe.each(readdirSync(casesDir).sort())('scenario %s', (name) => {
  const input = JSON.parse(readFileSync(join(casesDir, name, 'input.json'), 'utf8')) as CaseInput;
  const actual = generateAll(input);
  const expectedPath = join(casesDir, name, 'expected.json');
  // Expectations are written only on request, so a scenario without one fails instead of passing on its own output.
  if (process.env.UPDATE_RBAC_CASES === '1') writeFileSync(expectedPath, `${JSON.stringify(actual, null, 2)}\n`);

  it(`generates exactly the expected objects (${input.description})`, () => {
    expect(existsSync(expectedPath), `${expectedPath} is missing: run with UPDATE_RBAC_CASES=1 and review it`).toBe(true);
    expect(JSON.parse(JSON.stringify(actual))).toEqual(JSON.parse(readFileSync(expectedPath, 'utf8')));
  });

  it('never grants more than the CSV asks for', () => {
    const { permissions, clusterPermissions } = readInstallPermissions(input.csv);
    const namespace = input.csv.metadata.namespace!;
    const asked = (list: typeof permissions, rules: Rules | undefined, serviceAccount: string | undefined) =>
      list.some((entry) => same(entry.rules ?? [], rules) && (serviceAccount === undefined || entry.serviceAccountName === serviceAccount));
    const objects = actual.permissionsForCsv as Generated[];
    const byName = new Map(objects.map((object) => [`${object.kind}/${object.metadata.name}`, object]));
    for (const object of objects) {
      expect((object.metadata.name ?? '').length).toBeLessThanOrEqual(63);
      if (object.kind === 'Role') expect(asked(permissions, object.rules, undefined)).toBe(true);
      if (object.kind === 'ClusterRole') expect(asked(clusterPermissions, object.rules, undefined)).toBe(true);
      if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') {
        const role = byName.get(`${object.roleRef!.kind}/${object.roleRef!.name}`);
        expect(object.subjects).toHaveLength(1);
        expect(object.subjects![0]!.namespace).toBe(namespace);
        const list = object.kind === 'RoleBinding' ? permissions : clusterPermissions;
        expect(asked(list, role?.rules, object.subjects![0]!.name)).toBe(true);
      }
    }
    for (const object of actual.permissionsForOperatorGroup as Generated[]) {
      if (object.kind === 'ClusterRole') {
        expect(same(object.rules!.at(-1), namespaceViewRule)).toBe(true);
        expect(asked(permissions, object.rules!.slice(0, -1), undefined)).toBe(true);
      }
      if (object.kind === 'Role') expect(asked(permissions, object.rules, undefined)).toBe(true);
    }
    for (const object of actual.operatorGroupClusterRoles as Generated[]) expect(object.rules).toBeUndefined();
    for (const object of actual.providedApiClusterRoles as Generated[]) {
      expect(object.rules).toHaveLength(1);
      const [rule] = object.rules as [{ apiGroups: string[]; resources: string[]; resourceNames?: string[] }];
      const crdView = same(rule.resources, ['customresourcedefinitions']) && rule.resourceNames?.length === 1;
      expect(crdView || object.metadata.name!.startsWith(`${rule.resources[0]}.${rule.apiGroups[0]}-`) || object.metadata.name!.startsWith(`${rule.resources[0]}-`)).toBe(true);
    }
  });

  it('names group roles as upstream and joins every per-API role to its group role', () => {
    const { name: groupName, namespace } = input.operatorGroup.metadata as { name: string; namespace: string };
    const selectorKeys = new Map<string, string[]>();
    for (const [index, suffix] of ['admin', 'edit', 'view'].entries()) {
      const role = actual.operatorGroupClusterRoles[index] as Generated & {
        aggregationRule?: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] };
      };
      const hash = expectedSha224Base62(`${namespace}/${groupName}/${suffix}`);
      expect(role.metadata.name).toBe(`olm.og.${groupName.slice(0, 253 - 9 - suffix.length - hash.length)}.${suffix}-${hash}`);
      selectorKeys.set(suffix, (role.aggregationRule?.clusterRoleSelectors ?? []).flatMap((selector) => Object.keys(selector.matchLabels)));
    }
    for (const role of actual.providedApiClusterRoles as Generated[]) {
      const labels = (role.metadata as { labels: Record<string, string> }).labels;
      const [key] = Object.keys(labels).filter((label) => label.startsWith('olm.opgroup.permissions/'));
      const suffix = key!.slice(key!.lastIndexOf('-') + 1);
      expect(labels[`rbac.authorization.k8s.io/aggregate-to-${suffix}`]).toBe('true');
      expect(selectorKeys.get(suffix)).toContain(key);
    }
  });
});
