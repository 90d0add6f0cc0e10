/**
 * Bad input never crashes: every generator method either returns objects or throws an `OlmError` with
 * an `OLM_RBAC_*` code, whatever shape the CSV, OperatorGroup or API objects have.
 */
import { hasErrorCode, type KubeObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createRbacGenerator } from '../src/index.js';
import { makeCsv, makeOperatorGroup } from './support.js';

const generator = createRbacGenerator();
const weird: unknown[] = [undefined, null, 0, 'x', [], {}, [null], [{}], { owned: 'x' }, { serviceAccountName: 1 }];

function csvVariants(): unknown[] {
  const variants: unknown[] = [null, {}, { metadata: null }, { metadata: { name: 'x' } }, makeCsv({ spec: { install: null } })];
  for (const value of weird) {
    variants.push(makeCsv({ permissions: value }), makeCsv({ clusterPermissions: value }));
    variants.push(makeCsv({ permissions: [{ serviceAccountName: 'sa', rules: value }] }));
    variants.push(makeCsv({ permissions: [{ serviceAccountName: 'sa', rules: [value] }] }));
    variants.push(makeCsv({ permissions: [{ serviceAccountName: 'sa', rules: [{ verbs: value, apiGroups: value, resources: value }] }] }));
    variants.push(makeCsv({ spec: { customresourcedefinitions: value, apiservicedefinitions: value } }));
    variants.push(makeCsv({ spec: { customresourcedefinitions: { owned: [value] }, apiservicedefinitions: { owned: [value] } } }));
    variants.push({ ...makeCsv({}), spec: { install: { strategy: 'deployment', spec: value } } });
  }
  return variants;
}

function expectNoCrash(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(hasErrorCode(error) && error.code.startsWith('OLM_RBAC_'), String(error)).toBe(true);
  }
}

describe('bad input', () => {
  it('yields objects or an OLM_RBAC_* error, never a crash', () => {
    const groups: unknown[] = [null, {}, makeOperatorGroup({ namespaces: [''] }), makeOperatorGroup({ namespaces: ['a', 'b'] })];
    for (const value of weird) groups.push({ ...makeOperatorGroup({}), status: { namespaces: value } }, { ...makeOperatorGroup({}), metadata: { name: 'og', namespace: 'ns', annotations: value } });
    for (const csv of csvVariants()) {
      expectNoCrash(() => generator.permissionsForCsv({ csv: csv as KubeObject }));
      expectNoCrash(() => generator.providedApiClusterRoles({ csv: csv as KubeObject, crds: [], apiServices: [] }));
      for (const operatorGroup of groups) {
        expectNoCrash(() => generator.permissionsForOperatorGroup({ csv: csv as KubeObject, operatorGroup: operatorGroup as KubeObject }));
      }
    }
    for (const operatorGroup of groups) {
      expectNoCrash(() => generator.operatorGroupClusterRoles({ operatorGroup: operatorGroup as KubeObject }));
      expectNoCrash(() => generator.operatorGroupClusterRoles({ operatorGroup: operatorGroup as KubeObject, providedApis: ['', '..', 'a.b.c'] }));
    }
  });
});
