import type { KubeClient } from '@olm/core';
import type { ClusterServiceVersion } from '@olm/api';
import { apiServiceName, findApiService, type ApiServiceManifest, type ApiServiceSnapshot } from './api-services.js';
import { certDeploymentNames, hasCertResources, secretName, serviceName, type ServingObjects } from './cert-resources.js';
import type { CsvForDeployment } from '../install/deployment/deployment-strategy.js';
import { Kinds } from '../kinds.js';
import { conversionCrdNames, listWebhookConfigurations, type CrdConversionView, type WebhookSnapshot } from './webhooks.js';

type CsvInput = ClusterServiceVersion & CsvForDeployment;

/**
 * What one sync of a CSV owning APIServices or webhooks knows of the objects serving them, read once:
 * every check of that sync (resources intact, renewal due, expected CAs, availability) looks at this
 * same view, as upstream's lister-based checks do, so that an object deleted mid-sync cannot make two
 * checks disagree and send the CSV down the wrong row.
 */
export interface ServingSnapshot extends ApiServiceSnapshot, WebhookSnapshot {}

/** Nothing read: the snapshot of a CSV that owns no APIServices or webhooks. */
export const emptyServingSnapshot: ServingSnapshot = { apiServices: new Map(), webhookConfigurations: [], conversionCrds: new Map(), deployments: new Map() };

/**
 * Reads the snapshot (live reads: nothing watches these objects). What follows from a Secret (an
 * APIService's `Available` condition, a CA copied out of it) is read before the Secret itself, so that a
 * Secret deleted meanwhile shows as missing rather than as an APIService that stopped serving.
 */
export async function readServingSnapshot(client: KubeClient, csv: CsvInput): Promise<ServingSnapshot> {
  if (!hasCertResources(csv)) return emptyServingSnapshot;
  const namespace = csv.metadata.namespace;
  const apiServices = new Map<string, ApiServiceManifest | undefined>();
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const name = apiServiceName(description);
    apiServices.set(name, await findApiService(client, name));
  }
  const webhookConfigurations = await listWebhookConfigurations(client, csv);
  const conversionCrds = new Map<string, CrdConversionView | undefined>();
  for (const name of conversionCrdNames(csv)) conversionCrds.set(name, await client.find({ ...Kinds.customResourceDefinition, name }));
  const deployments = new Map<string, ServingObjects>();
  for (const deployment of certDeploymentNames(csv)) {
    const service = serviceName(deployment);
    deployments.set(deployment, {
      service: await client.find({ apiVersion: 'v1', kind: 'Service', namespace, name: service }),
      secret: await client.find({ apiVersion: 'v1', kind: 'Secret', namespace, name: secretName(service) }),
    });
  }
  return { apiServices, webhookConfigurations, conversionCrds, deployments };
}


/** The Service and Secret entries of `deployments`. */
export type { ServingObjects } from './cert-resources.js';
