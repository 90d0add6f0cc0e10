/**
 * Test helpers that recompute hashes independently of the code under test (a different base-62
 * routine over Node's digest), so expected names in tests are not produced by the implementation.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '@olm/core';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** base62(sha224(text)) by repeated division of a hex BigInt. */
export function expectedSha224Base62(text: string): string {
  let value = BigInt(`0x${createHash('sha224').update(text).digest('hex')}`);
  const digits: string[] = [];
  do {
    digits.unshift(alphabet.charAt(Number(value % 62n)));
    value /= 62n;
  } while (value > 0n);
  return digits.join('');
}

/** A CSV as plain data, with a deployment install strategy. */
export function makeCsv(options: {
  name?: string;
  namespace?: string;
  uid?: string;
  permissions?: unknown;
  clusterPermissions?: unknown;
  spec?: Record<string, unknown>;
}): KubeObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: options.name ?? 'etcdoperator.v0.9.4',
      namespace: options.namespace ?? 'operators',
      ...(options.uid === undefined ? {} : { uid: options.uid }),
    },
    spec: {
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [],
          ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
          ...(options.clusterPermissions === undefined ? {} : { clusterPermissions: options.clusterPermissions }),
        },
      },
      ...options.spec,
    },
  };
}

export function makeOperatorGroup(options: { name?: string; namespace?: string; uid?: string; namespaces?: string[]; providedApis?: string }): KubeObject {
  return {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: {
      name: options.name ?? 'global-operators',
      namespace: options.namespace ?? 'operators',
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.providedApis === undefined ? {} : { annotations: { 'olm.providedAPIs': options.providedApis } }),
    },
    spec: {},
    ...(options.namespaces === undefined ? {} : { status: { namespaces: options.namespaces } }),
  };
}

/** `<base>-<hash>` with hash = base62(sha224(json + "\n")), base cut so the name has at most 63 characters. */
export function expectedGeneratedName(base: string, goJsonText: string): string {
  const hash = expectedSha224Base62(`${goJsonText}\n`);
  return `${base.slice(0, Math.min(base.length, 62 - hash.length))}-${hash}`;
}

/** The `olm.permissions.hash` of a binding of `roleRef` to one service account (Go JSON written by hand). */
export function expectedBindingHash(kind: string, name: string, serviceAccount: string, namespace: string): string {
  return expectedSha224Base62(
    `{"RoleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"${kind}","name":"${name}"},"Subjects":[{"kind":"ServiceAccount","name":"${serviceAccount}","namespace":"${namespace}"}]}`,
  );
}
