import type { CachedObject, KubeClient } from '@olm/core';
import { Kinds } from './catalog-source-object.js';

/**
 * How the controller reaches an image catalog's registry Service: `dns`, its cluster DNS name
 * `<service>.<namespace>.svc:<port>` (a controller in the cluster, as upstream's); `pod-ip`, a ready
 * Pod the Service selects at `<podIP>:<targetPort>`, found through the API server (a controller
 * outside the cluster network that can reach Pod IPs, such as one on the embedded API server).
 */
export type RegistryServiceRouting = 'dns' | 'pod-ip';

interface ServicePort {
  port?: number;
  targetPort?: number | string;
}

/** What is read of a Pod and a Service (@olm/api models OLM's kinds, not these). */
interface PodView extends CachedObject {
  spec?: { containers?: Array<{ ports?: Array<{ name?: string; containerPort?: number }> }> };
  status?: { podIP?: string; conditions?: Array<{ type?: string; status?: string }> };
}

interface ServiceView extends CachedObject {
  spec?: { selector?: Record<string, string>; ports?: ServicePort[] };
}

const isReady = (pod: PodView) => pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true;

/**
 * `<podIP>:<targetPort>` of the newest ready Pod a Service selects for `port`, as kube-proxy would route
 * a connection; undefined when the Service is missing or has no ready endpoint.
 */
export async function podAddressOfService(client: KubeClient, namespace: string, serviceName: string, port: number): Promise<string | undefined> {
  const service = await client.find<ServiceView>({ ...Kinds.service, namespace, name: serviceName });
  const selector = service?.spec?.selector;
  const servicePort = service?.spec?.ports?.find((candidate) => candidate.port === port);
  if (!selector || Object.keys(selector).length === 0 || !servicePort) return undefined;
  const labelSelector = Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const pods = (await client.list<PodView>(Kinds.pod, { namespace, labelSelector })).items
    .filter((pod) => !pod.metadata?.deletionTimestamp && pod.status?.podIP && isReady(pod))
    .sort((a, b) => String(b.metadata?.creationTimestamp ?? '').localeCompare(String(a.metadata?.creationTimestamp ?? '')));
  for (const pod of pods) {
    const target = servicePort.targetPort ?? port;
    const number =
      typeof target === 'number'
        ? target
        : (pod.spec?.containers ?? []).flatMap((container) => container.ports ?? []).find((containerPort) => containerPort.name === target)?.containerPort;
    if (number === undefined) continue;
    const ip = pod.status!.podIP!;
    return `${ip.includes(':') ? `[${ip}]` : ip}:${number}`;
  }
  return undefined;
}
