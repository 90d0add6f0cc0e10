import { isIP, isIPv4, isIPv6 } from 'node:net';

/**
 * The `format`s Kubernetes checks in custom resources (kube-openapi's strfmt registry). Any other
 * format is accepted without a check, as Kubernetes does.
 */
export interface FormatCheck {
  /** The JSON type the format applies to; values of other types are not checked. */
  type: 'string' | 'number';
  validate: (value: never) => boolean;
}

const regex = (pattern: RegExp): FormatCheck => ({ type: 'string', validate: (value: string) => pattern.test(value) });
const string = (validate: (value: string) => boolean): FormatCheck => ({ type: 'string', validate });
const number = (validate: (value: number) => boolean): FormatCheck => ({ type: 'number', validate });

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const fullDate = /^\d{4}-\d{2}-\d{2}$/;
const hostname = /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidVersion = (version: string) => new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${version}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const goDuration = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const wordDuration = /^\d+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|min|hr)$/i;

function isValidDate(value: string): boolean {
  const time = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value.replace(' ', 'T'));
  return !Number.isNaN(time);
}

function isUri(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isCidr(value: string): boolean {
  const slash = value.lastIndexOf('/');
  if (slash < 0) return false;
  const address = value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  return (isIPv4(address) && bits <= 32) || (isIPv6(address) && bits <= 128);
}

function isBase64(value: string): boolean {
  const compact = value.replace(/\s/g, '');
  return /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact) || /^[A-Za-z0-9_-]*={0,2}$/.test(compact);
}

export const kubernetesFormats: Readonly<Record<string, FormatCheck>> = {
  int32: number((value) => Number.isInteger(value) && value >= -2147483648 && value <= 2147483647),
  int64: number((value) => Number.isInteger(value)),
  float: number((value) => Number.isFinite(value)),
  double: number((value) => Number.isFinite(value)),
  byte: string(isBase64),
  password: string(() => true),
  date: string((value) => fullDate.test(value) && isValidDate(value)),
  'date-time': string((value) => rfc3339.test(value) && isValidDate(value)),
  datetime: string((value) => rfc3339.test(value) && isValidDate(value)),
  duration: string((value) => goDuration.test(value) || wordDuration.test(value)),
  uri: string(isUri),
  email: regex(/^[^\s@]+@[^\s@]+$/),
  hostname: regex(hostname),
  ipv4: string(isIPv4),
  ipv6: string(isIPv6),
  ip: string((value) => isIP(value) !== 0),
  cidr: string(isCidr),
  mac: regex(/^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/),
  uuid: regex(uuid),
  uuid3: regex(uuidVersion('3')),
  uuid4: regex(uuidVersion('4')),
  uuid5: regex(uuidVersion('5')),
  bsonobjectid: regex(/^[0-9a-fA-F]{24}$/),
  hexcolor: regex(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
  rgbcolor: regex(/^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/),
};
