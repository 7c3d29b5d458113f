import { DomainError } from '@app/shared-kernel';
import { Change } from '../domain/change';
import { ChangeRepository, TenantKey } from '../domain/repositories';
import { VersionLine, VersionRecord } from '../domain/version-line';

/** What products and plans share for catch-up: a version line and a way to fire one release. */
export interface ReleasingSubject<Resolution> {
  readonly line: VersionLine;
  fireRelease(versionId: string, resolution: Resolution, now: Date): { published?: VersionRecord; error?: DomainError };
}

/**
 * Fires a subject's due releases in order, each resolved at its own scheduled_for, and settles
 * their changes: applied (at scheduled_for) or failed with the refusal. The one code path the
 * release job and a command's catch-up share.
 */
export async function fireDueReleases<Resolution>(
  tenant: TenantKey,
  subject: ReleasingSubject<Resolution>,
  resolve: (release: VersionRecord, change: Change | undefined) => Promise<Resolution>,
  changes: ChangeRepository,
  now: Date,
): Promise<VersionRecord[]> {
  const published: VersionRecord[] = [];
  for (const release of subject.line.dueReleases(now)) {
    const change = await changes.lock(tenant, release.changeId!);
    const resolution = await resolve(release, change);
    const result = subject.fireRelease(release.id, resolution, now);
    if (result.published) published.push(result.published);
    if (!change) continue;
    if (result.published) change.applied(result.published, release.scheduledFor!);
    else change.failed({ code: result.error!.code, message: result.error!.message });
    await changes.save(change);
  }
  return published;
}
