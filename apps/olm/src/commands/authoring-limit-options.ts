import type { AuthoringLimits } from '@olm/bundle-authoring';
import type { Command } from 'commander';
import { parsePositiveInteger } from '../option-parsers.js';

/** What commander parses from the flags of `addAuthoringLimitOptions` (camelCase: the limits' names). */
export type AuthoringLimitOptions = Partial<Record<keyof AuthoringLimits, number>>;

/**
 * `--max-files`, `--max-total-bytes` and (unless the command has the catalog's own) `--max-file-bytes`:
 * bounds on what is read from a bundle or catalog directory.
 */
export function addAuthoringLimitOptions(command: Command, { fileBytes = true } = {}): Command {
  command.option('--max-files <count>', 'most files read below the directory (default 10000)', parsePositiveInteger);
  if (fileBytes) command.option('--max-file-bytes <bytes>', 'largest file, checked before reading it (default 64 MiB)', parsePositiveInteger);
  return command.option('--max-total-bytes <bytes>', 'most bytes of all files together (default 256 MiB)', parsePositiveInteger);
}

/** The limits given on the command line, the defaults filling the rest. */
export async function authoringLimitsFromOptions(options: AuthoringLimitOptions): Promise<AuthoringLimits> {
  const { defaultAuthoringLimits } = await import('@olm/bundle-authoring');
  return {
    maxFiles: options.maxFiles ?? defaultAuthoringLimits.maxFiles,
    maxFileBytes: options.maxFileBytes ?? defaultAuthoringLimits.maxFileBytes,
    maxTotalBytes: options.maxTotalBytes ?? defaultAuthoringLimits.maxTotalBytes,
  };
}
