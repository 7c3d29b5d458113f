import { FAIR_ROUND_SIZE, fairPriority } from './fair-priority';

describe('fairPriority', () => {
  it("puts an organization's first jobs ahead of another's backlog, round by round", () => {
    expect(fairPriority('live', 0)).toBe(fairPriority('live', FAIR_ROUND_SIZE - 1));
    expect(fairPriority('live', 0)).toBeGreaterThan(fairPriority('live', FAIR_ROUND_SIZE));
    expect(fairPriority('live', FAIR_ROUND_SIZE * 3)).toBeGreaterThan(fairPriority('live', FAIR_ROUND_SIZE * 4));
  });

  it('puts every live job ahead of every sandbox job, however deep the live backlog', () => {
    expect(fairPriority('live', 10_000_000_000)).toBeGreaterThan(fairPriority('sandbox', 0));
    expect(fairPriority('sandbox', 0)).toBeGreaterThan(fairPriority('sandbox', FAIR_ROUND_SIZE));
  });
});
