/** Timestamps leave the API as RFC 3339 UTC strings (or null). */
export function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
