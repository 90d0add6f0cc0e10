import { CSVMessages, CSVPhases, CSVReasons, UpgradeStrategies, isCopied } from '@olm/api';
import type { ReconcileContext, ReconcileResult } from '@olm/core';
import { type PhaseWriter, setPhase } from './status/csv-phase.js';
import { Kinds } from './kinds.js';
import type { Csv } from './shared.js';

export async function replacing(shared: PhaseWriter, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  // Only the oldest CSV of a chain is deleted: removing an intermediate one would break the chain.
  if (replacedCsv(csv, context)) return;
  const replacer = replacingCsv(csv, context);
  if (!replacer) throw new Error(CSVMessages.noReplacementFound);
  // The direct replacer decides once it succeeded. With fail-forward it may have failed and be replaced; and
  // it may be Replacing already, because a newer CSV succeeded before this one was looked at again (the
  // order of events decides): then the newest of the chain decides, or this CSV would wait for ever.
  const newest = newestReplacer(csv, context) ?? replacer;
  const directPhase = replacer.status?.phase;
  const newestDecides = isFailForward(csv, context) || directPhase === CSVPhases.Replacing || directPhase === CSVPhases.Deleting;
  if (directPhase === CSVPhases.Succeeded || (newestDecides && newest.status?.phase === CSVPhases.Succeeded)) {
    await setPhase(shared, csv, CSVPhases.Deleting, CSVReasons.Replaced, CSVMessages.replaced);
    return;
  }
  // Waiting on a CSV two or more links away, whose changes do not requeue this one: look again soon.
  if (newestDecides) return { requeueAfter: 2_000 };
}

/** `IsReplacing`: the CSV named by `spec.replaces` (self-reference ignored). */
export function replacedCsv(csv: Csv, context: ReconcileContext): Csv | undefined {
  const name = csv.spec?.replaces;
  if (!name || name === csv.metadata.name) return undefined;
  return context.cache.get(Kinds.clusterServiceVersion, name, csv.metadata.namespace);
}

/** `IsBeingReplaced`: a non-copied CSV in the namespace whose `spec.replaces` names this one. */
export function replacingCsv(csv: Csv, context: ReconcileContext): Csv | undefined {
  return (context.cache.list(Kinds.clusterServiceVersion, { namespace: csv.metadata.namespace }))
    .filter((other) => other.metadata.name !== csv.metadata.name && !isCopied(other) && other.spec?.replaces === csv.metadata.name)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
}

/** The end of the chain of CSVs replacing this one (cycle safe). */
function newestReplacer(csv: Csv, context: ReconcileContext): Csv | undefined {
  const seen = new Set([csv.metadata.name]);
  let newest: Csv | undefined;
  for (let next = replacingCsv(csv, context); next && !seen.has(next.metadata.name); next = replacingCsv(next, context)) {
    seen.add(next.metadata.name);
    newest = next;
  }
  return newest;
}

/** Every CSV linked to this one through `spec.replaces`, either way (cycle safe). */
export function replacementChain(csv: Csv, csvs: readonly Csv[]): Set<string> {
  const byName = new Map(csvs.map((item) => [item.metadata.name, item]));
  const chain = new Set<string>([csv.metadata.name]);
  const queue = [csv.metadata.name];
  while (queue.length > 0) {
    const name = queue.pop()!;
    const current = byName.get(name);
    const linked = [
      ...(current?.spec?.replaces ? [current.spec.replaces] : []),
      ...csvs.filter((item) => item.spec?.replaces === name).map((item) => item.metadata.name),
    ];
    for (const next of linked) {
      if (chain.has(next)) continue;
      chain.add(next);
      queue.push(next);
    }
  }
  return chain;
}

/** A CSV outside this CSV's replacement chain, in its namespace, owns one of its CRDs. */
export function crdOwnerConflict(csv: Csv, context: ReconcileContext): boolean {
  const owned = new Set((csv.spec?.customresourcedefinitions?.owned ?? []).map((crd) => crd.name));
  if (owned.size === 0) return false;
  const csvs = (context.cache.list(Kinds.clusterServiceVersion, { namespace: csv.metadata.namespace })).filter((item) => !isCopied(item));
  const chain = replacementChain(csv, csvs);
  return csvs.some(
    (other) => !chain.has(other.metadata.name) && (other.spec?.customresourcedefinitions?.owned ?? []).some((crd) => owned.has(crd.name)),
  );
}

/** Whether the CSV's OperatorGroup lets failed CSVs be replaced (`upgradeStrategy: TechPreviewUnsafeFailForward`). */
export function isFailForward(csv: Csv, context: ReconcileContext): boolean {
  const groups = context.cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace });
  if (groups.length !== 1) return false;
  // `spec.upgradeStrategy` is read in both shapes OLM releases used: `{ name: … }` and the plain string.
  const strategy = groups[0]!.spec?.upgradeStrategy as unknown;
  const name = typeof strategy === 'object' && strategy !== null ? (strategy as { name?: unknown }).name : strategy;
  return name === UpgradeStrategies.UnsafeFailForward;
}
