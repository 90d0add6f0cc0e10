import type { KubeClient } from '@olm/core';
import { isSemanticallyEqual } from '@olm/controller-runtime';
import type { KubeObject } from '@olm/core';
import { applyPhases } from './apply-phases.js';
import { deleteObjects } from './delete-objects.js';
import { RevisionErrorCodes, revisionError } from './errors.js';
import { listed, objectKey } from './object-identity.js';
import { missingPermissions } from './preflight.js';
import { RevisionStore, type RevisionContent, type RevisionSummary } from './revision-records.js';
import { serviceAccountClients } from './service-account-client.js';
import type {
  ApplyInput,
  ApplyResult,
  InstalledRevision,
  MissingPermission,
  PreflightInput,
  RevisionApplier,
  RevisionApplierOptions,
  RevisionOwner,
  ServiceAccountReference,
  UninstallResult,
} from './types.js';

export const defaultRevisionLimits = {
  revisionNamespace: 'olmv1-system',
  maxRevisions: 5,
  /** kube's MaxSecretSize: what one Secret's data may hold. */
  maxRevisionBytes: 1024 * 1024,
  /** A record read back is decompressed to at most this: bundle-render's default `maxRenderedBytes` (16 MiB) and the record's own fields. */
  maxRevisionContentBytes: 17 * 1024 * 1024,
} as const;

/** Uninstall order: the pods go before the rights they use, the CRDs (and so the custom resources) last. */
const uninstallOrder = ['workloads', 'rbac', 'crds'] as const;

export function createRevisionApplier(options: RevisionApplierOptions): RevisionApplier {
  const limits = { ...defaultRevisionLimits, ...withoutUndefined(options) };
  for (const field of ['maxRevisions', 'maxRevisionBytes', 'maxRevisionContentBytes'] as const) {
    if (!Number.isSafeInteger(limits[field]) || limits[field] < 1) {
      throw revisionError(RevisionErrorCodes.invalidInput, `${field} must be a whole number of at least 1, not ${String(limits[field])}`, { field });
    }
  }
  const store = new RevisionStore(options.client, {
    namespace: limits.revisionNamespace,
    maxRecords: limits.maxRevisions,
    maxRecordBytes: limits.maxRevisionBytes,
    maxContentBytes: limits.maxRevisionContentBytes,
  });
  return new ServiceAccountApplier(options.client, store, serviceAccountClients(options.client, options.kubeConfig), options.fieldManager, limits.maxRevisions);
}

class ServiceAccountApplier implements RevisionApplier {
  constructor(
    private readonly admin: KubeClient,
    private readonly store: RevisionStore,
    private readonly asAccount: (account: ServiceAccountReference) => KubeClient,
    private readonly fieldManager: string,
    private readonly maxRevisions: number,
  ) {}

  async preflight({ owner, serviceAccount, rendered }: PreflightInput): Promise<MissingPermission[]> {
    checkOwner(owner);
    return missingPermissions(this.admin, this.asAccount(serviceAccount), rendered);
  }

  async installed(owner: RevisionOwner): Promise<InstalledRevision | undefined> {
    checkOwner(owner);
    const installed = (await this.store.list(owner)).filter((summary) => summary.state === 'Installed').at(-1);
    return installed ? { revision: installed.number, bundle: installed.bundle } : undefined;
  }

  async apply(input: ApplyInput): Promise<ApplyResult> {
    checkOwner(input.owner);
    const content: RevisionContent = {
      bundle: { name: input.bundle.name, version: input.bundle.version, ...(input.bundle.image ? { image: input.bundle.image } : {}) },
      serviceAccount: { namespace: input.serviceAccount.namespace, name: input.serviceAccount.name },
      phases: input.rendered.phases.map((phase) => ({ name: phase.name, objects: phase.objects })),
    };
    const account = this.asAccount(content.serviceAccount);
    const summaries = await this.store.list(input.owner);
    const target = await this.currentOrNextRevision(input.owner, summaries, content);
    const label = `revision ${target.number} (${content.bundle.name})`;
    const outcome = await applyPhases(account, content, this.fieldManager, input.owner.name);
    const yielded = outcome.yielded.length > 0 ? `; fields left to other field managers: ${listed(outcome.yielded)}` : '';
    if (!outcome.complete) return { revision: target.number, complete: false, message: `${label}: waiting for ${outcome.waitingFor}${yielded}` };
    const installed = await this.store.setState(target, 'Installed');

    const earlier = summaries.filter((summary) => summary.number !== target.number && summary.state !== 'Archived');
    const kept = new Set(content.phases.flatMap((phase) => phase.objects.map(objectKey)));
    const stale = inUninstallOrder(await this.store.readIdentities(earlier)).filter((object) => !kept.has(objectKey(object)));
    const pending = await deleteObjects(account, stale, input.owner.name);
    if (pending.length > 0) {
      return { revision: target.number, complete: false, message: `${label} applied; waiting for the deletion of ${listed(pending)}, dropped since earlier revisions${yielded}` };
    }
    const archived = new Map<number, RevisionSummary>();
    for (const summary of earlier) archived.set(summary.number, await this.store.setState(summary, 'Archived'));
    await this.trim([...summaries.filter((summary) => summary.number !== target.number).map((summary) => archived.get(summary.number) ?? summary), installed]);
    const pruned = stale.length > 0 ? `, ${stale.length} objects of earlier revisions pruned` : '';
    return { revision: target.number, complete: true, message: `${label} installed: ${outcome.written} of ${kept.size} objects written${pruned}${yielded}` };
  }

