// What other packages and apps use: the plugin, the controller as a library, and the component names
// `olm uninstall` reads.
export { Kinds } from './component-kinds.js';
export { componentLabelKey, operatorNameFor } from './component-labels.js';
export { createOperatorsController, type OperatorsController, type OperatorsControllerOptions } from './controller.js';
export { controllerOperatorsPlugin, createControllerOperatorsPlugin, type ControllerOperatorsPluginOptions } from './plugin.js';
