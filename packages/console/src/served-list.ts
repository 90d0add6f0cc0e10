import type { KubeClient } from '@olm/controller-runtime';
import type { ListOptions, ObjectKind } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import type { Json } from './json.js';

/** A list of a kind the cluster may not serve (the v1 APIs, the Operator API): `served: false` then, not an error. */
export type ServedList = { readonly served: true; readonly items: Json[] } | { readonly served: false; readonly items: readonly [] };

export async function listIfServed(client: KubeClient, kind: ObjectKind, options: ListOptions = {}): Promise<ServedList> {
  try {
    return { served: true, items: (await client.list<Json>(kind, options)).items };
  } catch (error) {
    const status = (error as { details?: { statusCode?: unknown } }).details?.statusCode;
    // No group in discovery, or an aggregated API whose server does not answer.
    if (hasErrorCode(error, 'OLM_RUNTIME_UNKNOWN_KIND') || status === 404 || status === 503) return { served: false, items: [] };
    throw error;
  }
}

/** The condition list of an object's status, as the page shows it. */
export function conditionsOf(object: Json | undefined): Array<{ type: string; status: string; reason?: string; message?: string }> {
  return ((object?.status?.conditions ?? []) as Json[]).map((condition) => ({
    type: String(condition.type),
    status: String(condition.status),
    ...(condition.reason ? { reason: String(condition.reason) } : {}),
    ...(condition.message ? { message: String(condition.message) } : {}),
  }));
}
