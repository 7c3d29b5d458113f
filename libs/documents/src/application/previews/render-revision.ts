/** Bumped whenever the renderers change what they draw: cached renders and ETags then change too. */
export const RENDER_REVISION = 'r1';

/** If-None-Match: `*`, or a list of entity tags compared weakly (RFC 9110 §13.1.2). */
export function matchesEtag(header: string, tag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === `"${tag}"`);
}
