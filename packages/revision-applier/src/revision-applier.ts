import { isSemanticallyEqual } from '@olm/controller-runtime';
import type { KubeObject } from '@olm/core';
import { applyPhases } from './apply-phases.js';
import { deleteObjects } from './delete-objects.js';
import { RevisionErrorCodes, revisionError } from './errors.js';
import { objectKey } from './object-identity.js';
import { missingPermissions } from './preflight.js';
import { RevisionStore, type RevisionContent, type RevisionSummary } from './revision-records.js';
import { serviceAccountClients } from './service-account-client.js';
import type { ApplyInput, ApplyResult, RevisionApplier, RevisionApplierOptions, RevisionOwner, UninstallResult } from './types.js';

export const defaultRevisionLimits = {
  revisionNamespace: 'olmv1-system',
  maxRevisions: 5,
  /** kube's MaxSecretSize: what one Secret's data may hold. */
  maxRevisionBytes: 1024 * 1024,
  /** A record read back is decompressed to at most this (bundle-render's default `maxRenderedBytes`, plus room). */
  maxRevisionContentBytes: 32 * 1024 * 1024,
} as const;

/** Uninstall order: the pods go before the rights they use, the CRDs (and so the custom resources) last. */
const uninstallOrder = ['workloads', 'rbac', 'crds'] as const;

export function createRevisionApplier(options: RevisionApplierOptions): RevisionApplier {
  const limits = { ...defaultRevisionLimits, ...withoutUndefined(options) };
  if (!Number.isSafeInteger(limits.maxRevisions) || limits.maxRevisions < 1) {
    throw revisionError(RevisionErrorCodes.invalidInput, `maxRevisions must be a whole number of at least 1, not ${String(limits.maxRevisions)}`, { field: 'maxRevisions' });
  }
  const store = new RevisionStore(options.client, { namespace: limits.revisionNamespace, maxRecordBytes: limits.maxRevisionBytes, maxContentBytes: limits.maxRevisionContentBytes });
  const asAccount = serviceAccountClients(options.client, options.kubeConfig);
  const { fieldManager } = options;

  async function apply(input: ApplyInput): Promise<ApplyResult> {
    checkOwner(input.owner);
    const content: RevisionContent = {
      bundle: { name: input.bundle.name, version: input.bundle.version, ...(input.bundle.image ? { image: input.bundle.image } : {}) },
      serviceAccount: { namespace: input.serviceAccount.namespace, name: input.serviceAccount.name },
      phases: input.rendered.phases.map((phase) => ({ name: phase.name, objects: phase.objects })),
    };
    const account = asAccount(content.serviceAccount);
    const summaries = await store.list(input.owner);
    const target = await currentOrNextRevision(input.owner, summaries, content);
    const label = `revision ${target.number} (${content.bundle.name})`;
    const outcome = await applyPhases(account, content, fieldManager, input.owner.name);
    const yielded = outcome.yielded.length > 0 ? `; fields left to other field managers: ${outcome.yielded.join(', ')}` : '';
    if (!outcome.complete) return { revision: target.number, complete: false, message: `${label}: waiting for ${outcome.waitingFor}${yielded}` };
    await store.setState(target, 'Installed');

    const earlier = summaries.filter((summary) => summary.number !== target.number && summary.state !== 'Archived');
    const kept = new Set(content.phases.flatMap((phase) => phase.objects.map(objectKey)));
    const stale = inUninstallOrder(await Promise.all(earlier.map((summary) => store.read(summary)))).filter((object) => !kept.has(objectKey(object)));
    const pending = await deleteObjects(account, stale, input.owner.name);
    if (pending.length > 0) {
      return { revision: target.number, complete: false, message: `${label} applied; waiting for the deletion of ${listed(pending)}, dropped since earlier revisions${yielded}` };
    }
    for (const summary of earlier) await store.setState(summary, 'Archived');
    await trim([...summaries.filter((summary) => summary.number !== target.number), target]);
    const pruned = stale.length > 0 ? `, ${stale.length} objects of earlier revisions pruned` : '';
    return { revision: target.number, complete: true, message: `${label} installed: ${outcome.written} of ${kept.size} objects written${pruned}${yielded}` };
  }

  /** The newest revision when it holds the same content (compared as objects, not text), else a new one. */
  async function currentOrNextRevision(owner: RevisionOwner, summaries: readonly RevisionSummary[], content: RevisionContent): Promise<RevisionSummary> {
    const latest = summaries.at(-1);
    if (latest && isSemanticallyEqual(await store.read(latest), JSON.parse(JSON.stringify(content)))) return latest;
    const unfinished = summaries.filter((summary) => summary.state !== 'Archived');
    if (unfinished.length >= limits.maxRevisions) {
      throw revisionError(
        RevisionErrorCodes.limitExceeded,
        `ClusterExtension ${owner.name} has ${unfinished.length} revisions not yet complete (${unfinished.map((summary) => summary.number).join(', ')}), ` +
          `the most maxRevisions (${limits.maxRevisions}) allows; wait until revision ${latest?.number} completes, or raise maxRevisions`,
        { owner: owner.name, limit: limits.maxRevisions },
      );
    }
    return store.create(owner, (latest?.number ?? 0) + 1, content);
  }

  /** Deletes the oldest archived records beyond `maxRevisions`; records still tracking live objects stay. */
  async function trim(summaries: readonly RevisionSummary[]): Promise<void> {
    let excess = summaries.length - limits.maxRevisions;
    for (const summary of summaries) {
      if (excess <= 0) return;
      if (summary.state !== 'Archived') continue;
      await store.delete(summary);
      excess -= 1;
    }
  }

  async function uninstall(owner: RevisionOwner): Promise<UninstallResult> {
    checkOwner(owner);
    const summaries = await store.list(owner);
    if (summaries.length === 0) return { complete: true, message: `ClusterExtension ${owner.name} has nothing installed` };
    const contents = await Promise.all(summaries.map((summary) => store.read(summary)));
    const account = asAccount(contents.at(-1)!.serviceAccount);
    for (const phase of uninstallOrder) {
      const objects = inUninstallOrder(contents, phase);
      const pending = await deleteObjects(account, objects, owner.name);
      if (pending.length > 0) return { complete: false, message: `uninstalling ClusterExtension ${owner.name}: waiting for the deletion of ${listed(pending)}` };
    }
    for (const summary of summaries) await store.delete(summary);
    return { complete: true, message: `ClusterExtension ${owner.name} uninstalled: revisions ${summaries.map((summary) => summary.number).join(', ')} removed` };
  }

  return {
    preflight: async ({ owner, serviceAccount, rendered }) => {
      checkOwner(owner);
      return missingPermissions(options.client, asAccount(serviceAccount), rendered);
    },
    apply,
    installed: async (owner) => {
      checkOwner(owner);
      const installed = (await store.list(owner)).filter((summary) => summary.state === 'Installed').at(-1);
      return installed ? { revision: installed.number, bundle: installed.bundle } : undefined;
    },
    uninstall,
  };
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

function listed(descriptions: readonly string[]): string {
  return descriptions.length <= 3 ? descriptions.join(', ') : `${descriptions.slice(0, 3).join(', ')} and ${descriptions.length - 3} more`;
}

function checkOwner(owner: RevisionOwner): void {
  if (!owner?.name || !owner.uid) {
    throw revisionError(RevisionErrorCodes.invalidInput, `owner ${JSON.stringify(owner ?? null)} needs the ClusterExtension's name and uid`, { field: 'owner' });
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
