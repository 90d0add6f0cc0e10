/** Bounds of one image's verification: what an attacker who can push to the repository can make it read. */
export interface SignatureLimits {
  /** Signature layers tried, at most; more fail the image unless one of the first ones verifies. */
  readonly maxSignatures: number;
  /** The signature manifest (`sha256-<hex>.sig`), read whole. */
  readonly maxManifestBytes: number;
  /** One signature's payload, read whole (so at most `maxSignatures × maxPayloadBytes` per image). */
  readonly maxPayloadBytes: number;
}

export const defaultSignatureLimits: SignatureLimits = {
  maxSignatures: 16,
  maxManifestBytes: 1024 * 1024,
  maxPayloadBytes: 64 * 1024,
};

/** The options that set each limit (the verifier plugin's `signatureLimits`; `olm run`/`olm up` flags). */
export const signatureLimitFlags: Readonly<Record<keyof SignatureLimits, string>> = {
  maxSignatures: '--signature-max-signatures',
  maxManifestBytes: '--signature-max-manifest-bytes',
  maxPayloadBytes: '--signature-max-payload-bytes',
};
