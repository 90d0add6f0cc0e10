// Generation time for realistic inputs: a CSV with many permissions, lifting and copying for groups,
// group ClusterRoles with many APIs, per-API roles. Prints one JSON line per case.
// Run `pnpm build` first: this imports the built package.
import { createRbacGenerator } from '../dist/index.js';

const generator = createRbacGenerator();
const rule = (index) => ({ apiGroups: [`g${index}.example.com`], resources: [`things${index}`, `things${index}/status`], verbs: ['get', 'list', 'watch', 'update'] });
const crds = Array.from({ length: 20 }, (_, index) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `things${index}.g${index}.example.com`, uid: `uid-${index}` },
}));
const csv = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'bench-operator.v1.0.0', namespace: 'operators', uid: 'csv-uid' },
  spec: {
    install: {
      strategy: 'deployment',
      spec: {
        permissions: Array.from({ length: 10 }, (_, sa) => ({ serviceAccountName: `sa-${sa}`, rules: Array.from({ length: 20 }, (_, r) => rule(r)) })),
        clusterPermissions: Array.from({ length: 5 }, (_, sa) => ({ serviceAccountName: `sa-${sa}`, rules: Array.from({ length: 20 }, (_, r) => rule(r)) })),
      },
    },
    customresourcedefinitions: { owned: crds.map((crd, index) => ({ name: crd.metadata.name, version: 'v1', kind: `Thing${index}` })) },
  },
};
const group = (namespaces) => ({
  apiVersion: 'operators.coreos.com/v1',
  kind: 'OperatorGroup',
  metadata: { name: 'og', namespace: 'operators' },
  status: { namespaces },
});
const apis = Array.from({ length: 200 }, (_, index) => `Thing${index}.v1.g${index}.example.com`);
const targets = Array.from({ length: 20 }, (_, index) => `team-${index}`);

function measure(name, iterations, run) {
  for (let index = 0; index < Math.min(iterations, 50); index += 1) run();
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) run();
  const elapsedNs = Number(process.hrtime.bigint() - start);
  console.log(JSON.stringify({ case: name, iterations, meanMicros: Math.round(elapsedNs / iterations / 10) / 100 }));
}

measure('csv-permissions-10sa-150rules', 200, () => generator.permissionsForCsv({ csv }));
measure('lift-all-namespaces', 200, () => generator.permissionsForOperatorGroup({ csv, operatorGroup: group(['']) }));
measure('copy-20-namespaces', 50, () => generator.permissionsForOperatorGroup({ csv, operatorGroup: group(targets) }));
measure('group-cluster-roles-200-apis', 200, () => generator.operatorGroupClusterRoles({ operatorGroup: group(['']), providedApis: apis }));
measure('provided-api-roles-20-crds', 500, () => generator.providedApiClusterRoles({ csv, crds }));
