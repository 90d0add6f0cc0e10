import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import type { RunOptions } from '../src/commands/run.js';
import { runCli } from '../src/program.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `olm run` options for a test: the global catalog namespace `olm`, every namespace watched, metrics on a
 * free local port, no logs (`OLM_TEST_LOG_LEVEL` to see them), no leader election, ten minutes at most;
 * `overrides` win.
 */
export function testRunOptions(overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    namespace: 'olm',
    watchNamespaces: [],
    metricsPort: 0,
    metricsHost: '127.0.0.1',
    logLevel: (process.env.OLM_TEST_LOG_LEVEL ?? 'silent') as RunOptions['logLevel'],
    leaderElection: false,
    runFor: 600_000,
    ...overrides,
  };
}

/** Runs the CLI in-process and captures what it writes. */
export async function runCliCaptured(args: readonly string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const previousExitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    const code = await runCli(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = previousExitCode;
  }
}

/** The built CLI (`pnpm build`), for tests that run it as a separate process. */
export const builtCli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

export interface BackgroundRun {
  /** stdout and stderr so far, interleaved as written. */
  output(): string;
  stdout(): string;
  /** SIGTERM unless it has exited; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * The built `olm run` as a separate process against a kubeconfig, as one replica runs it (no leader
 * election, metrics on a free loopback port, errors logged only, at most two minutes), with `flags`.
 */
export function startBuiltOlmRun(kubeconfig: string, flags: readonly string[]): BackgroundRun {
  const args = [builtCli, 'run', '--kubeconfig', kubeconfig, ...flags, '--no-leader-election', '--metrics-port', '0', '--metrics-host', '127.0.0.1', '--log-level', 'error', '--run-for', '120000'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => output,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
