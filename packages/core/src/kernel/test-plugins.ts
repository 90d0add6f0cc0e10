import { createKeyedExtensionPoint, createListExtensionPoint, createSingleExtensionPoint } from './extension-point.js';
import { definePlugin, type Plugin, type PluginDefinition } from './plugin.js';

// Points and a plugin builder shared by the kernel's tests.
export const greeter = createSingleExtensionPoint<{ greet(name: string): string }>({
  id: 'test.greeter',
  description: 'says hello',
  hint: 'boot @test/plugin-greeter',
});
export const shapes = createKeyedExtensionPoint<{ name: string; sides: number }>({
  id: 'test.shapes',
  description: 'shapes by name',
  keyOf: (shape) => shape.name,
});
export const checks = createListExtensionPoint<string>({ id: 'test.checks', description: 'preflight checks' });

/** A plugin with version 1.0.0 and an init that does nothing, unless `extra` says otherwise. */
export const plain = (id: string, extra: Partial<PluginDefinition> = {}): Plugin => definePlugin({ id, version: '1.0.0', init: () => {}, ...extra });
