import {
  ClusterCatalogConditionTypes as Types,
  ClusterCatalogMessages as Messages,
  ClusterCatalogReasons as Reasons,
  ClusterCatalogSourceTypes,
  type ClusterCatalogStatus,
  type Condition,
} from '@olm/api';

/** Longest condition message written: a catalog's load problems can be many; the first ones say enough. */
export const maxConditionMessageLength = 8192;

type ConditionInput = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/** `meta.SetStatusCondition`: replaced in place, the transition time kept while the status stays, `observedGeneration` set. */
function setCondition(status: ClusterCatalogStatus, condition: ConditionInput, generation: number, now: string): void {
  const conditions = status.conditions ?? [];
  const existing = conditions.find((item) => item.type === condition.type);
  const message = condition.message.length > maxConditionMessageLength ? `${condition.message.slice(0, maxConditionMessageLength)}…` : condition.message;
  const next: Condition = {
    ...condition,
    message,
    observedGeneration: generation,
    lastTransitionTime: existing && existing.status === condition.status ? existing.lastTransitionTime : now,
  };
  status.conditions = existing ? conditions.map((item) => (item === existing ? next : item)) : [...conditions, next];
}

/** What a served catalog's status says: where, from which digest, since when. */
export interface ServedContent {
  readonly resolvedRef: string;
  readonly lastUnpacked: string;
  readonly baseUrl: string;
}

/** Progressing True/Succeeded, or after a failure True/Retrying (may recover) or False/Blocked (needs a change of the ClusterCatalog). */
export function setProgressing(status: ClusterCatalogStatus, generation: number, now: string, failure?: { readonly message: string; readonly terminal: boolean }): void {
  setCondition(
    status,
    !failure
      ? { type: Types.progressing, status: 'True', reason: Reasons.succeeded, message: Messages.succeeded }
      : { type: Types.progressing, status: failure.terminal ? 'False' : 'True', reason: failure.terminal ? Reasons.blocked : Reasons.retrying, message: failure.message },
    generation,
    now,
  );
}

/** Serving True/Available with the content's resolved source, base URL and unpack time (seconds, as upstream truncates). */
export function setServing(status: ClusterCatalogStatus, generation: number, now: string, content: ServedContent): void {
  status.resolvedSource = { type: ClusterCatalogSourceTypes.image, image: { ref: content.resolvedRef } };
  status.urls = { base: content.baseUrl };
  status.lastUnpacked = content.lastUnpacked.replace(/\.\d+Z$/, 'Z');
  setCondition(status, { type: Types.serving, status: 'True', reason: Reasons.available, message: Messages.serving }, generation, now);
}

/** Nothing served any more: the source, URL and unpack time go; Serving False/Unavailable. */
export function setNotServing(status: ClusterCatalogStatus, generation: number, now: string): void {
  delete status.resolvedSource;
  delete status.urls;
  delete status.lastUnpacked;
  setCondition(status, { type: Types.serving, status: 'False', reason: Reasons.unavailable, message: '' }, generation, now);
}

/** `availabilityMode: Unavailable`: not served, on purpose; Progressing True/Succeeded and Serving False/UserSpecifiedUnavailable. */
export function setUserSpecifiedUnavailable(status: ClusterCatalogStatus, generation: number, now: string): void {
  setNotServing(status, generation, now);
  setCondition(status, { type: Types.progressing, status: 'True', reason: Reasons.succeeded, message: Messages.userSpecifiedUnavailable }, generation, now);
  setCondition(status, { type: Types.serving, status: 'False', reason: Reasons.userSpecifiedUnavailable, message: Messages.userSpecifiedUnavailable }, generation, now);
}

/** Only the condition types catalogd knows stay (upstream clears others before comparing). */
export function withKnownConditions(status: ClusterCatalogStatus | undefined): ClusterCatalogStatus {
  const copy = structuredClone(status ?? {});
  if (copy.conditions) copy.conditions = copy.conditions.filter((condition) => condition.type === Types.progressing || condition.type === Types.serving);
  return copy;
}
