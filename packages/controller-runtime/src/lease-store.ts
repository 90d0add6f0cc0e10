import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/core';
import type { LeaseRecord, LeaseStore } from './leader-election.js';

const LEASE_KIND = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;

interface LeaseObject extends CachedObject {
  spec?: Partial<LeaseRecord>;
}

/** Keeps the leader-election record in a coordination.k8s.io/v1 Lease; `metadata.resourceVersion` is the version. */
export class KubeLeaseStore implements LeaseStore {
  readonly description: string;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.description = `${namespace}/${name}`;
  }

  async get(): Promise<{ record: LeaseRecord; version: string } | undefined> {
    const lease = await this.client.find<LeaseObject>({ ...LEASE_KIND, namespace: this.namespace, name: this.name });
    if (!lease) return undefined;
    const spec = lease.spec ?? {};
    return {
      version: lease.metadata?.resourceVersion ?? '',
      record: {
        holderIdentity: spec.holderIdentity ?? '',
        leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
        leaseTransitions: spec.leaseTransitions ?? 0,
        ...(spec.acquireTime ? { acquireTime: spec.acquireTime } : {}),
        ...(spec.renewTime ? { renewTime: spec.renewTime } : {}),
      },
    };
  }

  async create(record: LeaseRecord): Promise<string> {
    const created = await this.client.create<LeaseObject>({
      ...LEASE_KIND,
      metadata: { name: this.name, namespace: this.namespace },
      spec: { ...record },
    });
    return created.metadata?.resourceVersion ?? '';
  }

  async update(record: LeaseRecord, version: string): Promise<string> {
    const updated = await this.client.replace<LeaseObject>({
      ...LEASE_KIND,
      metadata: { name: this.name, namespace: this.namespace, resourceVersion: version },
      spec: { ...record },
    });
    return updated.metadata?.resourceVersion ?? '';
  }
}
