import type { ClusterServiceVersion } from '@olm/api';
import { strategyDeploymentNames } from '../requirements/requirements.js';

/**
 * Why OLM cannot compute the deployments it expects (upstream: the owned APIServices and webhooks are
 * served by deployments the install strategy must contain), or undefined. Upstream moves such a CSV to
 * `Pending/NeedsReinstall "calculated deployment install is bad"`.
 */
export function unknownDeploymentReference(csv: ClusterServiceVersion): string | undefined {
  const deployments = new Set(strategyDeploymentNames(csv));
  for (const service of csv.spec.apiservicedefinitions?.owned ?? []) {
    if (!deployments.has(service.deploymentName ?? '')) {
      return `install strategy has no deployment ${service.deploymentName ?? ''} for owned APIService ${service.version}.${service.group}`;
    }
  }
  for (const webhook of csv.spec.webhookdefinitions ?? []) {
    if (!deployments.has(webhook.deploymentName ?? '')) {
      return `install strategy has no deployment ${webhook.deploymentName ?? ''} for webhook ${webhook.generateName}`;
    }
  }
  return undefined;
}
