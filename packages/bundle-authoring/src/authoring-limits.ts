import { OlmError } from '@olm/core';

/** Bounds on what is read from a bundle or catalog directory before it is validated or packed into an image. */
export interface AuthoringLimits {
  /** Most files (and directories) read below the directory. */
  readonly maxFiles: number;
  /** Largest single file, refused from its size before it is read. */
  readonly maxFileBytes: number;
  /** Most bytes of all files together. */
  readonly maxTotalBytes: number;
}

/**
 * A bundle is a few manifests (upstream's unpack Job keeps them in one ConfigMap, 1 MiB); a catalog
 * a few hundred MB at most. Both fit these bounds; past them the input is refused before it is read whole.
 */
export const defaultAuthoringLimits: AuthoringLimits = Object.freeze({
  maxFiles: 10_000,
  maxFileBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
});

/** The `olm bundle|catalog build|validate` flag that raises each limit. */
export const authoringLimitFlags: Readonly<Record<keyof AuthoringLimits, string>> = Object.freeze({
  maxFiles: '--max-files',
  maxFileBytes: '--max-file-bytes',
  maxTotalBytes: '--max-total-bytes',
});

export const AuthoringErrorCodes = {
  /** The directory cannot be read, or is past a limit: exit 2 in the CLI. */
  input: 'OLM_AUTHORING_INPUT',
  /** The bundle or catalog has validation errors. */
  invalid: 'OLM_AUTHORING_INVALID',
  /** The image read is not a bundle or catalog image. */
  notRenderable: 'OLM_AUTHORING_NOT_RENDERABLE',
} as const;

/** The error of a directory past one of its limits: where, which limit, and the flag that raises it. */
export function authoringLimitExceeded(limit: keyof AuthoringLimits, limits: AuthoringLimits, where: string, found: string): OlmError {
  return new OlmError(
    AuthoringErrorCodes.input,
    `${where} ${found}, past the limit ${limit} of ${limits[limit]}; raise it with ${authoringLimitFlags[limit]} (option limits.${limit}) if the input really is this large`,
    { details: { limit, value: limits[limit] } },
  );
}
