import type { Command } from 'commander';
import { plugins } from '../plugins.js';
import { cliVersion } from '../version.js';

export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('print the olm version and the plugins this distribution boots')
    .option('-o, --output <format>', 'text or json', 'text')
    .action((options: { output: string }) => {
      const info = {
        version: cliVersion,
        node: process.versions.node,
        plugins: plugins.map((plugin) => ({ id: plugin.id, version: plugin.version })),
      };
      if (options.output === 'json') {
        process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
        return;
      }
      process.stdout.write(`olm ${info.version} (node ${info.node})\n`);
      for (const plugin of info.plugins) process.stdout.write(`  ${plugin.id} ${plugin.version}\n`);
    });
}
