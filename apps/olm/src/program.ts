import { describeError } from '@olm/core';
import { Command, CommanderError } from 'commander';
import { ExitCode, exitCodeFor } from './cli-errors.js';
import { commandRegistrars } from './commands/index.js';
import { cliVersion } from './version.js';

export function createProgram(): Command {
  const program = new Command('olm')
    .description('Operator Lifecycle Manager: install, upgrade and keep operators consistent on a Kubernetes cluster')
    .version(cliVersion, '--version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Subcommands inherit exitOverride from the program, so usage errors reach runCli as exceptions.
  for (const register of commandRegistrars) register(program);
  return program;
}

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = createProgram();
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
    return exitCodeFor(error);
  }
}
