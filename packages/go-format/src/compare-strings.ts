/**
 * Go's string order (`<`, `sort.Strings`, encoding/json's map keys): bytes of UTF-8, which is
 * code-point order. JavaScript's `<` compares UTF-16 units, which differs for characters above
 * U+FFFF against U+E000–U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const codeA = a.charCodeAt(index);
    const codeB = b.charCodeAt(index);
    if (codeA !== codeB) {
      const isSurrogateA = codeA >= 0xd800 && codeA <= 0xdfff;
      const isSurrogateB = codeB >= 0xd800 && codeB <= 0xdfff;
      if (isSurrogateA !== isSurrogateB) return isSurrogateA ? 1 : -1;
      return codeA - codeB;
    }
  }
  return a.length - b.length;
}
