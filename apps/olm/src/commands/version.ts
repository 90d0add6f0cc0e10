import type { Command } from 'commander';
import { bootedPlugins, olmDistribution, type Distribution } from '../distribution.js';

export function registerVersionCommand(program: Command, distribution: Distribution = olmDistribution): void {
  program
    .command('version')
    .description(`print the ${distribution.name} version and the plugins this distribution boots`)
    .option('-o, --output <format>', 'text or json', 'text')
    .action((options: { output: string }) => {
      const info = {
        version: distribution.version,
        node: process.versions.node,
        plugins: bootedPlugins(distribution).map((plugin) => ({ id: plugin.id, version: plugin.version })),
      };
      if (options.output === 'json') {
        process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${distribution.name} ${info.version} (node ${info.node})\n`);
      for (const plugin of info.plugins) process.stdout.write(`  ${plugin.id} ${plugin.version}\n`);
    });
}
