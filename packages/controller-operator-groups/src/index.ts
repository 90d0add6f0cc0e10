// What other packages and apps use: the plugin and the controller as a library.
export { createOperatorGroupsController, type OperatorGroupsController, type OperatorGroupsControllerOptions } from './controller.js';
export { controllerOperatorGroupsPlugin, createControllerOperatorGroupsPlugin, type ControllerOperatorGroupsPluginOptions } from './plugin.js';
