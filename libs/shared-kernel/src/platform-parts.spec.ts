import { PLATFORM_PARTS, PlatformParts } from './platform-parts';

describe('PlatformParts', () => {
  it('holds only the parts a host opted into', () => {
    const parts = new PlatformParts(['job-workers']);
    expect(PLATFORM_PARTS.filter((part) => parts.has(part))).toEqual(['job-workers']);
  });

  it('gives the outbox relay the listener that wakes it', () => {
    const parts = new PlatformParts(['outbox-relay']);
    expect(parts.has('notifications')).toBe(true);
    expect(parts.has('job-workers')).toBe(false);
  });

  it('holds every part for a host that runs them all', () => {
    const parts = PlatformParts.all();
    expect(PLATFORM_PARTS.every((part) => parts.has(part))).toBe(true);
  });
});
