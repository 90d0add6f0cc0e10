import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';
import { formatFieldError, formatFieldErrors } from './format-field-errors.js';

describe('formatFieldErrors', () => {
  const widget = compileSchema({ type: 'object', properties: { spec: { type: 'object', required: ['name'], properties: { size: { type: 'integer' }, name: { type: 'string' } } } } });

  it('words a single error like the API server', () => {
    expect(formatFieldErrors('Widget.example.com', 'w1', widget.validate({ spec: { name: 'n', size: 'string' } }))).toBe(
      'Widget.example.com "w1" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    );
  });

  it('brackets several errors', () => {
    expect(formatFieldErrors('Widget.example.com', 'w1', widget.validate({ spec: { size: 'x' } }))).toBe(
      'Widget.example.com "w1" is invalid: [spec.name: Required value, spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"]',
    );
  });

  it('formats one error and handles no errors', () => {
    expect(formatFieldError({ field: 'spec.a', type: 'FieldValueRequired', message: 'Required value' })).toBe('spec.a: Required value');
    expect(formatFieldErrors('Widget.example.com', 'w1', [])).toBe('Widget.example.com "w1" is invalid');
  });
});
