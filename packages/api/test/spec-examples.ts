import { readFileSync } from 'node:fs';

/** A YAML manifest found in a spec document. */
export interface SpecExample {
  file: string;
  /** 1-based line of the `apiVersion:` line. */
  line: number;
  text: string;
}

const specDir = new URL('../../../../shared/spec/', import.meta.url);

const entities: Record<string, string> = { '&#34;': '"', '&quot;': '"', '&#39;': "'", '&amp;': '&', '&lt;': '<', '&gt;': '>' };

/**
 * Finds the manifests embedded in a spec document: blocks that start with an
 * `apiVersion: operators.coreos.com/...` line and run until a blank line, a code fence, or prose at
 * column 0 (a line that is not a `key:`). The block is dedented and HTML entities are decoded
 * (one document is an HTML export).
 */
export function extractExamples(file: string): SpecExample[] {
  const lines = readFileSync(new URL(file, specDir), 'utf8')
    .split('\n')
    .map((line) => line.replace(/&#34;|&quot;|&#39;|&amp;|&lt;|&gt;/g, (entity) => entities[entity] ?? entity));
  const examples: SpecExample[] = [];
  for (let start = 0; start < lines.length; start++) {
    const first = lines[start] ?? '';
    if (!/^\s*apiVersion:\s*["']?operators\.coreos\.com\//.test(first)) continue;
    const block = [first];
    let end = start + 1;
    for (; end < lines.length; end++) {
      const line = lines[end] ?? '';
      if (line.trim() === '' || line.trimStart().startsWith('```')) break;
      if (!/^\s/.test(line) && !/^[A-Za-z][\w.-]*:(\s|$)/.test(line)) break;
      block.push(line);
    }
    const indent = Math.min(...block.map((line) => line.match(/^ */)?.[0].length ?? 0));
    examples.push({ file, line: start + 1, text: `${block.map((line) => line.slice(indent)).join('\n')}\n` });
    start = end - 1;
  }
  return examples;
}
