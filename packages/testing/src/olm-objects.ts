import type { CachedObject, KubeClient } from '@olm/core';
import { isAlreadyExists } from '@olm/controller-runtime';

/** An object as tests build and read it: any fields beside the metadata. */
export type TestObject = CachedObject & Record<string, unknown>;

/** Creates a namespace; one that already exists is left as it is. */
export async function createNamespace(client: KubeClient, name: string, labels?: Record<string, string>): Promise<void> {
  await createUnlessExists(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } });
}

/** Creates an object; one of the same name that already exists is left as it is. */
export async function createUnlessExists(client: KubeClient, object: CachedObject): Promise<void> {
  try {
    await client.create(object);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** An OperatorGroup; by default it targets its own namespace (OwnNamespace). */
export function operatorGroup(namespace: string, name: string, spec: Record<string, unknown> = { targetNamespaces: [namespace] }, annotations?: Record<string, string>): TestObject {
  return {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec,
  };
}

export interface OperatorNamespaceOptions {
  /** The OperatorGroup's name; default the namespace's. */
  readonly groupName?: string;
  /** The OperatorGroup's spec; default OwnNamespace. */
  readonly spec?: Record<string, unknown>;
  readonly annotations?: Record<string, string>;
}

/** A namespace with an OperatorGroup in it, where operators can be subscribed. */
export async function createOperatorNamespace(client: KubeClient, namespace: string, options: OperatorNamespaceOptions = {}): Promise<void> {
  await createNamespace(client, namespace);
  await client.create(operatorGroup(namespace, options.groupName ?? namespace, options.spec, options.annotations));
}

/** A CatalogSource served by a gRPC registry at `address` (host:port). */
export function grpcCatalogSource(
  namespace: string,
  name: string,
  address: string,
  extra: { readonly labels?: Record<string, string>; readonly spec?: Record<string, unknown> } = {},
): TestObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name, namespace, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: { sourceType: 'grpc', address, ...extra.spec },
  };
}

/**
 * A Subscription to the package named like it (or `spec.name`) from the `acme-examples` catalog in
 * `olm`, channel `stable`, approved automatically; `spec` overrides any of these.
 */
export function subscription(namespace: string, name: string, spec: Record<string, unknown> = {}): TestObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name, namespace },
    spec: { source: 'acme-examples', sourceNamespace: 'olm', channel: 'stable', installPlanApproval: 'Automatic', ...spec, name: spec['name'] ?? name },
  };
}

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The `status.conditions` entry of this type, if the object has one. */
export function condition(object: CachedObject | undefined, type: string): Condition | undefined {
  const status = (object as { status?: { conditions?: Condition[] } } | undefined)?.status;
  return (status?.conditions ?? []).find((entry) => entry.type === type);
}
