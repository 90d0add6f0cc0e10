export * from './controller.js';
export * from './group-cluster-role-names.js';
export { createOperatorGroupReconciler, type OperatorGroupServices } from './operator-group-reconciler.js';
export * from './plugin.js';
export * from './target-namespaces.js';
