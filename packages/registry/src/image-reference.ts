/**
 * Image pull spec validation as upstream's `reference.ParseNormalizedNamed`
 * (github.com/distribution/reference + go-digest), with the same error texts. Returns undefined
 * for a valid reference, else the reason.
 */
const alphanumeric = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainNameComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const ipv6address = '\\[(?:[a-fA-F0-9:]+)\\]';
const host = `(?:${domainNameComponent}(?:\\.${domainNameComponent})*|${ipv6address})`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const name = `(?:${domainAndPort}/)?${pathComponent}(?:/${pathComponent})*`;
const referencePattern = new RegExp(`^(${name})(?::(${tag}))?(?:@(${digest}))?$`);
const anchoredIdentifier = /^[a-f0-9]{64}$/;
const digestPattern = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const nameTotalLengthMax = 255;

/** Digest algorithms go-digest registers (sha256, sha384, sha512) and their hex lengths. */
const digestLengths: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

function validateDigest(text: string): string | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon + 1 === text.length) return 'invalid checksum digest format';
  const algorithm = text.slice(0, colon);
  const encoded = text.slice(colon + 1);
  const length = digestLengths[algorithm];
  if (length === undefined) {
    return digestPattern.test(text) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  }
  if (encoded.length !== length) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(encoded)) return 'invalid checksum digest format';
  return undefined;
}

function parseReference(text: string): string | undefined {
  const match = referencePattern.exec(text);
  if (match === null) {
    if (text === '') return 'repository name must have at least one component';
    if (referencePattern.test(text.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if ((match[1] ?? '').length > nameTotalLengthMax) return `repository name must not be more than ${nameTotalLengthMax} characters`;
  if (match[3] !== undefined) return validateDigest(match[3]);
  return undefined;
}

function splitDockerDomain(text: string): { domain: string; remainder: string } {
  const slash = text.indexOf('/');
  let domain: string;
  let remainder: string;
  if (slash === -1) {
    domain = 'docker.io';
    remainder = text;
  } else {
    const first = text.slice(0, slash);
    if (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first) {
      domain = 'docker.io';
      remainder = text;
    } else {
      domain = first;
      remainder = text.slice(slash + 1);
    }
  }
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return { domain, remainder };
}

export function validateImageReference(text: string): string | undefined {
  if (anchoredIdentifier.test(text)) {
    return `invalid repository name (${text}), cannot specify 64-byte hexadecimal strings`;
  }
  const { domain, remainder } = splitDockerDomain(text);
  const tagSeparator = remainder.indexOf(':');
  const remoteName = tagSeparator === -1 ? remainder : remainder.slice(0, tagSeparator);
  if (remoteName.toLowerCase() !== remoteName) {
    return `invalid reference format: repository name (${remoteName}) must be lowercase`;
  }
  return parseReference(`${domain}/${remainder}`);
}
