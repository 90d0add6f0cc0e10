import type { Command } from 'commander';

/** The subcommand group `name` (e.g. `catalog`), created on first use so each subcommand can live in its own file. */
export function commandGroup(program: Command, name: string, description: string): Command {
  return program.commands.find((command) => command.name() === name) ?? program.command(name).description(description);
}
