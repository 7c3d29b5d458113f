/**
 * JSON.stringify with the keys of every object sorted (by UTF-16 code units), so equal data
 * always yields the same text, whatever the insertion order: request fingerprints and cursor
 * bindings are hashes of it. Otherwise as JSON.stringify: toJSON is honoured, undefined,
 * function and symbol properties are dropped (null inside arrays), NaN and ±Infinity become
 * null, a bigint throws.
 */
export function canonicalJson(value: unknown): string {
  const text = serialise(value, '');
  if (text === undefined) {
    throw new TypeError('The value has no JSON representation.');
  }
  return text;
}

function serialise(input: unknown, key: string): string | undefined {
  const value = hasToJson(input) ? input.toJSON(key) : input;
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value) as string | undefined;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => serialise(item, String(index)) ?? 'null').join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const name of Object.keys(record).sort()) {
    const text = serialise(record[name], name);
    if (text !== undefined) {
      members.push(`${JSON.stringify(name)}:${text}`);
    }
  }
  return `{${members.join(',')}}`;
}

function hasToJson(value: unknown): value is { toJSON(key: string): unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
