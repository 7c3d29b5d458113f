import { migrateRequest, PlanMigration } from './plan-migration';

const now = new Date('2026-11-25T10:00:00Z');
const later = new Date('2026-11-26T10:00:00Z');

function refusal(input: Parameters<typeof migrateRequest>[0]): unknown {
  try {
    migrateRequest(input, now);
  } catch (error) {
    return { code: (error as { code: string }).code, param: (error as { param: string }).param };
  }
  return undefined;
}

describe('migrateRequest (model §4.8)', () => {
  it('takes the mode in any case and answers it upper case; proration defaults to create_prorations', () => {
    expect(migrateRequest({ mode: 'preview', targetVersion: 2 }, now)).toEqual({
      mode: 'PREVIEW',
      targetVersion: 2,
      prorationStrategy: 'create_prorations',
      scheduledAt: null,
    });
    expect(
      migrateRequest({ mode: 'Scheduled', targetVersion: 1, prorationStrategy: 'none', scheduledAt: later }, now),
    ).toMatchObject({ mode: 'SCHEDULED', scheduledAt: later });
  });

  it.each([
    [{ mode: 'later', targetVersion: 1 }, 'mode'],
    [{ mode: 7, targetVersion: 1 }, 'mode'],
    [{ mode: 'IMMEDIATE', targetVersion: 0 }, 'target_version'],
    [{ mode: 'IMMEDIATE', targetVersion: 2.5 }, 'target_version'],
    [{ mode: 'IMMEDIATE', targetVersion: '2' }, 'target_version'],
    [{ mode: 'IMMEDIATE', targetVersion: 2, prorationStrategy: 'prorate' }, 'proration_strategy'],
    [{ mode: 'SCHEDULED', targetVersion: 2 }, 'scheduled_at'],
    [{ mode: 'SCHEDULED', targetVersion: 2, scheduledAt: now }, 'scheduled_at'],
    [{ mode: 'IMMEDIATE', targetVersion: 2, scheduledAt: later }, 'scheduled_at'],
    [{ mode: 'PREVIEW', targetVersion: 2, scheduledAt: later }, 'scheduled_at'],
  ])('refuses %j (400 on %s)', (input, param) => {
    expect(refusal(input)).toEqual({ code: 'VALIDATION_ERROR', param });
  });
});

describe('PlanMigration lifecycle', () => {
  const request = (mode: 'IMMEDIATE' | 'SCHEDULED') =>
    PlanMigration.request({
      organizationId: 'o',
      workspaceId: 'w',
      planId: 'p',
      trigger: 'manual',
      mode,
      target: { id: 'v', version: 2 },
      prorationStrategy: 'none',
      scheduledAt: mode === 'SCHEDULED' ? later : null,
      createdBy: { type: 'api_key', id: 'k' },
      now,
    });

  it('runs at once when IMMEDIATE, effective at its creation; cannot be canceled', () => {
    const migration = request('IMMEDIATE');
    expect(migration.snapshot).toMatchObject({ status: 'running', startedAt: now, scheduledAt: null });
    expect(migration.effectiveAt).toEqual(now);
    expect(() => migration.cancel(now)).toThrow(
      expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION', details: { from: 'running', to: 'canceled', allowed: [] } }),
    );
  });

  it('waits until scheduled_at when SCHEDULED; cancels before it starts, not after', () => {
    const migration = request('SCHEDULED');
    expect(migration.isDue(now)).toBe(false);
    expect(migration.isDue(later)).toBe(true);
    expect(migration.effectiveAt).toEqual(later);
    const canceled = request('SCHEDULED');
    canceled.cancel(now);
    expect(canceled.snapshot).toMatchObject({ status: 'canceled', canceledAt: now });
    expect(canceled.isDue(later)).toBe(false);
    migration.start(later);
    expect(() => migration.cancel(later)).toThrow(expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION' }));
  });
});
