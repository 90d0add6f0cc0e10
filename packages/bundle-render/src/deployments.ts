import { Kinds } from '@olm/api';
import type { KubeObject } from '@olm/core';
import type { StrategyDeployment } from './csv-install.js';
import { isRecord } from './bundle-manifests.js';

/** The pod template annotation that tells an operator which namespaces to watch ("" for all). */
export const targetNamespacesAnnotation = 'olm.targetNamespaces';

/**
 * The Deployment OLM v1 applies for one strategy entry, in the install namespace: the entry's
 * labels; the pod template gets the CSV's annotations (the template's own win) and
 * `olm.targetNamespaces`; one old ReplicaSet kept, as OLM v0 does.
 */
export function buildDeployment(
  entry: StrategyDeployment,
  csvAnnotations: Readonly<Record<string, string>>,
  installNamespace: string,
  targetNamespaces: readonly string[],
): KubeObject {
  const spec = structuredClone(entry.spec);
  const template = spec.template as Record<string, unknown>;
  const templateMetadata = isRecord(template.metadata) ? template.metadata : {};
  const ownAnnotations = isRecord(templateMetadata.annotations) ? templateMetadata.annotations : {};
  template.metadata = {
    ...templateMetadata,
    annotations: { ...csvAnnotations, ...ownAnnotations, [targetNamespacesAnnotation]: targetNamespaces.join(',') },
  };
  spec.revisionHistoryLimit = 1;
  const metadata = { name: entry.name, namespace: installNamespace };
  const labels = Object.keys(entry.label).length > 0 ? { labels: { ...entry.label } } : {};
  return { ...Kinds.deployment, metadata: { ...metadata, ...labels }, spec };
}
