import { createRequire } from 'node:module';
import { definePlugin } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { lazyPlugin, loadPlugins } from './lazy-plugin.js';
import { plugins } from './plugins.js';

const plain = (id: string, version = '1.0.0') => definePlugin({ id, version, init() {} });

describe('lazy plugins', () => {
  it('imports nothing until loaded, then gives the plugins in list order; loaded plugins pass through', async () => {
    let imported = 0;
    const list = [lazyPlugin('a', '1.0.0', async () => (imported++, plain('a'))), plain('b'), lazyPlugin('c', '1.0.0', async () => (imported++, plain('c')))];
    expect(imported).toBe(0);
    expect((await loadPlugins(list)).map((plugin) => plugin.id)).toEqual(['a', 'b', 'c']);
    expect(imported).toBe(2);
  });

  it('refuses a list entry that loads another plugin or version than it names', async () => {
    const list = [lazyPlugin('a', '1.0.0', async () => plain('a', '2.0.0')), lazyPlugin('b', '1.0.0', async () => plain('x'))];
    await expect(loadPlugins(list)).rejects.toThrow('the plugin list names plugins other than the ones it loads: "a" 1.0.0 loads "a" 2.0.0; "b" 1.0.0 loads "x" 1.0.0');
  });

  it("this distribution's list names the plugins it loads", async () => {
    const loaded = await loadPlugins(plugins);
    expect(loaded.map((plugin) => `${plugin.id} ${plugin.version}`)).toEqual(plugins.map((entry) => `${entry.id} ${entry.version}`));
  });

  it('gives each plugin, and its list entry, the version in its package.json (none is typed by hand)', async () => {
    const require = createRequire(import.meta.url);
    // A plugin is named after its package, but for the deployment strategy, which the CSV controller's package contributes.
    const packageOf: Record<string, string> = { 'install-strategy-deployment': 'controller-csv' };
    const packageVersion = (id: string) => (require(`@olm/${packageOf[id] ?? id}/package.json`) as { version: string }).version;
    for (const plugin of await loadPlugins(plugins)) expect(`${plugin.id} ${plugin.version}`).toBe(`${plugin.id} ${packageVersion(plugin.id)}`);
  });
});
