import type { ClusterServiceVersion } from '@olm/api';
import { apiServiceCaPem, apiServiceName } from './api-services.js';
import { secretName, serviceName } from './cert-resources.js';
import type { ServingSnapshot } from './serving-snapshot.js';
import { webhookCaPem } from './webhooks.js';

/**
 * The CA each serving deployment's pods should carry, as the sync's snapshot shows what OLM installed
 * (upstream `updateDeploymentSpecsWithAPIServiceData`): an owned APIService's CA bundle, a webhook's,
 * and for a deployment serving several, the last one's. Throws, with upstream's message, when one
 * cannot be found or its Secret is missing: the CSV then needs a reinstall ("calculated deployment
 * install is bad").
 */
export function expectedCaBundles(csv: ClusterServiceVersion, snapshot: ServingSnapshot): Map<string, string> {
  const bundles = new Map<string, string>();
  const requireSecret = (deployment: string) => {
    if (!snapshot.deployments.get(deployment)?.secret) throw new Error(`unable to get secret ${secretName(serviceName(deployment))}`);
  };
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const name = apiServiceName(description);
    const caPem = apiServiceCaPem(snapshot.apiServices.get(name));
    if (!caPem) throw new Error(`could not retrieve caBundle for owned APIServices ${name}: unable to find CA`);
    const deployment = description.deploymentName ?? '';
    requireSecret(deployment);
    bundles.set(deployment, caPem);
  }
  for (const webhook of csv.spec.webhookdefinitions ?? []) {
    const deployment = webhook.deploymentName ?? '';
    const caPem = webhookCaPem(snapshot, webhook);
    if (!caPem) throw new Error(`could not retrieve caBundle for WebhookDescription ${webhook.generateName}: unable to find CA`);
    requireSecret(deployment);
    bundles.set(deployment, caPem);
  }
  return bundles;
}
