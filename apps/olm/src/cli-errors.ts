import { OlmError } from '@olm/core';

/** Exit codes used by every command: 0 ok, 1 the checked thing is invalid or failed, 2 bad usage or input. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const;

const USAGE_CODES = new Set(['OLM_CLI_USAGE', 'OLM_CLI_INPUT']);

/** Bad flags or arguments: exit 2. */
export function usageError(message: string): OlmError {
  return new OlmError('OLM_CLI_USAGE', message);
}

/** Input that cannot be read or parsed (a missing file, bad YAML): exit 2. */
export function inputError(message: string, cause?: unknown): OlmError {
  return new OlmError('OLM_CLI_INPUT', message, { cause });
}

export function exitCodeFor(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (USAGE_CODES.has(code) || code.endsWith('_INPUT') || code.endsWith('_USAGE'))) {
    return ExitCode.usage;
  }
  return ExitCode.failed;
}

/** Errors that mean no API server answered at the kubeconfig's address. */
const unreachable = /\b(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|ETIMEDOUT|EAI_AGAIN)\b/;

/** How to fix a failure the message alone does not say how to fix, or undefined. */
export function hintFor(error: unknown): string | undefined {
  const messages: string[] = [];
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    messages.push(String((current as { message?: unknown }).message ?? current), String((current as { code?: unknown }).code ?? ''));
  }
  if (messages.some((message) => unreachable.test(message))) {
    return 'no Kubernetes API server answered there: start one (`olm up` writes .olm/kubeconfig), or point --kubeconfig or KUBECONFIG at a running cluster';
  }
  return undefined;
}