  async uninstall(owner: RevisionOwner): Promise<UninstallResult> {
    checkOwner(owner);
    const summaries = await this.store.list(owner);
    if (summaries.length === 0) return { complete: true, message: `ClusterExtension ${owner.name} has nothing installed` };
    const contents = await this.store.readIdentities(summaries);
    const account = this.asAccount(contents.at(-1)!.serviceAccount);
    for (const phase of uninstallOrder) {
      const pending = await deleteObjects(account, inUninstallOrder(contents, phase), owner.name);
      if (pending.length > 0) return { complete: false, message: `uninstalling ClusterExtension ${owner.name}: waiting for the deletion of ${listed(pending)}` };
    }
    for (const summary of summaries) await this.store.delete(summary);
    return { complete: true, message: `ClusterExtension ${owner.name} uninstalled: revisions ${summaries.map((summary) => summary.number).join(', ')} removed` };
  }

  /** The newest revision when it holds the same content (compared as objects, not text), else a new one. */
  private async currentOrNextRevision(owner: RevisionOwner, summaries: readonly RevisionSummary[], content: RevisionContent): Promise<RevisionSummary> {
    const latest = summaries.at(-1);
    if (latest && isSemanticallyEqual(await this.store.read(latest), JSON.parse(JSON.stringify(content)))) return latest;
    // Revisions still tracking objects besides the installed one: attempts not complete, or prunes pending.
    const newestInstalled = summaries.filter((summary) => summary.state === 'Installed').at(-1);
    const unfinished = summaries.filter((summary) => summary.state !== 'Archived' && summary !== newestInstalled);
    if (unfinished.length >= this.maxRevisions) {
      throw revisionError(
        RevisionErrorCodes.limitExceeded,
        `ClusterExtension ${owner.name} has ${unfinished.length} revisions besides the installed one still applying or pruning ` +
          `(${unfinished.map((summary) => summary.number).join(', ')}), as many as maxRevisions (${this.maxRevisions}) allows: ` +
          `let revision ${latest?.number} complete (apply its bundle again until complete), or raise maxRevisions`,
        { owner: owner.name, limit: this.maxRevisions },
      );
    }
    return this.store.create(owner, (latest?.number ?? 0) + 1, content);
  }

  /** Deletes the oldest archived records beyond `maxRevisions`; records still tracking live objects stay. */
  private async trim(summaries: readonly RevisionSummary[]): Promise<void> {
    let excess = summaries.length - this.maxRevisions;
    for (const summary of summaries) {
      if (excess <= 0) return;
      if (summary.state !== 'Archived') continue;
      await this.store.delete(summary);
      excess -= 1;
    }
  }
}

/** The objects of revisions, each once (the newest copy), workloads first and CRDs last, each phase backwards. */
function inUninstallOrder(contents: readonly RevisionContent[], only?: string): KubeObject[] {
  const byKey = new Map<string, KubeObject>();
  for (const phase of uninstallOrder) {
    if (only !== undefined && phase !== only) continue;
    for (const content of [...contents].reverse()) {
      const objects = content.phases.find((candidate) => candidate.name === phase)?.objects ?? [];
      for (const object of [...objects].reverse()) if (!byKey.has(objectKey(object))) byKey.set(objectKey(object), object);
    }
  }
  return [...byKey.values()];
}

function checkOwner(owner: RevisionOwner): void {
  if (!owner?.name || !owner.uid) {
    throw revisionError(RevisionErrorCodes.invalidInput, `owner ${JSON.stringify(owner ?? null)} needs the ClusterExtension's name and uid`, { field: 'owner' });
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
