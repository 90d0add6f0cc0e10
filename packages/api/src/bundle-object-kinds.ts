/**
 * The kinds a registry+v1 bundle may ship besides its ClusterServiceVersion and CRDs (upstream
 * operator-registry's supported bundle resources), each with whether it is namespaced: an installer
 * puts a namespaced one in the install namespace and refuses any kind not listed.
 */
export const bundleObjectKinds: ReadonlyMap<string, { readonly namespaced: boolean }> = new Map([
  ['Secret', { namespaced: true }],
  ['ClusterRole', { namespaced: false }],
  ['ClusterRoleBinding', { namespaced: false }],
  ['ConfigMap', { namespaced: true }],
  ['ServiceAccount', { namespaced: true }],
  ['Service', { namespaced: true }],
  ['Role', { namespaced: true }],
  ['RoleBinding', { namespaced: true }],
  ['PrometheusRule', { namespaced: true }],
  ['ServiceMonitor', { namespaced: true }],
  ['PodDisruptionBudget', { namespaced: true }],
  ['PriorityClass', { namespaced: false }],
  ['VerticalPodAutoscaler', { namespaced: true }],
  ['ConsoleYAMLSample', { namespaced: false }],
  ['ConsoleQuickStart', { namespaced: false }],
  ['ConsoleCLIDownload', { namespaced: false }],
  ['ConsoleLink', { namespaced: false }],
  ['NetworkPolicy', { namespaced: true }],
]);
