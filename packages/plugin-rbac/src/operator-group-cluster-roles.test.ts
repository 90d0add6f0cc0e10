import { describe, expect, it } from 'vitest';
import { expectedSha224Base62, makeOperatorGroup } from '../test/support.js';
import { generateOperatorGroupClusterRoles } from './operator-group-cluster-roles.js';
import { fnv64aHex } from './hash.js';

const labels = {
  'olm.owner': 'global-operators',
  'olm.owner.namespace': 'operators',
  'olm.owner.kind': 'OperatorGroup',
  'olm.managed': 'true',
};
const name = (suffix: string) => `olm.og.global-operators.${suffix}-${expectedSha224Base62(`operators/global-operators/${suffix}`)}`;

describe('generateOperatorGroupClusterRoles', () => {
  it('generates admin, edit and view with one sorted selector per provided API', () => {
    const apis = ['EtcdCluster.v1beta2.etcd.database.coreos.com', 'EtcdBackup.v1beta2.etcd.database.coreos.com'];
    const hashes = apis.map((api) => fnv64aHex(api));
    const roles = generateOperatorGroupClusterRoles({ operatorGroup: makeOperatorGroup({}), providedApis: apis });
    expect(roles).toEqual(
      ['admin', 'edit', 'view'].map((suffix) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: name(suffix), labels },
        aggregationRule: {
          clusterRoleSelectors: hashes
            .map((hash) => `olm.opgroup.permissions/aggregate-to-${hash}-${suffix}`)
            .sort()
            .map((key) => ({ matchLabels: { [key]: 'true' } })),
        },
      })),
    );
  });

  it('has no aggregation rule (and never rules) when the group provides no API', () => {
    expect(generateOperatorGroupClusterRoles({ operatorGroup: makeOperatorGroup({}) })).toEqual(
      ['admin', 'edit', 'view'].map((suffix) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: name(suffix), labels },
      })),
    );
  });

  it('reads the olm.providedAPIs annotation leniently by default', () => {
    const operatorGroup = makeOperatorGroup({ providedApis: 'Foo.v1.example.com, Bar.v1alpha1.example.com,broken,Foo.v1.example.com' });
    const [admin] = generateOperatorGroupClusterRoles({ operatorGroup });
    const keys = (admin?.aggregationRule?.clusterRoleSelectors ?? []).map((selector) => Object.keys(selector.matchLabels)[0]);
    expect(keys).toEqual(
      [fnv64aHex('Bar.v1alpha1.example.com'), fnv64aHex('Foo.v1.example.com')].map((hash) => `olm.opgroup.permissions/aggregate-to-${hash}-admin`).sort(),
    );
  });
  it('names the roles by the group alone (namespace and name), whatever APIs it provides, as the contract promises', () => {
    const names = (providedApis: string[]) => generateOperatorGroupClusterRoles({ operatorGroup: makeOperatorGroup({}), providedApis }).map((role) => role.metadata.name);
    expect(names([])).toEqual(['admin', 'edit', 'view'].map(name));
    expect(names(['EtcdCluster.v1beta2.etcd.database.coreos.com'])).toEqual(names([]));
  });
});
