/** Error codes of image signature verification; see `isImageSignatureRefusal` (`@olm/core`) for those that refuse the image. */
export const ImageSignatureErrorCodes = {
  /** No signature at all for the digest (no `sha256-<hex>.sig` manifest). */
  unsigned: 'OLM_IMAGE_SIGNATURE_UNSIGNED',
  /** Signatures exist, none verifies with the policy. */
  invalid: 'OLM_IMAGE_SIGNATURE_INVALID',
  /** Past a bound: more signatures than are tried, a manifest or payload too large. */
  limitExceeded: 'OLM_IMAGE_SIGNATURE_LIMIT_EXCEEDED',
  /** The policy cannot be used: missing, or a key, trusted root or identity that does not parse. */
  policy: 'OLM_IMAGE_SIGNATURE_POLICY',
  /** A key given to sign with cannot be used. */
  signingKey: 'OLM_IMAGE_SIGNATURE_SIGNING_KEY',
} as const;
