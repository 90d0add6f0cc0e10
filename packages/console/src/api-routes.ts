import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { OlmError } from '@olm/core';
import { catalogsView, packagesView } from './catalog-views.js';
import { badRequest, optionalString, requiredString } from './http-replies.js';
import { InstallFlow } from './install-flow.js';
import type { Json } from './json.js';
import { installedOperatorsView } from './operator-views.js';
import { packageGraph, type GraphLimits } from './package-graph.js';
import { approvePlan, plansView } from './plan-views.js';
import { listIfServed } from './served-list.js';
import { explainSubscription, formatExplanation } from './subscription-explanation.js';

/** What a route handler gets: the user's client, the query, and the JSON body of a POST. */
export interface RouteContext {
  readonly client: KubeClient;
  readonly query: URLSearchParams;
  readonly body: Record<string, unknown>;
}

export type Route = (context: RouteContext) => Promise<unknown>;

export interface RouteOptions {
  readonly defaultNamespace: string;
  readonly context: string;
  readonly server: string;
  readonly graphLimits: GraphLimits;
  /** Update graphs read at once (each may hold up to the registry bytes limit while it is read). */
  readonly maxConcurrentGraphs: number;
  readonly installs: InstallFlow;
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A namespace parameter: a DNS-1123 label, as Kubernetes requires. */
export function namespaceOf(values: Record<string, unknown> | URLSearchParams): string {
  const namespace = requiredString(values, 'namespace');
  if (namespace.length > 63 || !dns1123Label.test(namespace)) throw badRequest(`"namespace" ${JSON.stringify(namespace)} is not a namespace name (lower-case letters, digits and '-', at most 63)`);
  return namespace;
}

/** The JSON API of the page, by `METHOD path`; every handler acts with the user's own client. */
export function apiRoutes(options: RouteOptions): ReadonlyMap<string, Route> {
  const { installs } = options;
  let graphsBeingRead = 0;
  return new Map<string, Route>([
    ['GET /api/session', async () => ({ context: options.context, server: options.server, defaultNamespace: options.defaultNamespace })],
    ['GET /api/catalogs', ({ client }) => catalogsView(client)],
    ['GET /api/packages', ({ client, query }) => packagesView(client, namespaceOf(query))],
    [
      'GET /api/packages/graph',
      async ({ client, query }) => {
        const request = { namespace: namespaceOf(query), packageName: requiredString(query, 'package'), catalog: requiredString(query, 'catalog'), catalogNamespace: requiredString(query, 'catalogNamespace') };
        if (graphsBeingRead >= options.maxConcurrentGraphs) {
          throw new OlmError('OLM_CONSOLE_TOO_MANY_GRAPHS', `${graphsBeingRead} update graphs are being read (the console's maxConcurrentGraphs, ${options.maxConcurrentGraphs}); try again when they are drawn`, {
            details: { statusCode: 429, reason: 'TooManyRequests' },
          });
        }
        graphsBeingRead += 1;
        try {
          return await packageGraph(client, request, options.graphLimits);
        } finally {
          graphsBeingRead -= 1;
        }
      },
    ],
    ['GET /api/operators', ({ client, query }) => installedOperatorsView(client, namespaceOf(query))],
    [
      'GET /api/explain',
      async ({ client, query }) => {
        const subscription = await client.get<Json>({ ...Kinds.subscription, namespace: namespaceOf(query), name: requiredString(query, 'subscription') });
        const explanation = await explainSubscription(client, subscription);
        return { explanation, text: formatExplanation(explanation) };
      },
    ],
    ['GET /api/plans', ({ client, query }) => plansView(client, namespaceOf(query))],
    ['POST /api/plans/approve', ({ client, body }) => approvePlan(client, namespaceOf(body), requiredString(body, 'name'))],
    [
      'GET /api/extensions',
      async ({ client }) => {
        const extensions = await listIfServed(client, Kinds.clusterExtension);
        return {
          served: extensions.served,
          items: extensions.items.map((extension) => ({
            name: extension.metadata!.name!,
            package: String(extension.spec?.source?.catalog?.packageName ?? ''),
            namespace: String(extension.spec?.namespace ?? ''),
            installed: String(extension.status?.install?.bundle?.name ?? ''),
            conditions: ((extension.status?.conditions ?? []) as Json[]).map((condition) => ({ type: String(condition.type), status: String(condition.status), reason: String(condition.reason ?? ''), message: String(condition.message ?? '') })),
          })),
        };
      },
    ],
    [
      'POST /api/install',
      ({ client, body }) => {
        const approval = requiredString(body, 'approval');
        if (approval !== 'Automatic' && approval !== 'Manual') throw badRequest('"approval" must be Automatic or Manual');
        const channel = optionalString(body, 'channel');
        const startingCsv = optionalString(body, 'startingCsv');
        return installs.start(client, {
          namespace: namespaceOf(body),
          packageName: requiredString(body, 'package'),
          catalog: requiredString(body, 'catalog'),
          catalogNamespace: requiredString(body, 'catalogNamespace'),
          approval,
          ...(channel !== undefined ? { channel } : {}),
          ...(startingCsv !== undefined ? { startingCsv } : {}),
        });
      },
    ],
    ['GET /api/install/preview', ({ client, query }) => installs.preview(client, namespaceOf(query), requiredString(query, 'subscription'))],
    ['POST /api/install/confirm', ({ client, body }) => installs.confirm(client, namespaceOf(body), requiredString(body, 'subscription'))],
    ['POST /api/install/cancel', ({ client, body }) => installs.cancel(client, namespaceOf(body), requiredString(body, 'subscription'))],
  ]);
}
