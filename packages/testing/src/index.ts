export { eventually, sleep, type EventuallyOptions, type Settled } from './eventually.js';
export { startTestCluster, installOlmCrds, kubeconfigFor, testCertificate, type TestCluster, type TestClusterOptions } from './test-cluster.js';
export type { ServedRequest } from '@olm/local-apiserver';
export { startReconcilers, type ReconcilerSet, type RunningReconcilers, type StartReconcilersOptions } from './reconcilers.js';
export {
  condition,
  createNamespace,
  createOperatorNamespace,
  createUnlessExists,
  grpcCatalogSource,
  operatorGroup,
  subscription,
  type Condition,
  type OperatorNamespaceOptions,
  type TestObject,
} from './olm-objects.js';
export { kubectlAvailable, kubectlBinary, kubectlFor, type Kubectl, type KubectlResult } from './kubectl.js';
export { consoleLoggerIfRequested, recordingLogger, type LoggedWarning } from './recording-logger.js';
export { freeLoopbackPort } from './free-port.js';
export { dockerRegistryBinary, htpasswdLine, startDockerRegistry, type DockerRegistry } from './docker-registry.js';
export { httpsGet, type HttpsReply } from './https-get.js';
