import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { OlmError } from '@olm/core';
import type { Json } from './json.js';

/** Marks an OperatorGroup made for a package: `olm uninstall` of that package removes it again when nothing else is subscribed there. */
export const createdForAnnotation = 'olm.local/created-for-package';

/** A request that cannot be carried out as asked (exit 2 in the CLI, 409 in the console). */
export const SubscribeErrorCodes = { conflict: 'OLM_SUBSCRIBE_USAGE' } as const;

export interface SubscribeRequest {
  readonly namespace: string;
  readonly packageName: string;
  readonly catalog: { readonly name: string; readonly namespace: string };
  readonly channel?: string;
  readonly startingCsv?: string;
  readonly approval: 'Automatic' | 'Manual';
  /** When an OperatorGroup is made: watch all namespaces instead of its own. */
  readonly allNamespaces?: boolean;
}

/** What was created, in order (and what cancelling removes). */
export interface CreatedObject {
  readonly kind: 'Namespace' | 'OperatorGroup' | 'Subscription';
  readonly name: string;
  readonly namespace?: string;
}

/**
 * Subscribes a namespace to a package as `olm install` does, and as the console's install does:
 * refuses when the Subscription exists or the namespace has several OperatorGroups (checked before
 * the first write), then creates the namespace if missing, an OperatorGroup if there is none, and the
 * Subscription. `say` gets one line per object created.
 */
export async function subscribe(client: KubeClient, request: SubscribeRequest, say: (line: string) => void = () => {}): Promise<CreatedObject[]> {
  const { namespace, packageName } = request;
  if (await client.find({ ...Kinds.subscription, name: packageName, namespace })) {
    throw conflict(`subscription ${namespace}/${packageName} already exists; see its progress with: olm status -n ${namespace}`);
  }
  const groups = (await client.list(Kinds.operatorGroup, { namespace })).items;
  if (groups.length > 1) throw conflict(`namespace ${namespace} has ${groups.length} OperatorGroups; OLM needs exactly one: delete all but one`);
  const created: CreatedObject[] = [];
  if (!(await client.find({ ...Kinds.namespace, name: namespace }))) {
    await client.create({ ...Kinds.namespace, metadata: { name: namespace } } as Json);
    created.push({ kind: 'Namespace', name: namespace });
  }
  if (groups.length === 0) {
    await client.create({
      ...Kinds.operatorGroup,
      metadata: { name: namespace, namespace, annotations: { [createdForAnnotation]: packageName } },
      spec: request.allNamespaces ? {} : { targetNamespaces: [namespace] },
    } as Json);
    say(`operatorgroup ${namespace}/${namespace} created (watching ${request.allNamespaces ? 'all namespaces' : `namespace ${namespace}`})\n`);
    created.push({ kind: 'OperatorGroup', name: namespace, namespace });
  }
  await client.create({
    ...Kinds.subscription,
    metadata: { name: packageName, namespace },
    spec: {
      name: packageName,
      source: request.catalog.name,
      sourceNamespace: request.catalog.namespace,
      installPlanApproval: request.approval,
      ...(request.channel !== undefined ? { channel: request.channel } : {}),
      ...(request.startingCsv !== undefined ? { startingCSV: request.startingCsv } : {}),
    },
  } as Json);
  created.push({ kind: 'Subscription', name: packageName, namespace });
  return created;
}

function conflict(message: string): OlmError {
  return new OlmError(SubscribeErrorCodes.conflict, message, { details: { statusCode: 409, reason: 'Conflict' } });
}
