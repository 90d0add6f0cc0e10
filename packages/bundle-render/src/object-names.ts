import { createHash } from 'node:crypto';
import { goJson } from '@olm/go-format';
import type { GoJsonValue } from '@olm/plugin-rbac';

/** Upper bound of generated names: a DNS label, so they fit wherever a name may go. */
export const maxGeneratedNameLength = 63;

/**
 * base36 of SHA-224 over the JSON Go's `json.Encoder` writes for `content` (with its newline), as
 * OLM v1 hashes a permission entry for its Role names.
 */
export function contentHash(content: GoJsonValue): string {
  const digest = createHash('sha224').update(`${goJson(content)}\n`, 'utf8').digest('hex');
  return BigInt(`0x${digest}`).toString(36);
}

/**
 * `<base>-<suffix>`, the base cut so the whole is at most 63 characters. Upstream cuts only when
 * base and suffix together pass 63, so its name can reach 64 characters (one too many for a label
 * value); this cuts one character earlier.
 */
export function nameForBaseAndSuffix(base: string, suffix: string): string {
  const room = maxGeneratedNameLength - suffix.length - 1;
  return `${base.length > room ? base.slice(0, room) : base}-${suffix}`;
}

/** OLM v1's name of generated RBAC: `<base>-<hash of content>`, at most 63 characters. */
export function uniqueName(base: string, content: GoJsonValue): string {
  return nameForBaseAndSuffix(base, contentHash(content));
}
