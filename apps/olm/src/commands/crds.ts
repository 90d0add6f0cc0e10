import type { Command } from 'commander';

export function registerCrdsCommand(program: Command): void {
  program
    .command('crds')
    .description("print OLM's CustomResourceDefinitions (operators.coreos.com) as YAML, e.g. for `kubectl apply -f -`")
    .action(async () => {
      const { renderCrdsYaml } = await import('@olm/api');
      process.stdout.write(renderCrdsYaml());
    });
}
