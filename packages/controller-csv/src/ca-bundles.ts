import type { ClusterServiceVersion } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { apiServiceCaPem, apiServiceName, findApiService } from './api-services.js';
import { secretMaterial, secretName, serviceName } from './cert-resources.js';
import type { CsvForDeployment } from './deployment-strategy.js';
import { webhookCaPem } from './webhooks.js';

type CsvInput = ClusterServiceVersion & CsvForDeployment;

/**
 * The CA each serving deployment's pods should carry, read from what OLM installed (upstream
 * `updateDeploymentSpecsWithAPIServiceData`): an owned APIService's CA bundle, a webhook's, and for a
 * deployment serving several, the last one's. Throws, with upstream's message, when one cannot be found
 * or its Secret is missing: the CSV then needs a reinstall ("calculated deployment install is bad").
 */
export async function expectedCaBundles(client: KubeClient, csv: CsvInput): Promise<Map<string, string>> {
  const bundles = new Map<string, string>();
  const namespace = csv.metadata.namespace;
  const secretOf = async (deployment: string) => client.find({ apiVersion: 'v1', kind: 'Secret', namespace, name: secretName(serviceName(deployment)) });
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const name = apiServiceName(description);
    const caPem = apiServiceCaPem(await findApiService(client, name));
    if (!caPem) throw new Error(`could not retrieve caBundle for owned APIServices ${name}: unable to find CA`);
    const deployment = description.deploymentName ?? '';
    if (!(await secretOf(deployment))) throw new Error(`unable to get secret ${secretName(serviceName(deployment))}`);
    bundles.set(deployment, caPem);
  }
  for (const webhook of csv.spec.webhookdefinitions ?? []) {
    const deployment = webhook.deploymentName ?? '';
    const secret = await secretOf(deployment);
    const caPem = await webhookCaPem(client, csv, webhook, async () => secretMaterial(secret).caPem);
    if (!caPem) throw new Error(`could not retrieve caBundle for WebhookDescription ${webhook.generateName}: unable to find CA`);
    if (!secret) throw new Error(`unable to get secret ${secretName(serviceName(deployment))}`);
    bundles.set(deployment, caPem);
  }
  return bundles;
}
