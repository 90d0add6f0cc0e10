import { describeError } from '@olm/core';
import { Command, CommanderError } from 'commander';
import { ExitCode, exitCodeFor, hintFor } from './cli-errors.js';
import { commandRegistrars } from './commands/index.js';
import { olmDistribution, type Distribution } from './distribution.js';

export function createProgram(distribution: Distribution = olmDistribution): Command {
  const program = new Command(distribution.name)
    .description(distribution.description ?? olmDistribution.description ?? '')
    .version(distribution.version, '--version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    // Program options only before the command name, so that `olm install P --version 1.2.0` is install's.
    .enablePositionalOptions()
    .exitOverride();
  // Subcommands inherit exitOverride from the program, so usage errors reach runCli as exceptions.
  for (const register of commandRegistrars) register(program, distribution);
  return program;
}

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function runCli(argv: readonly string[], distribution: Distribution = olmDistribution): Promise<number> {
  const program = createProgram(distribution);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; everything else commander rejects is bad usage.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return ExitCode.ok;
      }
      return ExitCode.usage;
    }
    process.stderr.write(`error: ${describeError(error)}\n`);
    const hint = hintFor(error);
    if (hint !== undefined) process.stderr.write(`hint: ${hint}\n`);
    return exitCodeFor(error);
  }
}

/**
 * The entry point of a distribution's `cli.ts`: every `olm` command, booting the given
 * distribution's plugins. Returns the exit code (set it as `process.exitCode`).
 */
export function runDistribution(distribution: Distribution, argv: readonly string[]): Promise<number> {
  return runCli(argv, distribution);
}
