import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** kubectl as an independent client: `$KUBECTL`, else `kubectl` on the PATH. */
export const kubectlBinary = process.env['KUBECTL'] ?? 'kubectl';

/** Whether `kubectl version --client` runs on this machine. */
export function kubectlAvailable(): boolean {
  try {
    execFileSync(kubectlBinary, ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Kubectl {
  /** Runs kubectl with these arguments; never rejects (a failure is a non-zero code). */
  run(args: readonly string[]): Promise<KubectlResult>;
  /** Runs kubectl and returns its stdout; a non-zero exit rejects with what kubectl said. */
  runOk(args: readonly string[]): Promise<string>;
  /** Removes the discovery cache and home directory. */
  close(): void;
}

/**
 * kubectl against a kubeconfig file, with a discovery cache and HOME of its own (so one test's
 * cached discovery never answers another's cluster); `close()` removes them.
 */
export function kubectlFor(kubeconfigPath: string): Kubectl {
  const workDir = mkdtempSync(join(tmpdir(), 'olm-test-kubectl-'));
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
  const run = (args: readonly string[]) =>
    new Promise<KubectlResult>((resolve) => {
      execFile(kubectlBinary, [...args], { env, cwd: workDir, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  return {
    run,
    async runOk(args) {
      const result = await run(args);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    close: () => rmSync(workDir, { recursive: true, force: true }),
  };
}
