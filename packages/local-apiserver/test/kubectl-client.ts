import { execFile, execFileSync } from 'node:child_process';

/** kubectl as an independent client: `$KUBECTL`, else `kubectl` on PATH; tests skip with a reason when absent. */
export const kubectl = process.env['KUBECTL'] ?? 'kubectl';

/** The client's minor version (32 for 1.32), or undefined when kubectl cannot run. */
export function kubectlMinorVersion(): number | undefined {
  try {
    const output = execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    const minor = Number.parseInt((JSON.parse(output) as { clientVersion?: { minor?: string } }).clientVersion?.minor ?? '', 10);
    return Number.isNaN(minor) ? undefined : minor;
  } catch {
    return undefined;
  }
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl to completion (never rejects: a failure is a non-zero `code` with its stderr). */
export function runKubectl(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string; input?: string }): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(kubectl, args, { env: options.env, cwd: options.cwd, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
