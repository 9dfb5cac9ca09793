/**
 * About how long `JSON.stringify(value)` would be, counted without building it, so that a byte budget can be checked
 * on values that have no serialized form at hand (a notification's params, a list page). Strings count their length
 * and quotes (escapes are not counted), numbers their digits, arrays and objects their brackets, separators and keys;
 * what JSON leaves out (`undefined`, functions, symbols) counts nothing.
 *
 * Counting stops as soon as the total passes `limit`, so the work is bounded by the budget, not by the value: the
 * answer is then some number above `limit`. A cycle or a very deep value therefore ends there too (every level
 * counts), so `limit` must be finite.
 *
 * @example
 * if (jsonSizeUpTo(params, budgetLeft) > budgetLeft) return refuse();
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  if (!Number.isFinite(limit)) throw new RangeError('limit must be a finite number');
  let size = 0;
  // An explicit stack rather than recursion: a deeply nested value cannot overflow the call stack.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    switch (typeof item) {
      case 'string':
        size += item.length + 2;
        break;
      case 'number':
        size += Number.isFinite(item) ? String(item).length : 4;
        break;
      case 'boolean':
        size += item ? 4 : 5;
        break;
      case 'object':
        if (item === null) size += 4;
        else if (Array.isArray(item)) {
          size += 2 + item.length;
          if (size > limit) return size;
          for (let index = item.length - 1; index >= 0; index--) stack.push(item[index]);
        } else if (item instanceof Date) size += 26;
        else {
          size += 2;
          for (const key in item) {
            if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
            size += key.length + 4;
            if (size > limit) return size;
            stack.push((item as Record<string, unknown>)[key]);
          }
        }
        break;
      case 'bigint':
        size += String(item).length;
        break;
      default:
        break;
    }
    if (size > limit) return size;
  }
  return size;
}
