import type { CatalogLimits } from '@olm/registry';
import type { Command } from 'commander';
import { parsePositiveInteger } from '../option-parsers.js';

/** The flags of `olm catalog validate|render|serve|graph` that raise the registry's catalog limits. */
const limitFlags: ReadonlyArray<{ readonly flag: string; readonly key: keyof CatalogLimits; readonly description: string }> = [
  { flag: '--max-file-bytes <bytes>', key: 'maxFileBytes', description: 'largest catalog file, checked before reading it (default 64 MiB)' },
  { flag: '--max-file-decoded-bytes <bytes>', key: 'maxFileDecodedBytes', description: 'most decoded bytes (YAML aliases written out) of one file (default 128 MiB)' },
  { flag: '--max-catalog-decoded-bytes <bytes>', key: 'maxCatalogDecodedBytes', description: 'most decoded bytes of the whole catalog (default 256 MiB)' },
  { flag: '--max-catalog-documents <count>', key: 'maxCatalogDocuments', description: 'most documents in the whole catalog (default 100000)' },
];

/** What commander parses from those flags (their camelCase names are the limits' names). */
export type CatalogLimitOptions = Partial<Record<keyof CatalogLimits, number>>;

export function addCatalogLimitOptions(command: Command): Command {
  for (const { flag, description } of limitFlags) command.option(flag, description, parsePositiveInteger);
  return command;
}

/** The limits given on the command line (the registry's defaults fill the rest). */
export function catalogLimitsFromOptions(options: CatalogLimitOptions): Partial<CatalogLimits> {
  const limits: Partial<Record<keyof CatalogLimits, number>> = {};
  for (const { key } of limitFlags) {
    const value = options[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}
