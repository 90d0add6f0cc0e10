import { describe, expect, it } from 'vitest';
import { renderValidationTree } from './validation-tree.js';

describe('renderValidationTree (upstream alpha/model/error.go format)', () => {
  it('draws nested errors with ├── / └── and continuation bars', () => {
    const text = renderValidationTree({
      message: 'hello',
      children: [
        { message: 'foo', children: ['foo1', 'foo2'] },
        { message: 'bar', children: ['bar1', 'bar2'] },
      ],
    });
    expect(text).toBe('hello:\n├── foo:\n│   ├── foo1\n│   └── foo2\n└── bar:\n    ├── bar1\n    └── bar2');
  });

  it('prints a node without children as its message and an empty node as nothing', () => {
    expect(renderValidationTree({ message: 'hello', children: [{ message: 'foo', children: [] }, 'x'] })).toBe('hello:\n├── foo\n└── x');
    expect(renderValidationTree({ message: '', children: [] })).toBe('');
  });
});
