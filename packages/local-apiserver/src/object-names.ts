import { randomInt } from 'node:crypto';
import type { FieldProblem } from './errors.js';

/** Object name rules and `generateName`. */
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export type NameRule = 'subdomain' | 'label' | 'path-segment';

/** The 5-character random suffix alphabet of `generateName` (no vowels, no confusable digits). */
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

export function generateNameSuffix(): string {
  let out = '';
  for (let index = 0; index < 5; index++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function validateObjectName(name: string, rule: NameRule, field = 'metadata.name'): FieldProblem[] {
  if (rule === 'path-segment') {
    if (name === '.' || name === '..') return [{ field, reason: 'FieldValueInvalid', message: `Invalid value: "${name}": may not be '${name}'` }];
    for (const bad of ['/', '%']) {
      if (name.includes(bad)) return [{ field, reason: 'FieldValueInvalid', message: `Invalid value: "${name}": may not contain '${bad}'` }];
    }
    return [];
  }
  if (rule === 'label') {
    if (name.length > 63 || !dnsLabel.test(name)) {
      return [
        {
          field,
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        },
      ];
    }
    return [];
  }
  if (name.length > 253 || !dnsSubdomain.test(name)) {
    return [
      {
        field,
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      },
    ];
  }
  return [];
}
