import { createSingleExtensionPoint } from '@olm/core';
import type { KubeClient } from './kube-client.js';

/**
 * The one Kubernetes client of the process, shared by every plugin that talks to the cluster. The app
 * builds it from the kubeconfig, provides it to `boot`, and closes it after the kernel stopped.
 */
export const kubeClient = createSingleExtensionPoint<KubeClient>({
  id: 'olm.kubeClient',
  description: 'the shared Kubernetes client',
  hint: 'the app provides it: boot({ provide: [provision(kubeClient, new KubeClient({ kubeconfig }))] }) with kubeClient from @olm/controller-runtime',
});
