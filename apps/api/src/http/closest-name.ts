import leven from 'leven';

/**
 * The known name a mistyped one most likely meant (`limt` → `limit`, `externalId` → `external_id`):
 * compared without case and separators first, then by edit distance, at most a third of the name.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const bare = normalize(name);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = leven(bare, normalize(candidate));
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(bare.length / 3)) ? best.name : undefined;
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[_\-.\s]/g, '');
}
