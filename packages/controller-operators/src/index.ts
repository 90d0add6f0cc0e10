export * from './component-kinds.js';
export * from './component-labels.js';
export * from './component-references.js';
export { adopt, disown, listComponents, type Component } from './components.js';
export * from './controller.js';
export { isCopiedCsv, ownedComponents } from './csv-adoption-reconciler.js';
export * from './plugin.js';
