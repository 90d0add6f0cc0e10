import type { ClusterServiceVersion } from '@olm/api';
import type { InstallStrategy, KubeClient, ObjectReader, ServingCertificates } from '@olm/core';
import { installApiServices } from './api-services.js';
import { installServingCertificates } from './cert-install.js';
import { certDeploymentNames, hasCertResources, secretName, serviceName, servingPodTemplate } from './cert-resources.js';
import { pemSha256 } from './certificates.js';
import type { CsvForDeployment } from '../install/deployment/deployment-strategy.js';
import { insufficientPermissionsAreFinal } from '../install/install-errors.js';
import { installWebhooks } from './webhooks.js';

// The CSV-level serving step: what the workloads serving owned APIServices and webhooks need, whatever
// the install strategy (upstream keeps it in its deployment installer; here every strategy gets it).

type CsvInput = ClusterServiceVersion & CsvForDeployment;

/** The certificates of workloads that serve nothing: every pod template unchanged. */
export const noServingCertificates: ServingCertificates = { podTemplate: (_, template) => template };

/**
 * The serving certificates as the pods of each serving workload should carry them, given the CA each was
 * made with (upstream `updateDeploymentSpecsWithAPIServiceData`): a workload without an entry is unchanged.
 */
export function servingCertificates(csv: ClusterServiceVersion, caBundles: ReadonlyMap<string, string>): ServingCertificates {
  const serving = certDeploymentNames(csv);
  return {
    podTemplate(workload, template) {
      const caPem = caBundles.get(workload);
      if (!serving.has(workload) || caPem === undefined) return template;
      return servingPodTemplate(template, secretName(serviceName(workload)), pemSha256(caPem));
    },
  };
}

/**
 * Before the strategy installs: for each of its workloads serving an owned APIService or webhook, the
 * Service, the serving certificate Secret and its RBAC (`installServingCertificates`). Returns the CA
 * each serving workload's certificate is signed by (none for a CSV that serves nothing).
 */
export async function installServingPrerequisites(client: KubeClient, csv: CsvInput, strategy: InstallStrategy, now: Date): Promise<ReadonlyMap<string, string>> {
  if (!hasCertResources(csv)) return new Map();
  return installServingCertificates(client, csv, strategy.workloads?.(csv) ?? [], now);
}

/**
 * After the strategy installed: the APIServices and webhook configurations pointing at the workloads'
 * Services with their CAs. A Forbidden answer is final, as for the strategy's own objects.
 */
export async function installServingEndpoints(client: KubeClient, csv: CsvInput, caBundles: ReadonlyMap<string, string>, cache: ObjectReader): Promise<void> {
  if (!hasCertResources(csv)) return;
  await insufficientPermissionsAreFinal(async () => {
    await installApiServices(client, csv, caBundles, cache);
    await installWebhooks(client, csv, caBundles, cache);
  });
}
