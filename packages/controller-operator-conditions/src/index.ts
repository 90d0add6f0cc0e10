// What other packages and apps use: the plugin and the controller as a library.
export { createOperatorConditionsController, type OperatorConditionsController, type OperatorConditionsControllerOptions } from './controller.js';
export { controllerOperatorConditionsPlugin, createControllerOperatorConditionsPlugin, type ControllerOperatorConditionsPluginOptions } from './plugin.js';
