export * from './condition-status-sync.js';
export * from './controller.js';
export * from './desired-operator-condition.js';
export * from './kinds.js';
export * from './operator-condition-rbac.js';
export * from './plugin.js';
